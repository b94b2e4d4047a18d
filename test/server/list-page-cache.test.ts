// List pages kept until the database next changes (server/http/list-page-cache.ts): a page read again by the same user at
// the same address, while nothing was written, is sent from memory, and is exactly the page made anew. Every test
// server verifies this on every page it sends from memory (`verifyListPageCache`, on in test/support/server.ts); these
// tests check when a page is kept, when it is dropped, and that the verification itself catches a wrong page.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { listPageCacheIn } from '../../server/start/app.ts';
import { ListPageCache, type ListAnswer } from '../../server/http/list-page-cache.ts';
import { immutableBodyChecks } from '../../server/http/immutable-bodies.ts';
import { CONTINUE_AFTER } from '../../server/common/paging.ts';
import { ENTRY_OVERHEAD } from '../../server/common/recently-used.ts';
import { SqliteStore } from '../../server/store/sqlite/store.ts';
import type { HandlerTable } from '../../server/handlers/types.ts';
import { ok } from '../support/expect.ts';
import { ACME, extendFixture } from '../support/fixture.ts';
import { createTestDatabase, postgresRuns, type TestDatabase } from '../support/databases.ts';
import { startTestServer, type TestServer, useTestServer } from '../support/server.ts';
import { repoRoot } from '../support/repo.ts';

const fixture = extendFixture({
  acme: {
    spaces: [
      { id: 'kept-one', title: 'Kept one' },
      { id: 'kept-two', title: 'Kept two' },
    ],
  },
});

const SPACES = `/v1/orgs/${ACME}/spaces`;

/** The kept pages' counts of a test server. */
const countsOf = (server: TestServer) => ({ ...listPageCacheIn(server.running.ctx)!.counts });

/** A GET as sent over the wire: its status and exact body. */
async function read(server: TestServer, path: string, token = 'admin'): Promise<{ status: number; text: string }> {
  const response = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, text: await response.text() };
}

const titles = (text: string) => (JSON.parse(text) as { items: { title: string }[] }).items.map((space) => space.title);

describe('a list page read again while nothing changed', () => {
  const ctx = useTestServer({ fixture });

  test('is sent from memory, byte for byte what it was, and checked against the contract once', async () => {
    const first = await read(ctx.server, `${SPACES}?limit=1`);
    const before = countsOf(ctx.server);
    const checks = immutableBodyChecks();
    const again = await read(ctx.server, `${SPACES}?limit=1`);
    const third = await read(ctx.server, `${SPACES}?limit=1`);
    expect(again).toEqual(first);
    expect(third).toEqual(first);
    const after = countsOf(ctx.server);
    expect(after.served - before.served).toBe(2);
    // Verified: made again each time, and the same.
    expect(after.verified - before.verified).toBe(2);
    // The response check ran on the kept body once, then remembered it.
    expect(immutableBodyChecks().checked - checks.checked).toBe(1);
    expect(immutableBodyChecks().remembered - checks.remembered).toBe(1);
    // The next page, through the cursor, is its own page.
    const next = (JSON.parse(first.text) as { next: { page: string } }).next.page;
    const second = await read(ctx.server, `${SPACES}?limit=1&page=${encodeURIComponent(next)}`);
    expect(titles(second.text)).not.toEqual(titles(first.text));
  });

  test('is kept per user: each user gets the page made for them', async () => {
    const admin = await read(ctx.server, SPACES, 'admin');
    const reader = await read(ctx.server, SPACES, 'reader');
    expect(reader.text).not.toBe(admin.text);
    const before = countsOf(ctx.server);
    expect(await read(ctx.server, SPACES, 'reader')).toEqual(reader);
    expect(await read(ctx.server, SPACES, 'admin')).toEqual(admin);
    expect(countsOf(ctx.server).served - before.served).toBe(2);
    // Each page as its user's typed client reads it, with their permissions.
    const readerPage = ok(await ctx.server.as('reader').GET('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId: ACME } } }));
    expect(readerPage.items.every((space) => space.permissions.admin === false)).toBe(true);
  });

  test('is made anew after any write: through the API, straight into the database, or one rolled back', async () => {
    await read(ctx.server, SPACES);
    await ctx.server.as('admin').PATCH('/v1/spaces/{spaceId}', { params: { path: { spaceId: 'kept-one' } }, body: { title: 'Renamed' } });
    expect(titles((await read(ctx.server, SPACES)).text)).toContain('Renamed');

    await read(ctx.server, SPACES);
    const db = (ctx.server.running.ctx.store as SqliteStore).connection;
    db.prepare('UPDATE spaces SET title = ? WHERE id = ?').run('Written in SQL', 'kept-one');
    expect(titles((await read(ctx.server, SPACES)).text)).toContain('Written in SQL');

    // A page made while a write transaction is open shows changes that may be rolled back: it is not kept.
    db.exec('BEGIN');
    db.prepare('UPDATE spaces SET title = ? WHERE id = ?').run('Never committed', 'kept-one');
    const during = await read(ctx.server, SPACES);
    db.exec('ROLLBACK');
    expect(titles(during.text)).toContain('Never committed');
    const before = countsOf(ctx.server);
    const after = await read(ctx.server, SPACES);
    expect(titles(after.text)).toContain('Written in SQL');
    expect(titles(after.text)).not.toContain('Never committed');
    expect(countsOf(ctx.server).served).toBe(before.served);
  });

  test('a page kept before a write transaction opened is still sent while it has changed nothing', async () => {
    const page = await read(ctx.server, SPACES);
    const db = (ctx.server.running.ctx.store as SqliteStore).connection;
    const before = countsOf(ctx.server);
    db.exec('BEGIN');
    try {
      expect(await read(ctx.server, SPACES)).toEqual(page);
    } finally {
      db.exec('ROLLBACK');
    }
    expect(countsOf(ctx.server).served - before.served).toBe(1);
  });
});

describe.runIf(postgresRuns())('on PostgreSQL, with two instances on one database', () => {
  let database: TestDatabase;
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    database = await createTestDatabase();
    // Both on the database made here (DATABASE_URL), not on one of their own each.
    const options = { fixture, engine: 'sqlite' as const, env: { DATABASE_URL: database.url } };
    a = await startTestServer(options);
    b = await startTestServer(options);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await database?.drop();
  });

  test('a page is kept by each instance, and made anew on each after a write through either', async () => {
    const first = await read(a, SPACES);
    const before = countsOf(a);
    expect(await read(a, SPACES)).toEqual(first);
    expect(countsOf(a).served - before.served).toBe(1);

    // Written through the other instance: the count in the database moved before the write was answered.
    ok(await b.as('admin').PATCH('/v1/spaces/{spaceId}', { params: { path: { spaceId: 'kept-two' } }, body: { title: 'Renamed by B' } }));
    const served = countsOf(a).served;
    expect(titles((await read(a, SPACES)).text)).toContain('Renamed by B');
    expect(countsOf(a).served).toBe(served);
    // And kept again from there, on both.
    expect(titles((await read(a, SPACES)).text)).toContain('Renamed by B');
    expect(countsOf(a).served).toBe(served + 1);
    await read(b, SPACES);
    expect(titles((await read(b, SPACES)).text)).toContain('Renamed by B');

    // Written through this instance: made anew too.
    ok(await a.as('admin').PATCH('/v1/spaces/{spaceId}', { params: { path: { spaceId: 'kept-two' } }, body: { title: 'Renamed by A' } }));
    expect(titles((await read(b, SPACES)).text)).toContain('Renamed by A');
  });
});

describe('pages whose making may depend on more than the database', () => {
  // A list that reads the clock.
  const ctx = useTestServer({
    fixture,
    handlers: (app, table): HandlerTable => ({
      ...table,
      listSpaces: (request, scope) => {
        app.clock.now();
        return table.listSpaces(request, scope);
      },
    }),
  });

  test('are made anew on every read', async () => {
    const before = countsOf(ctx.server);
    for (let round = 0; round < 3; round++) {
      expect((await read(ctx.server, SPACES)).status).toBe(200);
    }
    const after = countsOf(ctx.server);
    expect(after.kept).toBe(before.kept);
    expect(after.served).toBe(before.served);
    // Other lists are kept as usual.
    await read(ctx.server, `/v1/orgs/${ACME}/members`);
    await read(ctx.server, `/v1/orgs/${ACME}/members`);
    expect(countsOf(ctx.server).served).toBe(after.served + 1);
  });
});

describe('the verification of kept pages', () => {
  // A handler that breaks the rule: its answer changes with something that is neither the database nor the clock.
  let calls = 0;
  const ctx = useTestServer({
    fixture,
    handlers: (_app, table): HandlerTable => ({
      ...table,
      listSpaces: async (request, scope) => {
        const answer = (await table.listSpaces(request, scope)) as { status: 200; body: { items: { title: string }[] } };
        calls++;
        const items = answer.body.items.map((space) => ({ ...space, title: `Call ${calls}` }));
        return { ...answer, body: { ...answer.body, items } } as Awaited<ReturnType<HandlerTable['listSpaces']>>;
      },
    }),
    // The failure it logs is the one expected.
    log: pino({ level: 'silent' }),
  });

  test('fails the request when a page sent from memory is not the page made anew', async () => {
    expect((await read(ctx.server, SPACES)).status).toBe(200);
    expect((await read(ctx.server, SPACES)).status).toBe(500);
  });
});

describe('LIST_CACHE_MB=0', () => {
  const ctx = useTestServer({ fixture, env: { LIST_CACHE_MB: '0' } });

  test('keeps no page', async () => {
    const first = await read(ctx.server, SPACES);
    expect(await read(ctx.server, SPACES)).toEqual(first);
    expect(countsOf(ctx.server)).toEqual({ kept: 0, served: 0, verified: 0 });
  });
});

describe('ListPageCache', () => {
  /** A store of kept pages over a database and a clock that the test moves by hand. */
  function setUp(bytes: number) {
    const state = { changes: 0, clockReads: 0, inTransaction: false };
    const kept = new ListPageCache({
      changes: () => state.changes,
      clockReads: () => state.clockReads,
      inTransaction: () => state.inTransaction,
      bytes,
    });
    // As app.ts does: the count read once for a request, then its moment, the page's making, the moment after.
    const now = () => kept.moment(state.changes);
    const after = (before: ReturnType<typeof now>) => kept.momentAfter(before) as ReturnType<typeof now>;
    const find = (key: string) => kept.find(key, state.changes);
    return { state, kept, now, after, find };
  }
  const page = (text: string): ListAnswer => ({
    status: 200,
    headers: {},
    body: { items: [text], count: 1, [CONTINUE_AFTER]: () => ({ page: 'x' }) },
  });

  test('keeps a page only when neither the database nor the clock moved while it was made, outside a transaction', () => {
    const { state, kept, now, after, find } = setUp(1024);
    let before = now();
    kept.keep('a', before, after(before), page('a'));
    expect(find('a')?.body).toEqual({ items: ['a'], count: 1 });

    before = now();
    state.changes++;
    kept.keep('b', before, after(before), page('b'));
    expect(find('b')).toBeUndefined();

    before = now();
    state.clockReads++;
    kept.keep('c', before, after(before), page('c'));
    expect(find('c')).toBeUndefined();

    state.inTransaction = true;
    expect(now()).toBeUndefined();
    kept.keep('d', now(), after(now()), page('d'));
    state.inTransaction = false;
    expect(find('d')).toBeUndefined();
  });

  test('a change drops every page kept', () => {
    const { state, kept, now, after, find } = setUp(1024);
    kept.keep('a', now(), after(now()), page('a'));
    kept.keep('b', now(), after(now()), page('b'));
    state.changes++;
    expect(find('a')).toBeUndefined();
    state.changes--; // the count never goes back, but if it did, nothing would come back either
    expect(find('b')).toBeUndefined();
  });

  test('a page made before a change that another request has seen is not kept, and drops nothing', () => {
    const { state, kept, now, after, find } = setUp(1024);
    const early = now();
    state.changes++;
    kept.keep('new', now(), after(now()), page('new'));
    // Where the count moves only on commits (PostgreSQL), the early page is kept under its own count unless it is
    // older than what another request saw.
    const committed = new ListPageCache({ changes: () => state.changes, committedOnly: true, clockReads: () => 0, inTransaction: () => false, bytes: 1024 });
    committed.keep('new', committed.moment(state.changes), committed.moment(state.changes), page('new'));
    committed.keep('old', early, committed.momentAfter(early) as typeof early, page('old'));
    expect(committed.find('new', state.changes)).toBeDefined();
    expect(committed.find('old', state.changes)).toBeUndefined();
    expect(committed.find('new', state.changes - 1)).toBeUndefined();
    expect(committed.find('new', state.changes)).toBeDefined();
    expect(find('new')).toBeDefined();
  });

  test('keeps at most its bytes, the most recently read, and no page above half of them', () => {
    // A page's size: its key, its JSON and what every entry costs.
    const size = 'a'.length + JSON.stringify({ items: ['a'], count: 1 }).length + ENTRY_OVERHEAD;
    const { kept, now, after, find } = setUp(size * 2);
    kept.keep('a', now(), after(now()), page('a'));
    kept.keep('b', now(), after(now()), page('b'));
    expect(find('a')).toBeDefined();
    kept.keep('c', now(), after(now()), page('c'));
    expect(find('b')).toBeUndefined();
    expect(find('a')).toBeDefined();
    expect(find('c')).toBeDefined();
    kept.keep('large', now(), after(now()), page('a'.repeat(size)));
    expect(find('large')).toBeUndefined();
  });
});

describe('the time', () => {
  // A page is kept when it read no clock: that holds only if every read of the time in the server goes through
  // `ctx.clock`. These read it otherwise, each for something that is never part of a list page.
  const ALLOWED = new Map([
    ['server/common/clock.ts', 'the system clock itself'],
    ['server/start/data-dir.ts', "when the lock of DATA_DIR was taken, written into the lock file"],
    ['server/content/import.ts', 'the deadline of a website import, which waits on the network'],
    ['server/http/access-log.ts', 'how long a request took, for its log line'],
    ['server/http/connection-bound.ts', "when a connection's client last took an answer, to close one that reads nothing"],
    ['server/start/app.ts', 'the moment the server started, the date an undated deprecation is announced with'],
    ['server/speed/parse-slices.ts', 'until when connections accepted are parsed a slice at a time, after one went past its bound'],
    ['server/common/ids.ts', "a new record's id, which starts with when it was made: only writes make one"],
    ['server/store/postgres/store.ts', 'when a migration was applied, written into schema_migrations; when a statement began, to tell a failure reported late from a new outage'],
    ['server/store/postgres/driver.ts', 'when a statement of a write began, to tell a failure reported late from a new outage'],
    ['server/store/conditions.ts', 'how long an outage or a full disk lasted, for its log line, and when it ended'],
  ]);

  test('is read through the context clock everywhere else in the server', () => {
    const root = repoRoot;
    const found = readdirSync(path.join(root, 'server'), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts'))
      .map((file) => `server/${file.split(path.sep).join('/')}`)
      .filter((file) => /\bDate\.now\(|new Date\(\)|performance\.now\(/.test(readFileSync(path.join(root, file), 'utf8')));
    expect(found.sort()).toEqual([...ALLOWED.keys()].sort());
  });
});
