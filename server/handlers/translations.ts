// Translations of a space's content into another language. Creating a translation with a source queues its first
// run; POST run queues another. Runs happen in the background (the `translation-run` job, see domain/translations.ts).
import type { Scope } from '../context.ts';
import type { Input } from '../domain/contract.ts';
import { newId } from '../domain/ids.ts';
import { listId } from '../domain/paging.ts';
import { spaceAccess } from '../domain/spaces.ts';
import {
  getTranslationRow,
  liveSourceSpace,
  performRun,
  presentTranslation,
  queueRun,
  recordFailedRun,
  requireTranslation,
  RUN_JOB,
  translationAccess,
  translationsAccess,
  type TranslationRow,
} from '../domain/translations.ts';
import type { Caller } from '../auth/caller.ts';
import { badRequest, DomainError } from '../errors.ts';
import type { HandlerGroup } from './types.ts';
import type { JobRunner } from '../jobs/runner.ts';
import { toJson } from '../store/db.ts';
import * as translations from '../store/translations.ts';

type Operations =
  | 'listTranslations'
  | 'createTranslation'
  | 'getTranslation'
  | 'updateTranslation'
  | 'deleteTranslation'
  | 'runTranslation';

/** Largest translation instructions, as JSON: a translation is read whole, and listed 1000 at a time. */
export const MAX_INSTRUCTIONS_BYTES = 1024 * 1024;

/** The stored JSON of instructions; larger than MAX_INSTRUCTIONS_BYTES is a 400 naming `body.instructions`. */
function instructionsJson(instructions: unknown): string {
  const text = toJson(instructions, 'body.instructions');
  if (Buffer.byteLength(text) > MAX_INSTRUCTIONS_BYTES) {
    throw badRequest(`body.instructions: at most ${MAX_INSTRUCTIONS_BYTES} bytes as JSON`);
  }
  return text;
}

/** The source must be a live space of the organization that the caller can view, in another language. */
async function checkSource(ctx: Scope, caller: Caller, organizationId: string, body: Input<'CreateTranslationRequest'>): Promise<void> {
  const source = body.source;
  if (!source) return;
  let space;
  try {
    space = (await spaceAccess(ctx, caller, source.space)).space;
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
  }
  if (!space || space.organization_id !== organizationId) {
    throw badRequest(`source.space: no space ${source.space} in this organization that you can view`);
  }
  const from = source.language ?? space.language;
  if (from === body.language) throw badRequest(`language: the source is already in ${body.language}`);
}

export const translationHandlers: HandlerGroup<Operations> = {
  async listTranslations({ params, query, caller }, ctx) {
    const access = await translationsAccess(ctx, caller, params.organizationId);
    requireTranslation(access.permissions, 'view');
    const page = await ctx.cursors.page({
      list: listId('listTranslations', params.organizationId),
      page: query.page,
      limit: query.limit,
      key: (row: TranslationRow) => [row.created_at, row.id],
      count: () => translations.count(ctx.db, params.organizationId),
      fetch: async (key, limit) => (await translations.page(ctx.db, params.organizationId, key, limit)) as TranslationRow[],
    });
    return { status: 200, body: { ...page, items: page.items.map((row) => presentTranslation(ctx, row, access.permissions)) } };
  },

  async createTranslation({ params, body, caller }, ctx) {
    const access = await translationsAccess(ctx, caller, params.organizationId);
    requireTranslation(access.permissions, 'edit');
    await checkSource(ctx, caller, params.organizationId, body);
    const id = newId();
    const now = ctx.now();
    await translations.insert(ctx.db, {
      id,
      organization_id: params.organizationId,
      language: body.language,
      source_space_id: body.source?.space ?? null,
      source_language: body.source?.language ?? null,
      instructions: body.instructions ? instructionsJson(body.instructions) : null,
      created_at: now,
      updated_at: now,
    });
    if (body.source) await queueRun(ctx, id);
    const translation = presentTranslation(ctx, (await getTranslationRow(ctx.db, id))!, access.permissions);
    return { status: 201, body: translation, headers: { location: translation.urls.location } };
  },

  async getTranslation({ params, caller }, ctx) {
    const access = await translationAccess(ctx, caller, params.organizationId, params.translationId);
    return { status: 200, body: presentTranslation(ctx, access.translation, access.permissions) };
  },

  async updateTranslation({ params, body, caller }, ctx) {
    const access = await translationAccess(ctx, caller, params.organizationId, params.translationId);
    requireTranslation(access.permissions, 'edit');
    await translations.update(ctx.db, params.translationId, { instructions: instructionsJson(body.instructions), updated_at: ctx.now() });
    return { status: 200, body: presentTranslation(ctx, (await getTranslationRow(ctx.db, params.translationId))!, access.permissions) };
  },

  async deleteTranslation({ params, caller }, ctx) {
    const access = await translationsAccess(ctx, caller, params.organizationId);
    const row = await getTranslationRow(ctx.db, params.translationId);
    if (!row || row.organization_id !== params.organizationId) return { status: 204 };
    requireTranslation(access.permissions, 'edit');
    // The result space stays: it is an ordinary space of the organization. Queued runs find nothing to do.
    await translations.remove(ctx.db, row.id);
    return { status: 204 };
  },

  async runTranslation({ params, caller }, ctx) {
    const access = await translationAccess(ctx, caller, params.organizationId, params.translationId);
    requireTranslation(access.permissions, 'edit');
    const row = access.translation;
    if (!row.source_space_id) throw badRequest('source: the translation has no source space to translate');
    if (!(await liveSourceSpace(ctx.db, row))) {
      throw badRequest(`source.space: space ${row.source_space_id} no longer exists in this organization`);
    }
    await queueRun(ctx, row.id);
    return { status: 204 };
  },
};

/** Registers the background work of this group with the job runner. */
export function registerTranslationJobs(runner: JobRunner): void {
  runner.register<{ translationId: string }>(RUN_JOB, {
    // A run writes nothing until it is done: after a restart it simply runs again.
    resumable: true,
    run: (ctx, job) => performRun(ctx, job.payload.translationId, job),
    fail: (ctx, job) => recordFailedRun(ctx, job.payload.translationId),
  });
}
