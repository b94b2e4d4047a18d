// The counters of a Space (open comments, change requests, open and draft ones) are kept by triggers
// (migration 100_space_counters) instead of counted on every read. After every kind of write that moves them, the
// space as GET and as a list item shows exactly what counting the rows gives, and the migration's backfill of an
// existing database gives the same.
import { describe, expect, test } from 'vitest';
import { readMigrations, SqliteStore } from '../../server/store/sqlite/store.ts';
import { ACME, extendFixture } from '../support/fixture.ts';
import { ok } from '../support/expect.ts';
import { useTestServer } from '../support/server.ts';
import { type RawBuilder, sql } from 'kysely';
import { testEngine } from '../support/databases.ts';

const fixture = extendFixture({
  acme: { spaces: [{ id: 'talk', title: 'Talk', pages: [{ id: 'talk-intro', title: 'Intro', markdown: 'Hello.\n' }] }] },
});
const ctx = useTestServer({ fixture });
const space = (spaceId: string) => ({ params: { path: { spaceId } } });
const admin = () => ctx.server.as('admin');

/** The counters by their definition: counting the rows. */
async function counted(spaceId: string) {
  const db = ctx.server.running.ctx.store.reader;
  const one = async (query: RawBuilder<{ n: number }>) => Number((await db.first(query))!.n);
  return {
    comments: await one(sql`SELECT COUNT(*) AS n FROM comments
      WHERE space_id = ${spaceId} AND change_request_id IS NULL AND parent_id IS NULL AND status = 'open'`),
    changeRequests: await one(sql`SELECT COUNT(*) AS n FROM change_requests WHERE space_id = ${spaceId}`),
    changeRequestsOpen: await one(sql`SELECT COUNT(*) AS n FROM change_requests WHERE space_id = ${spaceId} AND status = 'open'`),
    changeRequestsDraft: await one(sql`SELECT COUNT(*) AS n FROM change_requests WHERE space_id = ${spaceId} AND status = 'draft'`),
  };
}

/** What the API shows of the space's counters, by GET and in the organization's list, after checking both agree with counting. */
async function shown(spaceId: string) {
  const got = ok(await admin().GET('/v1/spaces/{spaceId}', space(spaceId)), 200);
  const listed = ok(await admin().GET('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId: ACME }, query: { limit: 100 } } }), 200);
  const item = listed.items.find((entry) => entry.id === spaceId)!;
  const pick = (s: typeof got) => ({ comments: s.comments, changeRequests: s.changeRequests, changeRequestsOpen: s.changeRequestsOpen, changeRequestsDraft: s.changeRequestsDraft });
  expect(pick(got)).toEqual(await counted(spaceId));
  expect(pick(item)).toEqual(await counted(spaceId));
  return pick(got);
}

describe('space counters', () => {
  test('follow comments and change requests through every write that moves them', async () => {
    const talk = space('talk');
    expect(await shown('talk')).toEqual({ comments: 0, changeRequests: 0, changeRequestsOpen: 0, changeRequestsDraft: 0 });

    const comment = async (markdown: string) =>
      ok(await admin().POST('/v1/spaces/{spaceId}/comments', { ...talk, body: { page: 'talk-intro', body: { markdown } } }), 201);
    const [first, second, third] = [await comment('One?'), await comment('Two?'), await comment('Three?')];
    expect((await shown('talk')).comments).toBe(3);

    // A reply is no thread of its own.
    ok(await admin().POST('/v1/spaces/{spaceId}/comments/{commentId}/replies', { params: { path: { spaceId: 'talk', commentId: first.id } }, body: { body: { markdown: 'Yes.' } } }), 201);
    expect((await shown('talk')).comments).toBe(3);

    const commentPath = (commentId: string) => ({ params: { path: { spaceId: 'talk', commentId } } });
    ok(await admin().PUT('/v1/spaces/{spaceId}/comments/{commentId}', { ...commentPath(second.id), body: { resolved: true } }), 200);
    expect((await shown('talk')).comments).toBe(2);
    ok(await admin().PUT('/v1/spaces/{spaceId}/comments/{commentId}', { ...commentPath(second.id), body: { resolved: false } }), 200);
    expect((await shown('talk')).comments).toBe(3);
    expect((await admin().DELETE('/v1/spaces/{spaceId}/comments/{commentId}', commentPath(third.id))).response.status).toBe(204);
    expect((await shown('talk')).comments).toBe(2);

    const request = async (subject: string) => ok(await admin().POST('/v1/spaces/{spaceId}/change-requests', { ...talk, body: { subject } }), 201);
    const [a, b] = [await request('A'), await request('B')];
    const opened = await shown('talk');
    expect(opened.changeRequests).toBe(2);
    const crPath = (changeRequestId: string) => ({ params: { path: { spaceId: 'talk', changeRequestId } } });
    // A comment on a change request is not one of the space's.
    ok(await admin().POST('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/comments', { ...crPath(a.id), body: { body: { markdown: 'Here?' } } }), 201);
    expect((await shown('talk')).comments).toBe(2);

    ok(await admin().PATCH('/v1/spaces/{spaceId}/change-requests/{changeRequestId}', { ...crPath(b.id), body: { status: 'draft' } }), 200);
    expect(await shown('talk')).toMatchObject({ changeRequests: 2, changeRequestsDraft: opened.changeRequestsDraft + (b.status === 'draft' ? 0 : 1) });
    ok(await admin().PATCH('/v1/spaces/{spaceId}/change-requests/{changeRequestId}', { ...crPath(b.id), body: { status: 'archived' } }), 200);
    expect(await shown('talk')).toMatchObject({ changeRequests: 2, changeRequestsDraft: 0 });
    ok(await admin().PATCH('/v1/spaces/{spaceId}/change-requests/{changeRequestId}', { ...crPath(a.id), body: { status: 'open' } }), 200);
    expect(await shown('talk')).toMatchObject({ changeRequests: 2, changeRequestsOpen: 1 });
    ok(await admin().POST('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/merge', crPath(a.id)), 200);
    expect(await shown('talk')).toEqual({ comments: 2, changeRequests: 2, changeRequestsOpen: 0, changeRequestsDraft: 0 });
  });

  test.skipIf(testEngine() !== 'sqlite')("the SQLite migration's backfill of an existing database counts what is there", async () => {
    const db = (ctx.server.running.ctx.store as SqliteStore).connection;
    const before = await shown('talk');
    const migration = readMigrations().find((entry) => entry.name === '100_space_counters.sql')!;
    const triggers = (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'space_counters_%'`).all() as { name: string }[]).map((row) => row.name);
    expect(triggers.length).toBe(7);
    db.transaction(() => {
      for (const name of triggers) db.exec(`DROP TRIGGER ${name}`);
      db.exec('DROP TABLE space_counters');
      db.exec(migration.sql);
    })();
    expect(await shown('talk')).toEqual(before);
  });
});
