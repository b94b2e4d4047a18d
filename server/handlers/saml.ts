// SAML identity providers of an organization (admins only), and the SSO sign-in options its members see.
import type { Caller } from '../auth/caller.ts';
import type { AppContext } from '../context.ts';
import { newId } from '../domain/ids.ts';
import { organizationAccess, requireOrganization } from '../domain/organizations.ts';
import {
  getSamlProviderRow,
  presentSamlProvider,
  samlColumns,
  type SamlProviderRow,
  samlService,
  SAML_STATUSES,
  samlStatus,
} from '../domain/saml.ts';
import { badRequest, notFound } from '../http/errors.ts';
import { after, listId } from '../http/pagination.ts';
import type { HandlerGroup } from '../http/types.ts';

/** Most SAML providers of an organization (the SSO sign-in list, not paginated, holds the active ones). */
export const MAX_SAML_PROVIDERS = 50;

type Operations =
  | 'listSamlProviders'
  | 'createSamlProvider'
  | 'getSamlProvider'
  | 'deleteSamlProvider'
  | 'updateSamlProvider'
  | 'listSsoLoginInfo';

export function samlHandlers(ctx: AppContext): HandlerGroup<Operations> {
  const { db } = ctx;

  /** The organization, when the caller administers it: 404 for non-members, 403 for other members. */
  const adminAccess = (organizationId: string, caller: Caller) => {
    const access = organizationAccess(ctx, caller, organizationId);
    requireOrganization(access, 'admin');
    return access;
  };

  const requireProvider = (organizationId: string, id: string) => {
    const row = getSamlProviderRow(ctx, organizationId, id);
    if (!row) throw notFound(`SAML provider ${id}`);
    return row;
  };

  return {
    listSamlProviders({ params, query, caller }) {
      const access = adminAccess(params.organizationId, caller);
      const page = ctx.cursors.page({
        list: listId('listSamlProviders', params.organizationId),
        page: query.page,
        limit: query.limit,
        key: (row: SamlProviderRow) => [row.created_at, row.id],
        count: () =>
          (db.prepare('SELECT COUNT(*) AS n FROM saml_providers WHERE organization_id = ?').get(params.organizationId) as {
            n: number;
          }).n,
        fetch: (key, limit) =>
          db
            .prepare(
              `SELECT * FROM saml_providers WHERE organization_id = ? ${key ? `AND ${after(['created_at', 'id'])}` : ''}
               ORDER BY created_at, id LIMIT ?`,
            )
            .all(params.organizationId, ...(key ?? []), limit) as SamlProviderRow[],
      });
      return {
        status: 200,
        body: { ...page, items: page.items.map((row) => presentSamlProvider(ctx, row, access, caller.user.id)) },
      };
    },

    createSamlProvider({ params, body, caller }) {
      const access = adminAccess(params.organizationId, caller);
      const columns = samlColumns(ctx, params.organizationId, body);
      const { n } = db.prepare('SELECT COUNT(*) AS n FROM saml_providers WHERE organization_id = ?').get(params.organizationId) as {
        n: number;
      };
      // The SSO sign-in list shows every active provider in one answer.
      if (n >= MAX_SAML_PROVIDERS) throw badRequest(`label: an organization has at most ${MAX_SAML_PROVIDERS} SAML providers`);
      const id = newId();
      db.prepare(
        `INSERT INTO saml_providers (id, organization_id, label, sso_url, entity_id, certificate, default_team_id,
                                     default_role, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        id,
        params.organizationId,
        columns.label,
        columns.sso_url ?? null,
        columns.entity_id ?? null,
        columns.certificate ?? null,
        columns.default_team_id ?? null,
        columns.default_role ?? null,
        ctx.now(),
      );
      const provider = presentSamlProvider(ctx, requireProvider(params.organizationId, id), access, caller.user.id);
      return { status: 201, body: provider, headers: { location: provider.urls.location } };
    },

    getSamlProvider({ params, caller }) {
      const access = adminAccess(params.organizationId, caller);
      const row = requireProvider(params.organizationId, params.samlProviderId);
      return { status: 200, body: presentSamlProvider(ctx, row, access, caller.user.id) };
    },

    deleteSamlProvider({ params, caller }) {
      adminAccess(params.organizationId, caller);
      db.prepare('DELETE FROM saml_providers WHERE id = ? AND organization_id = ?').run(
        params.samlProviderId,
        params.organizationId,
      );
      return { status: 204 };
    },

    updateSamlProvider({ params, body, caller }) {
      const access = adminAccess(params.organizationId, caller);
      const row = requireProvider(params.organizationId, params.samlProviderId);
      const columns = samlColumns(ctx, params.organizationId, body);
      const names = Object.keys(columns);
      if (names.length > 0) {
        db.prepare(`UPDATE saml_providers SET ${names.map((name) => `${name} = ?`).join(', ')} WHERE id = ?`).run(
          ...Object.values(columns),
          row.id,
        );
      }
      const updated = requireProvider(params.organizationId, row.id);
      return { status: 200, body: presentSamlProvider(ctx, updated, access, caller.user.id) };
    },

    listSsoLoginInfo({ params, caller }) {
      organizationAccess(ctx, caller, params.organizationId);
      const rows = db
        .prepare('SELECT * FROM saml_providers WHERE organization_id = ? ORDER BY created_at, id')
        .all(params.organizationId) as SamlProviderRow[];
      const items = rows
        .filter((row) => SAML_STATUSES[samlStatus(row)].signIn)
        .map((row) => ({ id: row.id, label: row.label, startURL: samlService(ctx, row).startURL }));
      return { status: 200, body: { items } };
    },
  };
}
