import { describe, expect, test } from 'vitest';
import { ACME, standardFixture } from '../support/fixture.ts';
import { expectError, ok } from '../support/expect.ts';
import { useTestServer } from '../support/server.ts';

const fixture = {
  ...standardFixture,
  users: [
    ...standardFixture.users!,
    { id: 'zoe', displayName: 'Zoe Zimmer', email: 'zoe@acme.test', tokens: ['zoe'] },
    { id: 'second-admin', displayName: 'Second Admin', email: 'second@acme.test', tokens: ['second-admin'] },
    { id: 'leaver', displayName: 'Lee Leaver', email: 'leaver@acme.test', tokens: ['leaver'] },
    { id: 'departing', displayName: 'Dee Parting', email: 'departing@acme.test', tokens: ['departing'] },
  ],
  organizations: [
    {
      ...standardFixture.organizations![0]!,
      members: [
        ...standardFixture.organizations![0]!.members!,
        { user: 'zoe', role: 'edit' as const },
        { user: 'second-admin', role: 'admin' as const },
        { user: 'leaver', role: 'read' as const },
        { user: 'departing', role: 'edit' as const },
      ],
      spaces: [{ id: 'wiki', title: 'Wiki' }, { id: 'playbook', title: 'Playbook' }],
      teams: [
        { id: 'writers', title: 'Writers', members: [{ user: 'zoe', role: 'owner' as const }] },
        { id: 'reviewers', title: 'Reviewers', members: [{ user: 'zoe' }, { user: 'departing' }] },
      ],
    },
    standardFixture.organizations![1]!,
  ],
};

const ctx = useTestServer({ fixture });
const org = { organizationId: ACME };
const member = (userId: string) => ({ params: { path: { ...org, userId } } });

describe('GET /v1/orgs/{organizationId}/members', () => {
  const list = (query: Record<string, unknown> = {}, as: 'admin' | 'reader' | 'guest' | 'outsider' | 'anonymous' = 'admin') =>
    ctx.server.as(as).GET('/v1/orgs/{organizationId}/members', { params: { path: org, query } });

  test('lists every member with their role and user', async () => {
    const members = ok(await list());
    expect(members.count).toBe(11);
    const zoe = members.items.find((item) => item.id === 'zoe')!;
    expect(zoe).toMatchObject({
      object: 'member',
      role: 'edit',
      user: { object: 'user', id: 'zoe', displayName: 'Zoe Zimmer', email: 'zoe@acme.test' },
      disabled: false,
      sso: false,
      teams: 2,
    });
    expect(members.items.find((item) => item.id === 'guest')!.role).toBeNull();
  });

  test("each listed member is what reading it alone gives: its user, its own teams' count, the spaces it sees", async () => {
    // The list reads users and teams' counts for the whole page at once: zoe is in 2 teams, departing in 1, others
    // in none; a guest sees no space.
    const members = ok(await list()).items;
    expect(members.map((item) => item.teams).sort()).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2]);
    for (const item of members) {
      expect(item, item.id).toEqual(ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/members/{userId}', member(item.id))));
    }
    expect(members.find((item) => item.id === 'departing')).toMatchObject({ teams: 1, spaces: 2, user: { displayName: 'Dee Parting' } });
    expect(members.find((item) => item.id === 'guest')!.spaces).toBe(0);
  });

  test('filters by role and by text in the name or the email', async () => {
    expect(ok(await list({ role: 'admin' })).items.map((item) => item.id).sort()).toEqual(['admin', 'second-admin']);
    expect(ok(await list({ search: 'zimm' })).items.map((item) => item.id)).toEqual(['zoe']);
    expect(ok(await list({ search: 'SECOND@acme' })).items.map((item) => item.id)).toEqual(['second-admin']);
    expect(ok(await list({ search: '%' })).items).toEqual([]);
    // The count is of the members matching: with and without the search, which alone reads their users.
    expect(ok(await list({ role: 'admin' })).count).toBe(2);
    expect(ok(await list({ search: 'zimm' })).count).toBe(1);
    expect(ok(await list({ role: 'admin', search: 'second' })).count).toBe(1);
    expect(ok(await list({ search: '%' })).count).toBe(0);
  });

  test('sorts by name in either order and pages through with a cursor', async () => {
    const ascending = ok(await list({ sort: 'name', order: 'asc' })).items.map((item) => item.user.displayName);
    expect(ascending).toEqual([...ascending].sort());
    const descending = ok(await list({ sort: 'name', order: 'desc' })).items.map((item) => item.user.displayName);
    expect(descending).toEqual([...ascending].reverse());

    const first = ok(await list({ sort: 'name', order: 'asc', limit: 4 }));
    expect(first.items).toHaveLength(4);
    const second = ok(await list({ sort: 'name', order: 'asc', limit: 4, page: first.next!.page }));
    const third = ok(await list({ sort: 'name', order: 'asc', limit: 4, page: second.next!.page }));
    expect(third.next).toBeUndefined();
    expect([...first.items, ...second.items, ...third.items].map((item) => item.user.displayName)).toEqual(ascending);
    expect(third.count).toBe(11);
  });

  test('a cursor is bound to its filters', async () => {
    const first = ok(await list({ sort: 'name', limit: 2 }));
    expectError(await list({ sort: 'joinedAt', limit: 2, page: first.next!.page }), 400, 'page');
  });

  test('sorting by last activity lists only members who have been seen', async () => {
    ok(await ctx.server.as('reader').POST('/v1/orgs/{organizationId}/ping', { params: { path: org } }));
    const active = ok(await list({ sort: 'lastSeenAt' }));
    expect(active.items.map((item) => item.id)).toEqual(['reader']);
    expect(active.count).toBe(1);
    expect(active.items[0]!.lastSeenAt).toBe(ctx.server.clock.now().toISOString());
  });

  test('rejects an unknown role, sort or order with 400', async () => {
    expectError(await list({ role: 'owner' }), 400, 'role');
    expectError(await list({ sort: 'email' }), 400, 'sort');
    expectError(await list({ order: 'up' }), 400, 'order');
  });

  test('needs the listMembers permission (403), membership (404) and a token (401)', async () => {
    expectError(await list({}, 'guest'), 403);
    expectError(await list({}, 'outsider'), 404);
    expectError(await list({}, 'anonymous'), 401);
  });
});

describe('GET /v1/orgs/{organizationId}/members/{userId}', () => {
  test('returns a member', async () => {
    expect(ok(await ctx.server.as('reader').GET('/v1/orgs/{organizationId}/members/{userId}', member('zoe')))).toMatchObject({
      id: 'zoe',
      role: 'edit',
    });
  });

  test('a guest may read their own membership but not others', async () => {
    expect(ok(await ctx.server.as('guest').GET('/v1/orgs/{organizationId}/members/{userId}', member('guest'))).role).toBeNull();
    expectError(await ctx.server.as('guest').GET('/v1/orgs/{organizationId}/members/{userId}', member('zoe')), 403);
    // Whether someone else is a member is not told either: the member is read with the access, shown only once it allows.
    expectError(await ctx.server.as('guest').GET('/v1/orgs/{organizationId}/members/{userId}', member('outsider')), 403);
  });

  test('answers 404 for a non-member, another organization, and 401 without a token', async () => {
    expectError(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/members/{userId}', member('outsider')), 404);
    expectError(await ctx.server.as('outsider').GET('/v1/orgs/{organizationId}/members/{userId}', member('zoe')), 404);
    expectError(await ctx.server.as('anonymous').GET('/v1/orgs/{organizationId}/members/{userId}', member('zoe')), 401);
  });
});

describe('PATCH /v1/orgs/{organizationId}/members/{userId}', () => {
  const patch = (userId: string, role: unknown, as: 'admin' | 'creator' | 'outsider' | 'anonymous' = 'admin') =>
    ctx.server.as(as).PATCH('/v1/orgs/{organizationId}/members/{userId}', { ...member(userId), body: { role } as never });

  test('changes the role, which the member’s permissions then follow', async () => {
    expect(ok(await patch('commenter', 'create')).role).toBe('create');
    const [acme] = ok(await ctx.server.as('commenter').GET('/v1/orgs')).items;
    expect(acme!.permissions.createContent).toBe(true);
    expect(ok(await patch('commenter', null)).role).toBeNull();
    expect(ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/members/{userId}', member('commenter'))).role).toBeNull();
    ok(await patch('commenter', 'comment'));
  });

  test('rejects an unknown role with 400 naming it, and changes nothing', async () => {
    expectError(await patch('zoe', 'owner'), 400, 'role');
    expectError(await patch('zoe', undefined), 400, 'role');
    expect(ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/members/{userId}', member('zoe'))).role).toBe('edit');
  });

  test('refuses to leave the organization without an admin (409)', async () => {
    ok(await patch('second-admin', 'read'));
    expectError(await patch('admin', 'read'), 409, 'last admin');
    ok(await patch('second-admin', 'admin'));
  });

  test('answers 404 for a non-member, 403 below admin, 404 to another organization, 401 without a token', async () => {
    expectError(await patch('outsider', 'read'), 404);
    expectError(await patch('zoe', 'read', 'creator'), 403);
    expectError(await patch('zoe', 'read', 'outsider'), 404);
    expectError(await patch('zoe', 'read', 'anonymous'), 401);
  });
});

describe('DELETE /v1/orgs/{organizationId}/members/{userId}', () => {
  test('removes a member from the organization and its teams; they then see nothing of it; again is 204', async () => {
    const removed = await ctx.server.as('admin').DELETE('/v1/orgs/{organizationId}/members/{userId}', member('departing'));
    expect(removed.response.status).toBe(204);
    expectError(await ctx.server.as('departing').GET('/v1/orgs/{organizationId}', { params: { path: org } }), 404);
    expectError(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/members/{userId}', member('departing')), 404);
    const reviewers = ok(
      await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/members/{userId}/teams', member('zoe')),
    ).items.find((item) => item.team.id === 'reviewers')!;
    expect(reviewers.team.members).toBe(1);
    const again = await ctx.server.as('admin').DELETE('/v1/orgs/{organizationId}/members/{userId}', member('departing'));
    expect(again.response.status).toBe(204);
  });

  test('a member may leave; removing others needs admin (403)', async () => {
    expectError(await ctx.server.as('reader').DELETE('/v1/orgs/{organizationId}/members/{userId}', member('leaver')), 403);
    expect((await ctx.server.as('leaver').DELETE('/v1/orgs/{organizationId}/members/{userId}', member('leaver'))).response.status).toBe(204);
    expectError(await ctx.server.as('leaver').GET('/v1/orgs/{organizationId}', { params: { path: org } }), 404);
  });

  test('the last admin cannot be removed (409)', async () => {
    ok(await ctx.server.as('admin').PATCH('/v1/orgs/{organizationId}/members/{userId}', { ...member('second-admin'), body: { role: 'read' } }));
    expectError(await ctx.server.as('admin').DELETE('/v1/orgs/{organizationId}/members/{userId}', member('admin')), 409, 'last admin');
    expect(ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/members/{userId}', member('admin'))).role).toBe('admin');
    ok(await ctx.server.as('admin').PATCH('/v1/orgs/{organizationId}/members/{userId}', { ...member('second-admin'), body: { role: 'admin' } }));
  });

  test('answers 404 to another organization and 401 without a token', async () => {
    expectError(await ctx.server.as('outsider').DELETE('/v1/orgs/{organizationId}/members/{userId}', member('reader')), 404);
    expectError(await ctx.server.as('anonymous').DELETE('/v1/orgs/{organizationId}/members/{userId}', member('reader')), 401);
  });
});

describe('POST /v1/orgs/{organizationId}/ping', () => {
  test('updates the caller’s lastSeenAt and returns signed visitor claims', async () => {
    ctx.server.clock.advance(60_000);
    const { serviceVisitorClaims } = ok(await ctx.server.as('editor').POST('/v1/orgs/{organizationId}/ping', { params: { path: org } }));
    const [header, payload, signature] = serviceVisitorClaims!.split('.');
    expect(JSON.parse(Buffer.from(header!, 'base64url').toString())).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(JSON.parse(Buffer.from(payload!, 'base64url').toString())).toMatchObject({ sub: 'editor', org: ACME, role: 'edit' });
    expect(signature).toMatch(/^[\w-]{43}$/);
    const editor = ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/members/{userId}', member('editor')));
    expect(editor.lastSeenAt).toBe(ctx.server.clock.now().toISOString());
  });

  test('answers 404 to another organization and 401 without a token', async () => {
    expectError(await ctx.server.as('outsider').POST('/v1/orgs/{organizationId}/ping', { params: { path: org } }), 404);
    expectError(await ctx.server.as('anonymous').POST('/v1/orgs/{organizationId}/ping', { params: { path: org } }), 401);
  });
});

describe('POST /v1/orgs/{organizationId}/members/{userId}/sso', () => {
  test('makes the member an SSO member', async () => {
    expect(ok(await ctx.server.as('admin').POST('/v1/orgs/{organizationId}/members/{userId}/sso', member('reader'))).sso).toBe(true);
    expect(ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/members/{userId}', member('reader'))).sso).toBe(true);
  });

  test('needs admin (403), a member (404), membership (404) and a token (401)', async () => {
    expectError(await ctx.server.as('creator').POST('/v1/orgs/{organizationId}/members/{userId}/sso', member('editor')), 403);
    expectError(await ctx.server.as('admin').POST('/v1/orgs/{organizationId}/members/{userId}/sso', member('nobody')), 404);
    expectError(await ctx.server.as('outsider').POST('/v1/orgs/{organizationId}/members/{userId}/sso', member('editor')), 404);
    expectError(await ctx.server.as('anonymous').POST('/v1/orgs/{organizationId}/members/{userId}/sso', member('editor')), 401);
  });
});

describe('GET /v1/orgs/{organizationId}/members/{userId}/spaces', () => {
  const spaces = (userId: string, query: Record<string, unknown> = {}, as: 'admin' | 'reader' | 'guest' | 'outsider' | 'anonymous' = 'admin') =>
    ctx.server.as(as).GET('/v1/orgs/{organizationId}/members/{userId}/spaces', { params: { path: { ...org, userId }, query } });

  test('lists the spaces a member can access, with their permission, following default levels', async () => {
    const before = ok(await spaces('reader'));
    // Both were created at the same instant: newest first, then by id, descending.
    expect(before.items.map((item) => [item.space.id, item.permission])).toEqual([
      ['wiki', 'read'],
      ['playbook', 'read'],
    ]);
    ok(await ctx.server.as('admin').PATCH('/v1/spaces/{spaceId}', { params: { path: { spaceId: 'wiki' } }, body: { defaultLevel: 'edit' } }));
    const after = ok(await spaces('reader'));
    expect(after.items.find((item) => item.space.id === 'wiki')!.permission).toBe('edit');
    // The space is shown as that member sees it.
    expect(after.items.find((item) => item.space.id === 'wiki')!.space.permissions.edit).toBe(true);
    expect(ok(await spaces('guest')).items).toEqual([]);
    const member = ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/members/{userId}', { params: { path: { ...org, userId: 'reader' } } }));
    expect(member.spaces).toBe(2);
  });

  test('orders by creation, newest first by default, and pages', async () => {
    const newest = ok(await spaces('admin', { limit: 1 }));
    const oldest = ok(await spaces('admin', { limit: 1, order: 'asc' }));
    expect(newest.count).toBe(2);
    expect(newest.items[0]!.space.id).not.toBe(oldest.items[0]!.space.id);
    const next = ok(await spaces('admin', { limit: 1, page: newest.next!.page }));
    expect(next.items[0]!.space.id).toBe(oldest.items[0]!.space.id);
  });

  test('needs listMembers for others (403), membership (404) and a token (401)', async () => {
    expect(ok(await spaces('guest', {}, 'guest')).items).toEqual([]);
    expectError(await spaces('reader', {}, 'guest'), 403);
    expectError(await spaces('reader', {}, 'outsider'), 404);
    expectError(await spaces('reader', {}, 'anonymous'), 401);
    expectError(await spaces('nobody'), 404);
  });
});

describe('GET /v1/orgs/{organizationId}/members/{userId}/teams', () => {
  const teams = (userId: string, query: Record<string, unknown> = {}, as: 'admin' | 'guest' | 'outsider' | 'anonymous' = 'admin') =>
    ctx.server.as(as).GET('/v1/orgs/{organizationId}/members/{userId}/teams', { params: { path: { ...org, userId }, query } });

  test('lists the teams of a member with their role in each, filtered by title', async () => {
    const all = ok(await teams('zoe'));
    expect(all.items.map((item) => [item.team.id, item.member.role]).sort()).toEqual([
      ['reviewers', 'member'],
      ['writers', 'owner'],
    ]);
    expect(all.items.find((item) => item.team.id === 'writers')!.team).toMatchObject({ object: 'team', title: 'Writers', members: 1 });
    expect(ok(await teams('zoe', { title: 'WRIT' })).items.map((item) => item.team.id)).toEqual(['writers']);
    expect(ok(await teams('reader')).items).toEqual([]);
  });

  test('needs listTeams for others (403), membership (404) and a token (401)', async () => {
    expectError(await teams('zoe', {}, 'guest'), 403);
    expectError(await teams('zoe', {}, 'outsider'), 404);
    expectError(await teams('zoe', {}, 'anonymous'), 401);
    expectError(await teams('zoe', { title: '' }), 400, 'title');
  });
});
