// SAML identity providers of an organization (admins only), and the SSO sign-in options its members see.
import type { Model } from '../common/contract.ts';
import { organizationAccess } from '../domain/organizations.ts';
import { listId } from '../common/paging.ts';
import {
  createSamlProvider,
  deleteSamlProvider,
  presentSamlProvider,
  samlProviderAccess,
  samlAdminAccess,
  samlProvidersPage,
  ssoSignInOptions,
  updateSamlProvider,
} from '../domain/saml.ts';
import type { HandlerGroup } from './types.ts';

type Operations =
  | 'listSamlProviders'
  | 'createSamlProvider'
  | 'getSamlProvider'
  | 'deleteSamlProvider'
  | 'updateSamlProvider'
  | 'listSsoLoginInfo';

export const samlHandlers: HandlerGroup<Operations> = {
  async listSamlProviders({ params, query, caller }, ctx) {
    const access = await samlAdminAccess(ctx, caller, params.organizationId);
    const page = await samlProvidersPage(ctx, {
      list: listId('listSamlProviders', params.organizationId),
      organizationId: params.organizationId,
      page: query.page,
      limit: query.limit,
    });
    const items: Model<'SamlProvider'>[] = [];
    for (const row of page.items) items.push(await presentSamlProvider(ctx, row, access, caller.user.id));
    return { status: 200, body: { ...page, items } };
  },

  async createSamlProvider({ params, body, caller }, ctx) {
    const provider = await createSamlProvider(ctx, caller, params.organizationId, body);
    return { status: 201, body: provider, headers: { location: provider.urls.location } };
  },

  async getSamlProvider({ params, caller }, ctx) {
    const { access, row } = await samlProviderAccess(ctx, caller, params.organizationId, params.samlProviderId);
    return { status: 200, body: await presentSamlProvider(ctx, row, access, caller.user.id) };
  },

  async deleteSamlProvider({ params, caller }, ctx) {
    await deleteSamlProvider(ctx, caller, params.organizationId, params.samlProviderId);
    return { status: 204 };
  },

  async updateSamlProvider({ params, body, caller }, ctx) {
    return { status: 200, body: await updateSamlProvider(ctx, caller, params.organizationId, params.samlProviderId, body) };
  },

  async listSsoLoginInfo({ params, caller }, ctx) {
    // Read together (one round trip on PostgreSQL); the organization's 404 first.
    const [, items] = await Promise.all([organizationAccess(ctx, caller, params.organizationId), ssoSignInOptions(ctx, params.organizationId)]);
    return { status: 200, body: { items } };
  },
};
