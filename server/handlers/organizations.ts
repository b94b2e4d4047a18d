// Organizations the caller belongs to, their settings, invite links, full-text search and email domains.
import { membershipOf } from '../auth/roles.ts';
import { searchSections } from '../content/search.ts';
import { groupByPage, type PageHits, presentPages } from '../content/search-results.ts';
import { viewsAllContent } from '../domain/collections.ts';
import type { Model } from '../domain/contract.ts';
import {
  getOrganizationRow,
  organizationAccess,
  type OrganizationRow,
  presentOrganization,
  requireOrganization,
} from '../domain/organizations.ts';
import { listId } from '../domain/paging.ts';
import { badRequest, conflict } from '../errors.ts';
import type { HandlerGroup } from './types.ts';
import { toJson } from '../store/db.ts';
import * as organizations from '../store/organizations.ts';
import * as sites from '../store/sites.ts';
import * as spaces from '../store/spaces.ts';

type Operations =
  | 'listOrganizations'
  | 'getOrganization'
  | 'updateOrganization'
  | 'deleteOrganizationInvite'
  | 'searchOrganizationContent'
  | 'listOrganizationsByEmailDomain';

export const organizationHandlers: HandlerGroup<Operations> = {
  async listOrganizations({ query, caller }, ctx) {
    const page = await ctx.cursors.page({
      list: listId('listOrganizations', caller.user.id),
      page: query.page,
      limit: query.limit,
      key: (row: OrganizationRow) => [row.created_at, row.id],
      count: () => organizations.countOfMember(ctx.db, caller.user.id),
      fetch: async (key, limit) => (await organizations.pageOfMember(ctx.db, caller.user.id, key, limit)) as OrganizationRow[],
    });
    const items: Model<'Organization'>[] = [];
    for (const row of page.items) items.push(presentOrganization(ctx, row, await membershipOf(ctx.db, caller.user.id, row.id)));
    return { status: 200, body: { ...page, items } };
  },

  async getOrganization({ params, caller }, ctx) {
    const access = await organizationAccess(ctx, caller, params.organizationId);
    return { status: 200, body: presentOrganization(ctx, access.organization, access.membership) };
  },

  async updateOrganization({ params, body, caller }, ctx) {
    const access = await organizationAccess(ctx, caller, params.organizationId);
    requireOrganization(access, 'admin');
    const id = access.organization.id;
    const changes: Parameters<typeof organizations.update>[2] = {};
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
      if (await organizations.hostnameTaken(ctx.db, body.hostname, id)) {
        throw conflict(`hostname: "${body.hostname}" is already used by another organization`);
      }
      changes.hostname = body.hostname;
    }
    if (body.defaultRole !== undefined) changes.default_role = body.defaultRole ?? 'guest';
    if (body.defaultContent !== undefined) {
      if (body.defaultContent !== null && !(await sites.inOrganization(ctx.db, body.defaultContent.site, id))) {
        badRequestField('defaultContent.site', `no site ${body.defaultContent.site} in this organization`);
      }
      changes.default_content_site = body.defaultContent?.site ?? null;
    }
    if (body.logo !== undefined) changes.logo = body.logo;
    if (body.sso !== undefined) changes.sso = body.sso ? 1 : 0;
    if (body.ai !== undefined) changes.ai = body.ai ? 1 : 0;
    if (body.inviteLinks !== undefined) changes.invite_links = body.inviteLinks ? 1 : 0;
    await organizations.update(ctx.db, id, changes);
    return { status: 200, body: presentOrganization(ctx, (await getOrganizationRow(ctx, id))!, access.membership) };
  },

  async deleteOrganizationInvite({ params, caller }, ctx) {
    const access = await organizationAccess(ctx, caller, params.organizationId);
    requireOrganization(access, 'admin');
    await organizations.removeInviteLink(ctx.db, params.organizationId, params.inviteId);
    return { status: 204 };
  },

  async searchOrganizationContent({ params, query, caller }, ctx) {
    const access = await organizationAccess(ctx, caller, params.organizationId);
    requireOrganization(access, 'listMembers');
    const hits = viewsAllContent(access.membership) ? await searchSections(ctx.db, { organizationId: params.organizationId }, query.query) : [];

    // Group the matching pages by space, in the order of each space's best match; present a page of spaces.
    const bySpace = new Map<string, PageHits[]>();
    for (const pageHits of groupByPage(hits)) {
      const pages = bySpace.get(pageHits.spaceId);
      if (pages) pages.push(pageHits);
      else bySpace.set(pageHits.spaceId, [pageHits]);
    }
    const page = ctx.cursors.pageOf({
      list: listId('searchOrganizationContent', params.organizationId, query.query),
      page: query.page,
      limit: query.limit,
      all: [...bySpace.values()],
      key: (pages) => [pages[0]!.spaceId],
    });
    const presented = await presentPages(ctx, query.query, page.items.flat());
    const titles = await spaces.titles(ctx.db, page.items.map((pages) => pages[0]!.spaceId));
    const items: Model<'SearchSpaceResult'>[] = page.items.map((pages) => ({
      id: pages[0]!.spaceId,
      title: titles.get(pages[0]!.spaceId)!,
      pages: presented.splice(0, pages.length),
    }));
    return { status: 200, body: { ...page, items } };
  },

  async listOrganizationsByEmailDomain({ params, caller }, ctx) {
    // Organizations are discoverable by the domain of the caller's own email address only, so that this does
    // not reveal which organizations exist for other domains.
    const domain = params.emailDomain.trim().toLowerCase();
    const callerDomain = caller.user.email?.split('@')[1]?.toLowerCase();
    const rows = callerDomain === domain ? ((await organizations.byEmailDomain(ctx.db, domain)) as OrganizationRow[]) : [];
    const found: Model<'Organization'>[] = [];
    for (const row of rows) found.push(presentOrganization(ctx, row, await membershipOf(ctx.db, caller.user.id, row.id)));
    return { status: 200, body: { organizations: found } };
  },
};

function badRequestField(field: string, message: string): never {
  throw badRequest(`${field}: ${message}`);
}
