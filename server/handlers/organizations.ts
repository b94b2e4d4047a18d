// Organizations the caller belongs to, their settings, invite links, full-text search and email domains.
import type { AppContext } from '../context.ts';
import { searchSections } from '../content/search.ts';
import { groupByPage, type PageHits, presentPages } from '../content/search-results.ts';
import { viewsAllContent } from '../domain/collections.ts';
import {
  getOrganizationRow,
  organizationAccess,
  type OrganizationRow,
  presentOrganization,
  requireOrganization,
} from '../domain/organizations.ts';
import { badRequest, conflict } from '../http/errors.ts';
import { after, listId } from '../http/pagination.ts';
import type { HandlerGroup, Model } from '../http/types.ts';
import { toJson } from '../store/db.ts';
import { membershipOf } from '../auth/roles.ts';

type Operations =
  | 'listOrganizations'
  | 'getOrganization'
  | 'updateOrganization'
  | 'deleteOrganizationInvite'
  | 'searchOrganizationContent'
  | 'listOrganizationsByEmailDomain';

export function organizationHandlers(ctx: AppContext): HandlerGroup<Operations> {
  const { db } = ctx;

  return {
    listOrganizations({ query, caller }) {
      const page = ctx.cursors.page({
        list: listId('listOrganizations', caller.user.id),
        page: query.page,
        limit: query.limit,
        key: (row: OrganizationRow) => [row.created_at, row.id],
        count: () =>
          (
            db.prepare('SELECT COUNT(*) AS n FROM members WHERE user_id = ? AND disabled = 0').get(caller.user.id) as {
              n: number;
            }
          ).n,
        fetch: (key, limit) =>
          db
            .prepare(
              `SELECT organizations.* FROM organizations
               JOIN members ON members.organization_id = organizations.id AND members.user_id = ? AND members.disabled = 0
               ${key ? `WHERE ${after(['organizations.created_at', 'organizations.id'])}` : ''}
               ORDER BY organizations.created_at, organizations.id LIMIT ?`,
            )
            .all(caller.user.id, ...(key ?? []), limit) as OrganizationRow[],
      });
      return {
        status: 200,
        body: {
          ...page,
          items: page.items.map((row) => presentOrganization(ctx, row, membershipOf(db, caller.user.id, row.id))),
        },
      };
    },

    getOrganization({ params, caller }) {
      const access = organizationAccess(ctx, caller, params.organizationId);
      return { status: 200, body: presentOrganization(ctx, access.organization, access.membership) };
    },

    updateOrganization({ params, body, caller }) {
      const access = organizationAccess(ctx, caller, params.organizationId);
      requireOrganization(access, 'admin');
      const id = access.organization.id;
      const changes: Record<string, unknown> = {};
      if (body.title !== undefined) changes.title = body.title;
      if (body.emailDomains !== undefined) {
        const domains = [...new Set(body.emailDomains.map((domain) => domain.trim().toLowerCase()))];
        const invalid = domains.find((domain) => !/^([a-z0-9]([a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,}$/.test(domain));
        if (invalid !== undefined) badRequestField('emailDomains', `"${invalid}" is not an email domain`);
        changes.email_domains = toJson(domains);
      }
      if (body.hostname !== undefined) {
        if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/.test(body.hostname)) {
          badRequestField('hostname', 'use lower-case letters, digits and inner hyphens');
        }
        const taken = db
          .prepare('SELECT 1 FROM organizations WHERE hostname = ? AND id <> ?')
          .get(body.hostname, id);
        if (taken) throw conflict(`hostname: "${body.hostname}" is already used by another organization`);
        changes.hostname = body.hostname;
      }
      if (body.defaultRole !== undefined) changes.default_role = body.defaultRole ?? 'guest';
      if (body.defaultContent !== undefined) {
        if (body.defaultContent !== null) {
          const site = db
            .prepare('SELECT 1 FROM sites WHERE id = ? AND organization_id = ?')
            .get(body.defaultContent.site, id);
          if (!site) badRequestField('defaultContent.site', `no site ${body.defaultContent.site} in this organization`);
        }
        changes.default_content_site = body.defaultContent?.site ?? null;
      }
      if (body.logo !== undefined) changes.logo = body.logo;
      if (body.sso !== undefined) changes.sso = body.sso ? 1 : 0;
      if (body.ai !== undefined) changes.ai = body.ai ? 1 : 0;
      if (body.inviteLinks !== undefined) changes.invite_links = body.inviteLinks ? 1 : 0;

      const columns = Object.keys(changes);
      if (columns.length > 0) {
        db.prepare(`UPDATE organizations SET ${columns.map((column) => `${column} = ?`).join(', ')} WHERE id = ?`).run(
          ...Object.values(changes),
          id,
        );
      }
      return { status: 200, body: presentOrganization(ctx, getOrganizationRow(ctx, id)!, access.membership) };
    },

    deleteOrganizationInvite({ params, caller }) {
      const access = organizationAccess(ctx, caller, params.organizationId);
      requireOrganization(access, 'admin');
      db.prepare('DELETE FROM invite_links WHERE id = ? AND organization_id = ?').run(
        params.inviteId,
        params.organizationId,
      );
      return { status: 204 };
    },

    searchOrganizationContent({ params, query, caller }) {
      const access = organizationAccess(ctx, caller, params.organizationId);
      requireOrganization(access, 'listMembers');
      const hits = viewsAllContent(access.membership) ? searchSections(db, { organizationId: params.organizationId }, query.query) : [];

      // Group the matching pages by space, in the order of each space's best match; present a page of spaces.
      const spaces = new Map<string, PageHits[]>();
      for (const pageHits of groupByPage(hits)) {
        const pages = spaces.get(pageHits.spaceId);
        if (pages) pages.push(pageHits);
        else spaces.set(pageHits.spaceId, [pageHits]);
      }
      const page = ctx.cursors.pageOf({
        list: listId('searchOrganizationContent', params.organizationId, query.query),
        page: query.page,
        limit: query.limit,
        all: [...spaces.values()],
        key: (pages) => [pages[0]!.spaceId],
      });
      const presented = presentPages(ctx, query.query, page.items.flat());
      const items: Model<'SearchSpaceResult'>[] = page.items.map((pages) => {
        const { title } = db.prepare('SELECT title FROM spaces WHERE id = ?').get(pages[0]!.spaceId) as { title: string };
        return { id: pages[0]!.spaceId, title, pages: presented.splice(0, pages.length) };
      });
      return { status: 200, body: { ...page, items } };
    },

    listOrganizationsByEmailDomain({ params, caller }) {
      // Organizations are discoverable by the domain of the caller's own email address only, so that this does
      // not reveal which organizations exist for other domains.
      const domain = params.emailDomain.trim().toLowerCase();
      const callerDomain = caller.user.email?.split('@')[1]?.toLowerCase();
      const rows =
        callerDomain === domain
          ? (db
              .prepare(
                `SELECT organizations.* FROM organization_email_domains
                 JOIN organizations ON organizations.id = organization_email_domains.organization_id
                 WHERE organization_email_domains.domain = ? ORDER BY organizations.created_at, organizations.id`,
              )
              .all(domain) as OrganizationRow[])
          : [];
      return {
        status: 200,
        body: {
          organizations: rows.map((row) => presentOrganization(ctx, row, membershipOf(db, caller.user.id, row.id))),
        },
      };
    },
  };
}

function badRequestField(field: string, message: string): never {
  throw badRequest(`${field}: ${message}`);
}
