// SAML identity providers of an organization (admins only), and the SSO sign-in options its members see.
import type { Caller } from '../auth/caller.ts';
import type { Scope } from '../context.ts';
import type { Model } from '../domain/contract.ts';
import { newId } from '../domain/ids.ts';
import { organizationAccess, requireOrganization } from '../domain/organizations.ts';
import { listId } from '../domain/paging.ts';
import {
  getSamlProviderRow,
  presentSamlProvider,
  samlColumns,
  type SamlProviderRow,
  samlService,
  SAML_STATUSES,
  samlStatus,
} from '../domain/saml.ts';
import { badRequest, notFound } from '../errors.ts';
import type { HandlerGroup } from './types.ts';
import * as saml from '../store/saml.ts';

/** Most SAML providers of an organization (the SSO sign-in list, not paginated, holds the active ones). */
export const MAX_SAML_PROVIDERS = 50;

type Operations =
  | 'listSamlProviders'
  | 'createSamlProvider'
  | 'getSamlProvider'
  | 'deleteSamlProvider'
  | 'updateSamlProvider'
  | 'listSsoLoginInfo';

/** The organization, when the caller administers it: 404 for non-members, 403 for other members. */
async function adminAccess(ctx: Scope, organizationId: string, caller: Caller) {
  const access = await organizationAccess(ctx, caller, organizationId);
  requireOrganization(access, 'admin');
  return access;
}

async function requireProvider(ctx: Scope, organizationId: string, id: string): Promise<SamlProviderRow> {
  const row = await getSamlProviderRow(ctx, organizationId, id);
  if (!row) throw notFound(`SAML provider ${id}`);
  return row;
}

export const samlHandlers: HandlerGroup<Operations> = {
  async listSamlProviders({ params, query, caller }, ctx) {
    const access = await adminAccess(ctx, params.organizationId, caller);
    const page = await ctx.cursors.page({
      list: listId('listSamlProviders', params.organizationId),
      page: query.page,
      limit: query.limit,
      key: (row: SamlProviderRow) => [row.created_at, row.id],
      count: () => saml.count(ctx.db, params.organizationId),
      fetch: async (key, limit) => (await saml.page(ctx.db, params.organizationId, key, limit)) as SamlProviderRow[],
    });
    const items: Model<'SamlProvider'>[] = [];
    for (const row of page.items) items.push(await presentSamlProvider(ctx, row, access, caller.user.id));
    return { status: 200, body: { ...page, items } };
  },

  async createSamlProvider({ params, body, caller }, ctx) {
    const access = await adminAccess(ctx, params.organizationId, caller);
    const columns = await samlColumns(ctx, params.organizationId, body);
    // The SSO sign-in list shows every active provider in one answer.
    if ((await saml.count(ctx.db, params.organizationId)) >= MAX_SAML_PROVIDERS) {
      throw badRequest(`label: an organization has at most ${MAX_SAML_PROVIDERS} SAML providers`);
    }
    const id = newId();
    await saml.insert(ctx.db, {
      id,
      organization_id: params.organizationId,
      label: columns.label!,
      sso_url: columns.sso_url ?? null,
      entity_id: columns.entity_id ?? null,
      certificate: columns.certificate ?? null,
      default_team_id: columns.default_team_id ?? null,
      default_role: columns.default_role ?? null,
      created_at: ctx.now(),
    });
    const provider = await presentSamlProvider(ctx, await requireProvider(ctx, params.organizationId, id), access, caller.user.id);
    return { status: 201, body: provider, headers: { location: provider.urls.location } };
  },

  async getSamlProvider({ params, caller }, ctx) {
    const access = await adminAccess(ctx, params.organizationId, caller);
    const row = await requireProvider(ctx, params.organizationId, params.samlProviderId);
    return { status: 200, body: await presentSamlProvider(ctx, row, access, caller.user.id) };
  },

  async deleteSamlProvider({ params, caller }, ctx) {
    await adminAccess(ctx, params.organizationId, caller);
    await saml.remove(ctx.db, params.organizationId, params.samlProviderId);
    return { status: 204 };
  },

  async updateSamlProvider({ params, body, caller }, ctx) {
    const access = await adminAccess(ctx, params.organizationId, caller);
    const row = await requireProvider(ctx, params.organizationId, params.samlProviderId);
    await saml.update(ctx.db, row.id, await samlColumns(ctx, params.organizationId, body));
    const updated = await requireProvider(ctx, params.organizationId, row.id);
    return { status: 200, body: await presentSamlProvider(ctx, updated, access, caller.user.id) };
  },

  async listSsoLoginInfo({ params, caller }, ctx) {
    await organizationAccess(ctx, caller, params.organizationId);
    const rows = (await saml.all(ctx.db, params.organizationId)) as SamlProviderRow[];
    const items = rows
      .filter((row) => SAML_STATUSES[samlStatus(row)].signIn)
      .map((row) => ({ id: row.id, label: row.label, startURL: samlService(ctx, row).startURL }));
    return { status: 200, body: { items } };
  },
};
