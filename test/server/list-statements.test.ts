// A page of a list costs a fixed number of SQL statements, whatever the number of items on it: what each item shows
// (its counts, its users, the caller's permissions) is read for the page at once, not item by item. Counted here for
// the lists of two organizations alike but for their size (2 items of each kind against 12), as each caller sees
// them; a statement run per item shows as a difference. (`npm run bench`'s lists part measures the pages' times.)
import { beforeAll, describe, expect, test } from 'vitest';
import type { SeedFixture } from '../../server/start/seed.ts';
import { ok } from '../support/expect.ts';
import { useTestServer } from '../support/server.ts';
import { SqliteStore } from '../../server/store/sqlite/store.ts';

const SIZES = { few: 2, many: 12 } as const;
type Org = keyof typeof SIZES;

const users: NonNullable<SeedFixture['users']> = [
  { id: 'boss', displayName: 'Boss', email: 'boss@lists.test', tokens: ['boss'] },
  { id: 'viewer', displayName: 'Viewer', email: 'viewer@lists.test', tokens: ['viewer'] },
  ...Array.from({ length: SIZES.many }, (_, i) => ({ id: `u${i}`, displayName: `User ${i}`, email: `u${i}@lists.test`, tokens: [`u${i}`] })),
];

const organization = (id: Org) => {
  const n = SIZES[id];
  const range = Array.from({ length: n }, (_, i) => i);
  return {
    id,
    title: id,
    members: [
      { user: 'boss', role: 'admin' as const },
      { user: 'viewer', role: 'read' as const },
      ...range.map((i) => ({ user: `u${i}`, role: 'edit' as const })),
    ],
    teams: range.map((i) => ({
      id: `${id}-t${i}`,
      title: `Team ${i}`,
      members: [{ user: `u${i}`, role: 'owner' as const }, { user: 'viewer' }],
      spaces: [`${id}-s0`],
    })),
    collections: [
      { id: `${id}-root`, title: 'Root' },
      ...range.map((i) => ({ id: `${id}-c${i}`, title: `Collection ${i}`, parent: `${id}-root` })),
    ],
    spaces: range.map((i) => ({
      id: `${id}-s${i}`,
      title: `Space ${i}`,
      ...(i > 0 ? { parent: `${id}-c${(i + 1) % 2}` } : {}),
      pages: [{ id: 'p', title: 'Page', markdown: 'Text.\n' }],
    })),
  };
};

const ctx = useTestServer({ fixture: { users, organizations: [organization('few'), organization('many')] } });
const app = () => ctx.server.running.ctx;

/** What each organization holds beyond its seed: change requests, comments with replies and reactions. */
const made: Record<Org, { changeRequest: string; comment: string; site: string }> = {} as never;

beforeAll(async () => {
  for (const org of Object.keys(SIZES) as Org[]) {
    const space = { params: { path: { spaceId: `${org}-s0` } } };
    let changeRequest = '';
    let comment = '';
    for (let i = 0; i < SIZES[org]; i++) {
      const as = ctx.server.as(`u${i}`);
      const created = ok(await as.POST('/v1/spaces/{spaceId}/change-requests', { ...space, body: { subject: `CR ${i}` } }), 201);
      changeRequest ||= created.id;
      const posted = ok(await as.POST('/v1/spaces/{spaceId}/comments', { ...space, body: { body: { markdown: `Comment ${i}` } } }), 201);
      comment ||= posted.id;
      const path = { spaceId: `${org}-s0`, commentId: comment };
      ok(await as.POST('/v1/spaces/{spaceId}/comments/{commentId}/replies', { params: { path }, body: { body: { markdown: `Reply ${i}` } } }), 201);
      ok(await as.PUT('/v1/spaces/{spaceId}/comments/{commentId}', { params: { path: { spaceId: `${org}-s0`, commentId: posted.id } }, body: { addedReactions: ['👍'] } }));
      ok(
        await as.POST('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/comments', {
          params: { path: { spaceId: `${org}-s0`, changeRequestId: changeRequest } },
          body: { body: { markdown: `On CR ${i}` } },
        }),
        201,
      );
    }
    // A site with a space and sections per space, OpenAPI specifications and translations.
    const boss = ctx.server.as('boss');
    const organization = { params: { path: { organizationId: org } } };
    const site = ok(await boss.POST('/v1/orgs/{organizationId}/sites', { ...organization, body: { title: 'Site' } }), 201).id;
    const sitePath = { params: { path: { organizationId: org, siteId: site } } };
    for (let i = 0; i < SIZES[org]; i++) {
      ok(await boss.POST('/v1/orgs/{organizationId}/sites/{siteId}/site-spaces', { ...sitePath, body: { spaceId: `${org}-s${i}` } }), 201);
      ok(await boss.POST('/v1/orgs/{organizationId}/sites/{siteId}/sections', { ...sitePath, body: { spaceId: `${org}-s${i}`, title: `Section ${i}` } }), 201);
      ok(await boss.POST('/v1/orgs/{organizationId}/sites', { ...organization, body: { title: `Site ${i}` } }), 201);
      const source = { text: JSON.stringify({ openapi: '3.0.3', info: { title: `API ${i}`, version: '1' }, paths: {} }) };
      ok(await boss.POST('/v1/orgs/{organizationId}/openapi', { ...organization, body: { slug: `api-${i}`, source } }), 201);
      ok(await boss.POST('/v1/orgs/{organizationId}/translations', { ...organization, body: { language: 'de', source: { space: `${org}-s${i}` } } }), 201);
    }
    made[org] = { changeRequest, comment, site };
  }
});

/** The lists, as paths of one organization (a page holds every item: limit 50). */
const lists = (org: Org): Record<string, string> => ({
  listOrganizations: '/v1/orgs',
  listMembers: `/v1/orgs/${org}/members`,
  listMemberSpaces: `/v1/orgs/${org}/members/viewer/spaces`,
  listMemberTeams: `/v1/orgs/${org}/members/viewer/teams`,
  listSpaces: `/v1/orgs/${org}/spaces`,
  listCollections: `/v1/orgs/${org}/collections`,
  listCollectionSpaces: `/v1/collections/${org}-c0/spaces`,
  listTeams: `/v1/orgs/${org}/teams`,
  listChangeRequests: `/v1/spaces/${org}-s0/change-requests`,
  listSpaceComments: `/v1/spaces/${org}-s0/comments`,
  listSpaceCommentReplies: `/v1/spaces/${org}-s0/comments/${made[org].comment}/replies`,
  listSpaceCommenters: `/v1/spaces/${org}-s0/commenters`,
  listChangeRequestComments: `/v1/spaces/${org}-s0/change-requests/${made[org].changeRequest}/comments`,
  listSites: `/v1/orgs/${org}/sites`,
  listSiteSpaces: `/v1/orgs/${org}/sites/${made[org].site}/site-spaces`,
  listSiteSections: `/v1/orgs/${org}/sites/${made[org].site}/sections`,
  listOpenAPISpecs: `/v1/orgs/${org}/openapi`,
  listTranslations: `/v1/orgs/${org}/translations`,
});

/** Statements the server runs (each goes through the SQLite store's statement cache) while answering `path`, and the items. */
async function statements(path: string, token: string): Promise<[statements: number, items: number]> {
  // Background work (translations) runs its own statements: count the request's alone.
  await app().jobs.idle();
  const store = app().store as SqliteStore;
  const statement = store.statement;
  let count = 0;
  store.statement = (text: string) => {
    count++;
    return statement.call(store, text);
  };
  try {
    const response = await fetch(`${ctx.server.url}${path}${path.includes('?') ? '&' : '?'}limit=50`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.status, path).toBe(200);
    const body = (await response.json()) as { items: unknown[] };
    return [count, body.items.length];
  } finally {
    store.statement = statement;
  }
}

describe('a page of a list runs as many statements with 12 items as with 2', () => {
  for (const who of ['boss', 'viewer'] as const) {
    test(`as an organization ${who === 'boss' ? 'admin' : 'reader'}`, async () => {
      const few = lists('few');
      const many = lists('many');
      const counts: Record<string, [number, number]> = {};
      for (const name of Object.keys(few)) {
        // A first call compiles the operation's validators and fills caches: count the calls after it. A timer of the
        // server (the job runner's, the sweep's) may run a statement while a request is under way, which only adds:
        // the fewest of three calls is the request's own.
        await statements(few[name]!, who);
        await statements(many[name]!, who);
        const fewest = async (path: string) => {
          const calls = [await statements(path, who), await statements(path, who), await statements(path, who)];
          return [Math.min(...calls.map(([count]) => count)), calls[0]![1]] as const;
        };
        const [small, fewItems] = await fewest(few[name]!);
        const [large, manyItems] = await fewest(many[name]!);
        counts[name] = [small, large];
        // Each page has items, more of them in the larger organization (the organizations' list is the caller's).
        expect(fewItems, name).toBeGreaterThan(0);
        if (name !== 'listOrganizations') expect(manyItems, name).toBeGreaterThan(fewItems);
      }
      const growing = Object.entries(counts).filter(([, [small, large]]) => large !== small);
      expect(growing, JSON.stringify(counts)).toEqual([]);
    });
  }
});

// What an item shows is read for a page at once, or for the one item a GET asks for, by the same statement in two
// forms (`amongIds` in server/store/db.ts: `IN` the ids of a page, `= ?` for one id): both must show the same.
describe('an item read alone shows what a page of its list shows of it', () => {
  for (const who of ['boss', 'viewer'] as const) {
    test(`as an organization ${who === 'boss' ? 'admin' : 'reader'}`, async () => {
      const read = async (path: string) => {
        const response = await fetch(`${ctx.server.url}${path}`, { headers: { authorization: `Bearer ${who}` } });
        expect(response.status, path).toBe(200);
        return (await response.json()) as { id: string; items: { id: string }[] };
      };
      const org = 'many';
      const lists = {
        [`/v1/orgs/${org}/members?limit=50`]: (id: string) => `/v1/orgs/${org}/members/${id}`,
        [`/v1/orgs/${org}/teams?limit=50`]: (id: string) => `/v1/orgs/${org}/teams/${id}`,
        [`/v1/orgs/${org}/sites?limit=50`]: (id: string) => `/v1/orgs/${org}/sites/${id}`,
        [`/v1/orgs/${org}/spaces?limit=50`]: (id: string) => `/v1/spaces/${id}`,
        [`/v1/spaces/${org}-s0/change-requests?limit=50`]: (id: string) => `/v1/spaces/${org}-s0/change-requests/${id}`,
        [`/v1/spaces/${org}-s0/comments?limit=50`]: (id: string) => `/v1/spaces/${org}-s0/comments/${id}`,
        [`/v1/spaces/${org}-s0/comments/${made[org].comment}/replies?limit=50`]: (id: string) =>
          `/v1/spaces/${org}-s0/comments/${made[org].comment}/replies/${id}`,
      };
      for (const [list, itemPath] of Object.entries(lists)) {
        const { items } = await read(list);
        expect(items.length, list).toBeGreaterThan(1);
        for (const item of items) expect(await read(itemPath(item.id)), itemPath(item.id)).toEqual(item);
      }
    });
  }
});
