// Organizations the caller belongs to, their settings, invite links, full-text search and email domains.
import { membershipOf } from '../auth/roles.ts';
import { searchSections } from '../content/search.ts';
import { groupByPage, type PageHits } from '../content/search-results.ts';
import { viewsAllContent } from '../domain/collections.ts';
import type { Model } from '../common/contract.ts';
import {
  deleteInviteLink,
  memberOrganizationsPage,
  organizationAccess,
  organizationsByEmailDomain,
  presentOrganization,
  presentSpaceResults,
  requireOrganization,
  updateOrganization,
} from '../domain/organizations.ts';
import { listId } from '../common/paging.ts';
import type { HandlerGroup } from './types.ts';

type Operations =
  | 'listOrganizations'
  | 'getOrganization'
  | 'updateOrganization'
  | 'deleteOrganizationInvite'
  | 'searchOrganizationContent'
  | 'listOrganizationsByEmailDomain';

export const organizationHandlers: HandlerGroup<Operations> = {
  async listOrganizations({ query, caller }, ctx) {
    const page = await memberOrganizationsPage(ctx, {
      list: listId('listOrganizations', caller.user.id),
      userId: caller.user.id,
      page: query.page,
      limit: query.limit,
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
    return { status: 200, body: await updateOrganization(ctx, caller, params.organizationId, body) };
  },

  async deleteOrganizationInvite({ params, caller }, ctx) {
    await deleteInviteLink(ctx, caller, params.organizationId, params.inviteId);
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
    return { status: 200, body: { ...page, items: await presentSpaceResults(ctx, query.query, page.items) } };
  },

  async listOrganizationsByEmailDomain({ params, caller }, ctx) {
    const rows = await organizationsByEmailDomain(ctx, caller, params.emailDomain);
    const found: Model<'Organization'>[] = [];
    for (const row of rows) found.push(presentOrganization(ctx, row, await membershipOf(ctx.db, caller.user.id, row.id)));
    return { status: 200, body: { organizations: found } };
  },
};
