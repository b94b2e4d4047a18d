// Nothing a caller sends grows the server without bound: thousands of requests, each with a value of its own (a
// Content-Type parameter or media type, a query name or value, an Accept value, a token, a path id, a user agent),
// leave every structure that keeps something per request at the size the same request with one value left it, or
// within its bound. What is asserted is the structures' sizes, never memory or time (server/docs/limits.md, "What
// grows with requests"). On each engine, and with the speed mechanisms on and off (SPEEDUPS_OFF).
// @needs slow
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { knownCallerCount } from '../../server/auth/caller.ts';
import { ENTRY_OVERHEAD } from '../../server/common/recently-used.ts';
import { listPageCacheIn } from '../../server/start/app.ts';
import { usageRecordsFolder } from '../../server/start/harness-protocol.ts';
import { LONGEST_NAMED_STATEMENT, PostgresStore } from '../../server/store/postgres/store.ts';
import { LONGEST_KEPT_STATEMENT, SqliteStore } from '../../server/store/sqlite/store.ts';
import { startDocsServer } from '../../server/testing/index.ts';
import { ACME } from '../support/fixture.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { type ValidatorCacheSizes, watchValidatorCaches } from '../support/validator-caches.ts';

/** Distinct values sent for each kind of key. */
const DISTINCT = 2000;
/** A test's timeout: thousands of requests, on a machine that may be running other test files (never a measure). */
const THOUSANDS = { timeout: 240_000 };
/** Requests in flight at once. */
const AT_ONCE = 16;
const LIST_CACHE_MB = 1;
/** The valid tokens the requests send. */
const VALID_TOKENS = 2;

interface Sent {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

let server: TestServer;
let validator: ReturnType<typeof watchValidatorCaches>;
beforeAll(async () => {
  validator = watchValidatorCaches();
  server = await startTestServer({ env: { LIST_CACHE_MB: String(LIST_CACHE_MB) } });
});
afterAll(async () => {
  validator?.stop();
  await server?.close();
});

/** `count` requests made by `make`, AT_ONCE at a time; the statuses answered, counted. */
async function send(count: number, make: (i: number) => Sent): Promise<Record<number, number>> {
  const statuses: Record<number, number> = {};
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const { method = 'GET', path: at, headers = {}, body } = make(next++);
      const answer = await fetch(`${server.url}${at}`, { method, headers: { authorization: 'Bearer reader', ...headers }, body });
      await answer.arrayBuffer();
      statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: AT_ONCE }, worker));
  return statuses;
}

/** What the server keeps per request, by structure. */
function kept(): ValidatorCacheSizes & { callers: number; listPages: number } {
  const { ctx } = server.running;
  return { ...validator.sizes(), callers: knownCallerCount(ctx.store), listPages: listPageCacheIn(ctx)!.kept.entries };
}

/**
 * The sizes after `one` value sent twice (the structures warmed), and after DISTINCT values: the same, or within
 * `bounds`, and every answer one of `statuses`.
 */
async function unchangedBy(one: (i: number) => Sent, distinct: (i: number) => Sent, statuses: number[]) {
  await send(2, one);
  const before = kept();
  const answered = await send(DISTINCT, distinct);
  expect(Object.keys(answered).map(Number).sort()).toEqual(statuses);
  const { callers, ...after } = kept();
  const { callers: _, ...was } = before;
  expect(after).toEqual(was);
  // The callers of the valid tokens these requests send (reader's, admin's), once remembered: on PostgreSQL, only once
  // the instance hears of new tokens (auth/caller.ts), which may come after the first requests.
  expect(callers).toBeLessThanOrEqual(VALID_TOKENS);
}

const spaces = `/v1/orgs/${ACME}/spaces`;

describe('thousands of distinct values leave what the server keeps as one value did', THOUSANDS, () => {
  test('Content-Type parameters and media types, on an operation without a body and on one with a body', async () => {
    await unchangedBy(
      () => ({ path: spaces, headers: { 'content-type': 'application/json' } }),
      (i) => ({ path: spaces, headers: { 'content-type': i % 2 ? `application/json; x=${i}` : `text/x-${i}; charset=utf-${i}` } }),
      [200],
    );
    // A write the validator refuses (the title must be text): refused the same whatever the parameters, nothing written.
    const write = (contentType: string): Sent => ({ method: 'PATCH', path: `/v1/orgs/${ACME}`, headers: { 'content-type': contentType, authorization: 'Bearer admin' }, body: '{"title":5}' });
    await unchangedBy(() => write('application/json'), (i) => write(`application/json; x=${i}; charset=UTF-8`), [400]);
    await unchangedBy(() => write('text/plain'), (i) => write(`text/x-${i}`), [415]);
  });

  test('query names and values', async () => {
    await unchangedBy(() => ({ path: `${spaces}?x=1` }), (i) => ({ path: `${spaces}?x${i}=${i}` }), [400]);
    await unchangedBy(() => ({ path: `${spaces}?limit=abc` }), (i) => ({ path: `${spaces}?limit=${i}x` }), [400]);
  });

  test('Accept values, user agents and other headers', async () => {
    await unchangedBy(
      () => ({ path: spaces, headers: { accept: 'application/json' } }),
      (i) => ({ path: spaces, headers: { accept: `application/x-${i}, application/json;q=0.${i % 10}`, 'user-agent': `agent/${i}`, [`x-header-${i % 50}`]: String(i) } }),
      [200],
    );
  });

  test('tokens: unknown ones are not remembered', async () => {
    await unchangedBy(
      () => ({ path: spaces, headers: { authorization: 'Bearer not-a-token' } }),
      (i) => ({ path: spaces, headers: { authorization: `Bearer unknown-${i}-${'t'.repeat(i % 500)}` } }),
      [401],
    );
  });

  test('path ids', async () => {
    await unchangedBy(() => ({ path: '/v1/spaces/missing' }), (i) => ({ path: `/v1/spaces/missing-${i}` }), [404]);
    await unchangedBy(() => ({ path: '/v1/nowhere/1' }), (i) => ({ path: `/v1/nowhere/${i}` }), [404]);
  });
});

describe('what is kept per value stays within its bound', THOUSANDS, () => {
  test('list pages, keyed by the address: their keys count, so long addresses keep fewer pages', async () => {
    const capacity = LIST_CACHE_MB * 1024 * 1024;
    // A search of the integrations: an empty page, each address of its own, its search percent-encoded to be long.
    const padding = '%70'.repeat(500);
    const answered = await send(DISTINCT, (i) => ({ path: `/v1/integrations?search=${i}${padding}` }));
    expect(answered).toEqual({ 200: DISTINCT });
    const { entries, size } = listPageCacheIn(server.running.ctx)!.kept;
    expect(size).toBeLessThanOrEqual(capacity);
    expect(entries).toBeGreaterThan(0);
    expect(entries).toBeLessThanOrEqual(Math.floor(capacity / (padding.length + ENTRY_OVERHEAD)));
  });

  test('SQL texts built at run time: the long ones are not kept prepared', () => {
    const store = server.running.ctx.store;
    const before = store instanceof SqliteStore ? store.keptStatements : undefined;
    for (let i = 0; i < 200; i++) {
      const text = `SELECT ${i} AS n WHERE 1 IN (${Array.from({ length: 2000 }, () => '1').join(', ')})`;
      expect(text.length).toBeGreaterThan(Math.max(LONGEST_KEPT_STATEMENT, LONGEST_NAMED_STATEMENT));
      if (store instanceof SqliteStore) store.statement(text);
      else expect((store as PostgresStore).prepares(text)).toBe(false);
    }
    if (store instanceof SqliteStore) expect(store.keptStatements).toEqual(before);
  });
});

describe("the harness's usage record", THOUSANDS, () => {
  test("keeps what the validator accepted: refused requests' parameters and bodies are not recorded, and a body it cannot walk costs the record nothing", async () => {
    const folder = mkdtempSync(path.join(os.tmpdir(), 'request-bounds-usage-'));
    const harnessed = await startDocsServer({
      seed: { users: [{ id: 'ann', displayName: 'Ann', tokens: ['ann'] }], organizations: [{ id: 'acme', title: 'Acme', members: [{ user: 'ann', role: 'admin' }] }] },
      inProcess: true,
      usage: folder,
      // The harness reads its variables alone: the run's speed mechanisms are passed on, as the suite's own servers
      // take them (a wrapper installed here would be the process's for every later server: content.test.ts counts it).
      env: process.env.SPEEDUPS_OFF ? { SPEEDUPS_OFF: process.env.SPEEDUPS_OFF } : {},
    });
    try {
      const call = (at: string, init: RequestInit = {}) =>
        fetch(`${harnessed.url}${at}`, { ...init, headers: { authorization: 'Bearer ann', ...init.headers } }).then(async (answer) => (await answer.arrayBuffer(), answer.status));
      expect(await call('/v1/orgs/acme/members?role=admin')).toBe(200);
      for (let i = 0; i < 300; i++) {
        expect(await call(`/v1/orgs/acme/members?role=r${i}&q${i}=1`)).toBe(400);
        expect(await call('/v1/orgs/acme', { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ [`f${i}`]: { [`g${i}`]: i } }) })).toBe(400);
      }
      const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
      expect(await call('/v1/orgs/acme', { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: deep })).toBe(400);
      expect(await call('/v1/orgs/acme/members?role=read')).toBe(200);
    } finally {
      await harnessed.stop();
    }
    const files = readdirSync(usageRecordsFolder(folder));
    expect(files).toHaveLength(1);
    const record = JSON.parse(readFileSync(path.join(usageRecordsFolder(folder), files[0]!), 'utf8'));
    // The accepted requests' parameters alone, and no field of the refused bodies.
    expect(Object.keys(record.operations.listMembers.parameters).sort()).toEqual(['path.organizationId', 'query.role']);
    expect(record.operations.listMembers.parameters['query.role'].values.sort()).toEqual(['admin', 'read']);
    expect(Object.keys(record.operations.updateOrganization.body)).toEqual([]);
    expect(Object.keys(record.operations.updateOrganization.responses)).toEqual(['400 application/json']);
    rmSync(folder, { recursive: true, force: true });
  });
});
