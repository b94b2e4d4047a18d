import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { ACME, standardFixture } from '../support/fixture.ts';
import { expectError, ok } from '../support/expect.ts';
import { useTestServer } from '../support/server.ts';

const [acmeOrg, globexOrg] = standardFixture.organizations!;

const fixture = {
  ...standardFixture,
  users: [
    ...standardFixture.users!,
    { id: 'temp', displayName: 'Temp Worker', email: 'temp@acme.test', tokens: ['temp'] },
  ],
  organizations: [
    {
      ...acmeOrg!,
      members: [...acmeOrg!.members!, { user: 'temp', role: 'read' as const }],
      spaces: [
        { id: 'handbook', title: 'Handbook' },
        { id: 'style', title: 'Style guide' },
      ],
      teams: [
        {
          id: 'writers',
          title: 'Writers',
          members: [
            { user: 'editor', role: 'owner' as const },
            { user: 'reader', role: 'member' as const },
            { user: 'temp', role: 'member' as const },
          ],
          spaces: ['handbook', 'style'],
        },
        { id: 'designers', title: 'Équipe Design', members: [{ user: 'creator', role: 'owner' as const }] },
        { id: 'guests', title: 'Guest circle', members: [{ user: 'guest', role: 'member' as const }] },
      ],
    },
    globexOrg!,
  ],
};

const dataDir = mkdtempSync(path.join(tmpdir(), 'teams-test-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const ctx = useTestServer({ fixture, dataDir });
const acme = { params: { path: { organizationId: ACME } } };
const team = (teamId: string) => ({ params: { path: { organizationId: ACME, teamId } } });
const listQuery = (query: { owner?: string; title?: string; limit?: number; page?: string }) => ({
  params: { path: { organizationId: ACME }, query },
});

async function createTeam(title: string, members?: string[], as: 'admin' | 'creator' = 'admin') {
  return ok(
    await ctx.server.as(as).PUT('/v1/orgs/{organizationId}/teams', { ...acme, body: { title, ...(members ? { members } : {}) } }),
    201,
  );
}

async function teamTitles(query: Parameters<typeof listQuery>[0] = {}) {
  const list = ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/teams', listQuery(query)));
  return list.items.map((item) => item.title);
}

describe('GET /v1/orgs/{organizationId}/teams', () => {
  test('lists the teams of the organization with their true member and space counts', async () => {
    const list = ok(await ctx.server.as('reader').GET('/v1/orgs/{organizationId}/teams', acme));
    const writers = list.items.find((item) => item.id === 'writers');
    expect(writers).toMatchObject({ object: 'team', title: 'Writers', members: 3, spaces: 2 });
    expect(writers!.permissions).toEqual({ admin: false, view: true });
    expect(list.count).toBe(list.items.length);
  });

  test('each listed team is what reading it alone gives, for each caller: its own counts, the permissions of its role', async () => {
    // The list reads the teams' counts and the caller's roles for the whole page at once.
    for (const who of ['editor', 'creator', 'reader', 'admin'] as const) {
      const list = ok(await ctx.server.as(who).GET('/v1/orgs/{organizationId}/teams', listQuery({ limit: 1000 })));
      for (const item of list.items) {
        expect(item, `${who} ${item.id}`).toEqual(ok(await ctx.server.as(who).GET('/v1/orgs/{organizationId}/teams/{teamId}', team(item.id))));
      }
      const designers = list.items.find((item) => item.id === 'designers')!;
      expect(designers).toMatchObject({ members: 1, spaces: 0 });
      // The owner of one team administers it, not the others.
      if (who === 'creator') expect(designers.permissions.admin).toBe(true);
      if (who === 'editor') {
        expect(list.items.find((item) => item.id === 'writers')!.permissions.admin).toBe(true);
        expect(designers.permissions.admin).toBe(false);
      }
    }
  });

  test('counts follow the members and spaces that come and go', async () => {
    const before = ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/teams/{teamId}', team('writers')));
    const removed = await ctx.server.as('admin').DELETE('/v1/orgs/{organizationId}/members/{userId}', {
      params: { path: { organizationId: ACME, userId: 'temp' } },
    });
    expect(removed.response.status).toBe(204);
    const deleted = await ctx.server.as('admin').DELETE('/v1/spaces/{spaceId}', { params: { path: { spaceId: 'style' } } });
    expect(deleted.response.status).toBe(204);
    const after = ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/teams/{teamId}', team('writers')));
    expect({ members: after.members, spaces: after.spaces }).toEqual({
      members: before.members - 1,
      spaces: before.spaces - 1,
    });

    ok(await ctx.server.as('admin').POST('/v1/spaces/{spaceId}/restore', { params: { path: { spaceId: 'style' } } }));
    expect(ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/teams/{teamId}', team('writers'))).spaces).toBe(
      before.spaces,
    );
  });

  test('owner lists only the teams that member manages: the ones they own, every team for an admin', async () => {
    expect(await teamTitles({ owner: 'editor' })).toEqual(['Writers']);
    expect(await teamTitles({ owner: 'creator' })).toEqual(['Équipe Design']);
    expect(await teamTitles({ owner: 'reader' })).toEqual([]);
    expect((await teamTitles({ owner: 'admin' })).length).toBe((await teamTitles()).length);
  });

  test('title filters by a case-insensitive substring, also beyond ASCII', async () => {
    expect(await teamTitles({ title: 'WRIT' })).toEqual(['Writers']);
    expect(await teamTitles({ title: 'éQUIPE' })).toEqual(['Équipe Design']);
    expect(await teamTitles({ title: '%' })).toEqual([]);
    expect(await teamTitles({ title: '_' })).toEqual([]);
    expect(await teamTitles({ title: 'W_iters' })).toEqual([]);
    expect(await teamTitles({ title: 'RITE' })).toEqual(['Writers']);
    expect(await teamTitles({ title: 'design', owner: 'editor' })).toEqual([]);
  });

  test('title takes %, _ and \\ as themselves, in the organization’s teams and in a member’s', async () => {
    const created = await Promise.all(['100% Done', 'snake_case', 'C:\\docs'].map((title) => createTeam(title, ['reader'])));
    const memberTitles = async (title: string) =>
      ok(
        await ctx.server.as('reader').GET('/v1/orgs/{organizationId}/members/{userId}/teams', {
          params: { path: { organizationId: ACME, userId: 'reader' }, query: { title } },
        }),
      ).items.map((item) => item.team.title);
    for (const [text, title] of [['%', '100% Done'], ['_', 'snake_case'], ['\\', 'C:\\docs'], ['0% d', '100% Done']] as const) {
      expect(await teamTitles({ title: text }), text).toEqual([title]);
      expect(await memberTitles(text), text).toEqual([title]);
    }
    for (const each of created) ok(await ctx.server.as('admin').DELETE('/v1/orgs/{organizationId}/teams/{teamId}', team(each.id)), 204);
  });

  test('pages through the teams with a cursor bound to the filters', async () => {
    const all = ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/teams', acme));
    const first = ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/teams', listQuery({ limit: 1 })));
    expect(first.items).toHaveLength(1);
    expect(first.count).toBe(all.count);
    const second = ok(
      await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/teams', listQuery({ limit: 1, page: first.next!.page })),
    );
    expect(second.items[0]!.id).toBe(all.items[1]!.id);
    expectError(
      await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/teams', listQuery({ title: 'x', page: first.next!.page })),
      400,
      'page',
    );
  });

  test('a member’s teams page one by one through a cursor, each once, in the order of the whole list', async () => {
    const created = await Promise.all(['Paged one', 'Paged two'].map((title) => createTeam(title, ['reader'])));
    const memberTeams = async (query: { limit?: number; page?: string; title?: string }) =>
      ok(
        await ctx.server.as('reader').GET('/v1/orgs/{organizationId}/members/{userId}/teams', {
          params: { path: { organizationId: ACME, userId: 'reader' }, query },
        }),
      );
    const whole = await memberTeams({});
    expect(whole.items.length).toBeGreaterThanOrEqual(3);
    const paged: string[] = [];
    for (let page: string | undefined, turns = 0; turns === 0 || page !== undefined; turns++) {
      const answer = await memberTeams({ limit: 1, ...(page === undefined ? {} : { page }) });
      expect(answer.items).toHaveLength(1);
      expect(answer.count).toBe(whole.count);
      paged.push(answer.items[0]!.team.id);
      page = answer.next?.page;
    }
    expect(paged).toEqual(whole.items.map((item) => item.team.id));
    expect((await memberTeams({ title: 'paged' })).count).toBe(2);
    for (const each of created) ok(await ctx.server.as('admin').DELETE('/v1/orgs/{organizationId}/teams/{teamId}', team(each.id)), 204);
  });

  test('rejects an owner who is not a member, and bad paging, with 400', async () => {
    expectError(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/teams', listQuery({ owner: 'outsider' })), 400, 'owner');
    expectError(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/teams', listQuery({ limit: 0 })), 400, 'limit');
    expectError(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/teams', listQuery({ title: '' })), 400, 'title');
  });

  test('is refused to guests (403), other organizations and unknown ones (404), and without a token (401)', async () => {
    expectError(await ctx.server.as('guest').GET('/v1/orgs/{organizationId}/teams', acme), 403);
    expectError(await ctx.server.as('outsider').GET('/v1/orgs/{organizationId}/teams', acme), 404);
    expectError(
      await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/teams', { params: { path: { organizationId: 'nope' } } }),
      404,
    );
    expectError(await ctx.server.as('anonymous').GET('/v1/orgs/{organizationId}/teams', acme), 401);
  });
});

describe('PUT /v1/orgs/{organizationId}/teams', () => {
  test('creates a team whose creator is an owner, with the given members, and reads it back', async () => {
    const created = await createTeam('Support', ['reader', 'editor', 'reader'], 'creator');
    expect(created).toMatchObject({ object: 'team', title: 'Support', members: 3, spaces: 0 });
    expect(created.permissions).toEqual({ admin: true, view: true });
    expect(ok(await ctx.server.as('creator').GET('/v1/orgs/{organizationId}/teams/{teamId}', team(created.id)))).toEqual(
      created,
    );
    const memberTeams = ok(
      await ctx.server.as('creator').GET('/v1/orgs/{organizationId}/members/{userId}/teams', {
        params: { path: { organizationId: ACME, userId: 'creator' }, query: { title: 'support' } },
      }),
    );
    expect(memberTeams.items.map((item) => [item.team.id, item.member.role])).toEqual([[created.id, 'owner']]);
    const readerTeams = ok(
      await ctx.server.as('reader').GET('/v1/orgs/{organizationId}/members/{userId}/teams', {
        params: { path: { organizationId: ACME, userId: 'reader' }, query: { title: 'support' } },
      }),
    );
    expect(readerTeams.items.map((item) => item.member.role)).toEqual(['member']);
  });

  test('the creator listed among the members stays the owner', async () => {
    const created = await createTeam('Solo', ['admin']);
    expect(created.members).toBe(1);
    expect(await teamTitles({ owner: 'editor', title: 'Solo' })).toEqual([]);
  });

  test('rejects members outside the organization and bad titles with 400, and creates nothing', async () => {
    const before = ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/teams', acme)).count;
    expectError(
      await ctx.server.as('admin').PUT('/v1/orgs/{organizationId}/teams', { ...acme, body: { title: 'X', members: ['reader', 'outsider'] } }),
      400,
      'members',
      'outsider',
    );
    expectError(
      await ctx.server.as('admin').PUT('/v1/orgs/{organizationId}/teams', { ...acme, body: { title: 'X', members: ['nobody'] } }),
      400,
      'members',
    );
    expectError(await ctx.server.as('admin').PUT('/v1/orgs/{organizationId}/teams', { ...acme, body: { title: '' } }), 400, 'title');
    expectError(
      await ctx.server.as('admin').PUT('/v1/orgs/{organizationId}/teams', { ...acme, body: { members: [] } as never }),
      400,
      'title',
    );
    expectError(
      await ctx.server.as('admin').PUT('/v1/orgs/{organizationId}/teams', { ...acme, body: { title: 'X', spaces: 1 } as never }),
      400,
      'spaces',
    );
    expect(ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/teams', acme)).count).toBe(before);
  });

  test('needs the ownTeam permission (403), membership (404) and a token (401)', async () => {
    const body = { title: 'Nope' };
    expectError(await ctx.server.as('editor').PUT('/v1/orgs/{organizationId}/teams', { ...acme, body }), 403, 'ownTeam');
    expectError(await ctx.server.as('outsider').PUT('/v1/orgs/{organizationId}/teams', { ...acme, body }), 404);
    expectError(await ctx.server.as('anonymous').PUT('/v1/orgs/{organizationId}/teams', { ...acme, body }), 401);
    expect(await teamTitles({ title: 'Nope' })).toEqual([]);
  });
});

describe('GET /v1/orgs/{organizationId}/teams/{teamId}', () => {
  test('returns the team with the caller’s permissions', async () => {
    const asOwner = ok(await ctx.server.as('editor').GET('/v1/orgs/{organizationId}/teams/{teamId}', team('writers')));
    expect(asOwner).toMatchObject({ id: 'writers', title: 'Writers', permissions: { admin: true, view: true } });
    const asAdmin = ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/teams/{teamId}', team('writers')));
    expect(asAdmin.permissions.admin).toBe(true);
  });

  test('a guest views the teams they belong to, and no other (403)', async () => {
    const own = ok(await ctx.server.as('guest').GET('/v1/orgs/{organizationId}/teams/{teamId}', team('guests')));
    expect(own.permissions).toEqual({ admin: false, view: true });
    expectError(await ctx.server.as('guest').GET('/v1/orgs/{organizationId}/teams/{teamId}', team('writers')), 403, 'view');
  });

  test('answers 404 for an unknown team and to other organizations, 401 without a token', async () => {
    expectError(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/teams/{teamId}', team('nope')), 404);
    expectError(await ctx.server.as('outsider').GET('/v1/orgs/{organizationId}/teams/{teamId}', team('writers')), 404);
    expectError(await ctx.server.as('anonymous').GET('/v1/orgs/{organizationId}/teams/{teamId}', team('writers')), 401);
  });
});

describe('PATCH /v1/orgs/{organizationId}/teams/{teamId}', () => {
  test('a team owner renames the team, and it reads back renamed', async () => {
    const writers = ok(
      await ctx.server.as('editor').PATCH('/v1/orgs/{organizationId}/teams/{teamId}', { ...team('writers'), body: { title: 'Authors' } }),
    );
    expect(writers).toMatchObject({ id: 'writers', title: 'Authors', members: expect.any(Number) });
    expect(ok(await ctx.server.as('reader').GET('/v1/orgs/{organizationId}/teams/{teamId}', team('writers'))).title).toBe('Authors');
    ok(await ctx.server.as('admin').PATCH('/v1/orgs/{organizationId}/teams/{teamId}', { ...team('writers'), body: { title: 'Writers' } }));
  });

  test('a renamed team is found by its new title in any case, and no longer by its old one', async () => {
    const created = await createTeam('Night Shift');
    ok(await ctx.server.as('admin').PATCH('/v1/orgs/{organizationId}/teams/{teamId}', { ...team(created.id), body: { title: 'Über Crew' } }));
    expect(await teamTitles({ title: 'über' })).toEqual(['Über Crew']);
    expect(await teamTitles({ title: 'ÜBER CREW' })).toEqual(['Über Crew']);
    expect(await teamTitles({ title: 'night' })).toEqual([]);
    ok(await ctx.server.as('admin').DELETE('/v1/orgs/{organizationId}/teams/{teamId}', team(created.id)), 204);
  });

  test('rejects a bad title with 400, and changes nothing', async () => {
    expectError(
      await ctx.server.as('admin').PATCH('/v1/orgs/{organizationId}/teams/{teamId}', { ...team('writers'), body: { title: '' } }),
      400,
      'title',
    );
    expectError(
      await ctx.server.as('admin').PATCH('/v1/orgs/{organizationId}/teams/{teamId}', {
        ...team('writers'),
        body: { title: 'x'.repeat(256) },
      }),
      400,
      'title',
    );
    expectError(
      await ctx.server.as('admin').PATCH('/v1/orgs/{organizationId}/teams/{teamId}', { ...team('writers'), body: {} as never }),
      400,
      'title',
    );
    expect(ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/teams/{teamId}', team('writers'))).title).toBe('Writers');
  });

  test('needs the team’s admin permission (403), a known team (404), membership (404) and a token (401)', async () => {
    const body = { title: 'Hijacked' };
    expectError(await ctx.server.as('reader').PATCH('/v1/orgs/{organizationId}/teams/{teamId}', { ...team('writers'), body }), 403, 'admin');
    expectError(await ctx.server.as('creator').PATCH('/v1/orgs/{organizationId}/teams/{teamId}', { ...team('writers'), body }), 403);
    expectError(await ctx.server.as('admin').PATCH('/v1/orgs/{organizationId}/teams/{teamId}', { ...team('nope'), body }), 404);
    expectError(await ctx.server.as('outsider').PATCH('/v1/orgs/{organizationId}/teams/{teamId}', { ...team('writers'), body }), 404);
    expectError(await ctx.server.as('anonymous').PATCH('/v1/orgs/{organizationId}/teams/{teamId}', { ...team('writers'), body }), 401);
    expect(ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/teams/{teamId}', team('writers'))).title).toBe('Writers');
  });
});

describe('DELETE /v1/orgs/{organizationId}/teams/{teamId}', () => {
  test('an owner deletes the team: it is gone, and deleting it again answers 204', async () => {
    const created = await createTeam('Short-lived', ['reader'], 'creator');
    const first = await ctx.server.as('creator').DELETE('/v1/orgs/{organizationId}/teams/{teamId}', team(created.id));
    expect(first.response.status).toBe(204);
    expectError(await ctx.server.as('creator').GET('/v1/orgs/{organizationId}/teams/{teamId}', team(created.id)), 404);
    expect(await teamTitles({ title: 'Short-lived' })).toEqual([]);
    const readerTeams = ok(
      await ctx.server.as('reader').GET('/v1/orgs/{organizationId}/members/{userId}/teams', {
        params: { path: { organizationId: ACME, userId: 'reader' }, query: { title: 'Short-lived' } },
      }),
    );
    expect(readerTeams.count).toBe(0);
    const again = await ctx.server.as('creator').DELETE('/v1/orgs/{organizationId}/teams/{teamId}', team(created.id));
    expect(again.response.status).toBe(204);
  });

  test('needs the team’s admin permission (403), membership (404) and a token (401)', async () => {
    expectError(await ctx.server.as('reader').DELETE('/v1/orgs/{organizationId}/teams/{teamId}', team('writers')), 403, 'admin');
    expectError(await ctx.server.as('outsider').DELETE('/v1/orgs/{organizationId}/teams/{teamId}', team('writers')), 404);
    expectError(await ctx.server.as('outsider').DELETE('/v1/orgs/{organizationId}/teams/{teamId}', team('nope')), 404);
    expectError(await ctx.server.as('anonymous').DELETE('/v1/orgs/{organizationId}/teams/{teamId}', team('writers')), 401);
    ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/teams/{teamId}', team('writers')));
  });
});

describe('persistence', () => {
  test('teams and their members survive a restart', async () => {
    const created = await createTeam('Durable', ['reader']);
    await ctx.server.restart();
    expect(ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/teams/{teamId}', team(created.id)))).toEqual(created);
  });
});
