// Translations of a space's content into another language. Creating a translation with a source queues its first
// run; POST run queues another. Runs happen in the background (the `translation-run` job, see domain/translations.ts).
import { listId } from '../common/paging.ts';
import {
  createTranslation,
  deleteTranslation,
  presentTranslation,
  queueTranslationRun,
  translationAccess,
  translationListing,
  updateTranslation,
  viewTranslations,
} from '../domain/translations.ts';
import type { HandlerGroup } from './types.ts';


type Operations =
  | 'listTranslations'
  | 'createTranslation'
  | 'getTranslation'
  | 'updateTranslation'
  | 'deleteTranslation'
  | 'runTranslation';

export const translationHandlers: HandlerGroup<Operations> = {
  async listTranslations({ params, query, caller }, ctx) {
    const access = await viewTranslations(ctx, caller, params.organizationId);
    const page = await ctx.cursors.page({
      list: listId('listTranslations', params.organizationId),
      page: query.page,
      limit: query.limit,
      ...translationListing(ctx, params.organizationId),
    });
    return { status: 200, body: { ...page, items: page.items.map((row) => presentTranslation(ctx, row, access.permissions)) } };
  },

  async createTranslation({ params, body, caller }, ctx) {
    const translation = await createTranslation(ctx, caller, params.organizationId, body);
    return { status: 201, body: translation, headers: { location: translation.urls.location } };
  },

  async getTranslation({ params, caller }, ctx) {
    const access = await translationAccess(ctx, caller, params.organizationId, params.translationId);
    return { status: 200, body: presentTranslation(ctx, access.translation, access.permissions) };
  },

  async updateTranslation({ params, body, caller }, ctx) {
    return { status: 200, body: await updateTranslation(ctx, caller, params.organizationId, params.translationId, body) };
  },

  async deleteTranslation({ params, caller }, ctx) {
    await deleteTranslation(ctx, caller, params.organizationId, params.translationId);
    return { status: 204 };
  },

  async runTranslation({ params, caller }, ctx) {
    await queueTranslationRun(ctx, caller, params.organizationId, params.translationId);
    return { status: 204 };
  },
};
