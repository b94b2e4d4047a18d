// One answer per input, whatever the engine: a server on SQLite and one on PostgreSQL get the same requests (the
// runner's bad-input and round-trip runs, holding bad-input.test.ts's and round-trip.test.ts's checks, then the
// hardening inputs), and every answer of one must be the answer of the other (status and body, the values each makes
// at random paired up), with no 5xx from either. It starts both engines itself, so the postgres project skips it.
// The requests and the comparison: test/README.md, "Two engines, one answer".
// @needs postgres
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadContract } from '../../conformance/contract/contract.ts';
import { invalidVariants } from '../../conformance/runner/property/generate.ts';
import { roundTripFields } from '../../conformance/runner/property/shapes.ts';
import { runConformance } from '../../conformance/runner/runner.ts';
import { contractOperations, loadContract as loadServerContract } from '../../server/http/contract.ts';
import { testEngine } from '../support/databases.ts';
import { EngineMirror, TokenPairs } from '../support/engine-mirror.ts';
import { LOCAL_GIT, RUNNER_TOKEN, runnerFixture } from '../support/runner.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { timeout } from '../support/timeouts.ts';

const contract = loadServerContract();
const settings = { fixture: runnerFixture, recordCoverage: false, env: { VALIDATE_RESPONSES: 'false', LOG_LEVEL: 'silent', ...LOCAL_GIT } };

/** The two servers of the describe below, started side by side: one on each engine. */
let sqlite: TestServer | undefined;
let postgres: TestServer | undefined;

/**
 * Both servers' background work done (within 20 s) before each request, so that both answer from the same state;
 * search results in any order, each engine ranking by its own relevance
 * (server/docs/behaviour-content-change-requests-comments.md, Content).
 */
const pairs = new TokenPairs();
const newMirror = () =>
  new EngineMirror(sqlite!.url, postgres!.url, {
    pairs,
    before: () => Promise.race([Promise.all([sqlite!.running.ctx.jobs.idle(), postgres!.running.ctx.jobs.idle()]), sleep(20_000)]),
    unordered: (url) => /\/search\?/.test(url),
  });

describe.skipIf(testEngine() === 'postgres')('SQLite and PostgreSQL answer every request alike', () => {
  beforeAll(async () => {
    [sqlite, postgres] = await Promise.all([startTestServer({ ...settings, engine: 'sqlite' }), startTestServer({ ...settings, engine: 'postgres' })]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([sqlite?.close(), postgres?.close()]);
  });

  test('the bad-input run: the same answer to each request', { timeout: timeout(900_000) }, async () => {
    const mirror = newMirror();
    const report = await runConformance({
      baseUrl: sqlite!.url,
      token: RUNNER_TOKEN,
      fetch: mirror.fetch as typeof fetch,
      // As test/api/bad-input.test.ts runs it, its checks included: this run is that test's on PostgreSQL (the postgres
      // project leaves the file out): SQLite's answers pass the checks, and PostgreSQL's are the same answers.
      property: { exhaustive: true, seed: 13, examples: 1, checks: ['no-5xx', 'status-declared', 'error-envelope', 'invalid-refused', 'invalid-named', 'invalid-unchanged'] },
    });
    expect(mirror.serverErrors).toEqual([]);
    expect(mirror.differences).toEqual([]);
    expect(report.property!.results.filter((result) => !result.ok)).toEqual([]);
    expect(report.violations).toEqual([]);
    // Every operation was sent every one of its invalid inputs through the mirror (coverage by count, from the
    // contract, as bad-input.test.ts counts it), and every answer compared.
    const runner = loadContract();
    const expected = Object.fromEntries([...runner.operations.values()].map((operation) => [operation.operationId, invalidVariants(runner, operation).length]));
    expect(Object.values(expected).filter((count) => count === 0)).toEqual([]);
    expect(report.property!.invalidRequests).toEqual(expected);
    expect(mirror.requests).toBeGreaterThan(2000);
  });

  test('the round-trip run: the same answer to each request', { timeout: timeout(900_000) }, async () => {
    const mirror = newMirror();
    const report = await runConformance({
      baseUrl: sqlite!.url,
      token: RUNNER_TOKEN,
      fetch: mirror.fetch as typeof fetch,
      // As test/api/round-trip.test.ts runs it, its checks included: this run is that test's on PostgreSQL (the
      // postgres project leaves the file out): SQLite's answers pass the checks, and PostgreSQL's are the same answers.
      property: { roundTripAll: true, seed: 5, examples: 4, checks: ['round-trip', 'no-5xx', 'status-declared', 'response-conforms', 'error-envelope'] },
    });
    expect(mirror.serverErrors).toEqual([]);
    expect(mirror.differences).toEqual([]);
    expect(report.property!.results.filter((result) => !result.ok)).toEqual([]);
    // Every operation that writes a field its answer has, round-tripped (as round-trip.test.ts counts them).
    const runner = loadContract();
    const writers = [...runner.operations.values()].filter((operation) => operation.method !== 'get' && roundTripFields(runner, operation).length > 0);
    expect(writers.length).toBeGreaterThan(10);
    expect(writers.map((operation) => operation.operationId).filter((id) => !(id in report.property!.roundTripped!))).toEqual([]);
    expect(Object.keys(report.property!.roundTripped!).length).toBe(writers.length);
    expect(mirror.requests).toBeGreaterThan(500);
  });

  hardeningInputs();

  test('the counters and copies the triggers keep are the same on both engines after the same writes', { timeout: timeout(120_000) }, async () => {
    // Writes that leave what every trigger keeps behind them (the runs above clean up what they create), sent to both.
    const mirror = newMirror();
    const call = async (method: string, path: string, body?: object) => {
      const response = await mirror.fetch(`${sqlite!.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${RUNNER_TOKEN}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const text = await response.text();
      expect(response.status, `${method} ${path}: ${text}`).toBeLessThan(300);
      return text === '' ? undefined : (JSON.parse(text) as { id: string });
    };
    const collection = (await call('POST', '/v1/orgs/acme/collections', { title: 'Kept' }))!.id;
    const spaces: string[] = [];
    for (const title of ['Kept one', 'Kept two', 'Kept three', 'Kept four']) spaces.push((await call('POST', '/v1/orgs/acme/spaces', { title, parent: collection }))!.id);
    const [one, two, three, four] = spaces as [string, string, string, string];
    // Comments: added, resolved, removed.
    const comments: string[] = [];
    for (const markdown of ['First', 'Second', 'Third']) comments.push((await call('POST', `/v1/spaces/${one}/comments`, { body: { markdown } }))!.id);
    await call('PUT', `/v1/spaces/${one}/comments/${comments[1]}`, { resolved: true });
    await call('DELETE', `/v1/spaces/${one}/comments/${comments[2]}`);
    await call('POST', `/v1/spaces/${two}/comments`, { body: { markdown: 'On two' } });
    // Change requests: opened, drafted, archived, and a comment on one.
    const open = (await call('POST', `/v1/spaces/${one}/change-requests`, { subject: 'Open' }))!.id;
    const draft = (await call('POST', `/v1/spaces/${one}/change-requests`, { subject: 'Draft' }))!.id;
    await call('PATCH', `/v1/spaces/${one}/change-requests/${draft}`, { status: 'draft' });
    const archived = (await call('POST', `/v1/spaces/${two}/change-requests`, { subject: 'Archived' }))!.id;
    await call('PATCH', `/v1/spaces/${two}/change-requests/${archived}`, { status: 'archived' });
    await call('POST', `/v1/spaces/${one}/change-requests/${open}/comments`, { body: { markdown: 'On the change' } });
    // Live spaces: one deleted, one deleted and restored, one moved to the other organization out of a site.
    await call('DELETE', `/v1/spaces/${three}`);
    await call('DELETE', `/v1/spaces/${two}`);
    await call('POST', `/v1/spaces/${two}/restore`);
    const site = (await call('POST', '/v1/orgs/acme/sites', { title: 'Kept' }))!.id;
    await call('POST', `/v1/orgs/acme/sites/${site}/site-spaces`, { spaceId: one });
    await call('POST', `/v1/orgs/acme/sites/${site}/site-spaces`, { spaceId: four });
    await call('POST', `/v1/spaces/${four}/transfer`, { organization: 'globex' });
    // The copy of an organization's email domains.
    await call('PATCH', '/v1/orgs/globex', { emailDomains: ['globex.test', 'kept.test'] });
    expect(mirror.serverErrors).toEqual([]);
    expect(mirror.differences).toEqual([]);
    await Promise.all([sqlite!.running.ctx.jobs.idle(), postgres!.running.ctx.jobs.idle()]);

    const KEPT = {
      space_counters: 'SELECT space_id, comments, change_requests, change_requests_open, change_requests_draft FROM space_counters',
      organization_space_counts: 'SELECT organization_id, live_spaces FROM organization_space_counts',
      organization_email_domains: 'SELECT organization_id, domain FROM organization_email_domains',
      members: 'SELECT organization_id, user_id, user_display_name FROM members',
      site_spaces: 'SELECT site_id, space_id FROM site_spaces',
    };
    const rowsOf = async (server: TestServer, query: string, translate: (text: string) => string) => {
      const rows = await server.running.ctx.store.reader.all(sql<Record<string, unknown>>`${sql.raw(query)}`);
      // Each engine's types as one text: integers (PostgreSQL's bigint comes as a string), and NULL.
      return rows.map((row) => translate(JSON.stringify(Object.values(row).map((value) => (value === null ? null : String(value)))))).sort();
    };
    for (const [table, query] of Object.entries(KEPT)) {
      const [first, second] = await Promise.all([rowsOf(sqlite!, query, (text) => pairs.translate(text)), rowsOf(postgres!, query, (text) => text)]);
      expect(first, table).toEqual(second);
      expect(first.length, `${table} has rows to compare`).toBeGreaterThan(0);
    }
    // The writes above reached the counters: the first space's comments and change requests, counted alike.
    const counters = await sqlite!.running.ctx.store.reader.all(sql<{ comments: number; change_requests: number }>`SELECT comments, change_requests FROM space_counters WHERE space_id = ${one}`);
    expect(counters.map((row) => [Number(row.comments) > 0, Number(row.changeRequests)])).toEqual([[true, 2]]);
  });
});

/**
 * How the mirror compares page cursors, on two servers answering what each test gives: by what they hold (the ids in
 * the key paired with those the answers name, the count, the list), whatever letters their signatures are made of.
 */
describe.skipIf(testEngine() === 'postgres')('the mirror compares page cursors by what they hold', () => {
  const TIME = '2026-03-01T09:00:00.000Z';
  const LIST = 'PXFqDFEinsoUfurYfBNlqJ';
  const cursor = (data: { k: unknown[]; c: number; l: string }, signature: string) => `${Buffer.from(JSON.stringify(data)).toString('base64url')}.${signature}`;
  // Ids as each server makes them, for the same two records; signatures of letters only, as one in 40 is.
  const FIRST = { one: '0Vc5fvs700emAt83X9wvgi', two: '0Vc5fvsA00pKw31s1ozxVh', signature: 'QxdHElA__JMADyuUg_nptk' };
  const SECOND = { one: '0Vc5fvsO00WMB3lSdx5klJ', two: '0Vc5fvsQ00tF7je1fdD9rq', signature: 'KpmoomDYdoUqfeuCmunEEx' };
  const OTHER = '0Vc5fvsS00g8kmHM37w9hJ';

  /** A server answering a page of the list (its first page, or the one after `ids.one`), keeping the addresses sent. */
  async function listServer(ids: { one: string; two: string; signature: string }, next: string) {
    const received: string[] = [];
    const server = createServer((request, response) => {
      received.push(request.url!);
      const body = request.url!.includes('page=') ? { items: [{ id: ids.two }], count: 2 } : { items: [{ id: ids.one }], count: 2, next: { page: next } };
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received, close: () => new Promise((resolve) => server.close(resolve)) };
  }

  /** The mirror's differences on the first page and the next one, with the second server's `next` for the first. */
  async function differences(second: string) {
    const firstCursor = cursor({ k: [TIME, FIRST.one], c: 2, l: LIST }, FIRST.signature);
    const servers = await Promise.all([listServer(FIRST, firstCursor), listServer(SECOND, second)]);
    try {
      const mirror = new EngineMirror(servers[0].url, servers[1].url, { settle: { tries: 0, waitMs: 0 } });
      await mirror.fetch(`${servers[0].url}/v1/things?limit=1`);
      await mirror.fetch(`${servers[0].url}/v1/things?limit=1&page=${firstCursor}`);
      return { differences: mirror.differences, sent: servers[1].received };
    } finally {
      await Promise.all(servers.map((server) => server.close()));
    }
  }

  test('a cursor naming the paired record, signed with letters only, is the same, and is sent translated', async () => {
    const secondCursor = cursor({ k: [TIME, SECOND.one], c: 2, l: LIST }, SECOND.signature);
    expect(await differences(secondCursor)).toEqual({ differences: [], sent: ['/v1/things?limit=1', `/v1/things?limit=1&page=${secondCursor}`] });
  });

  test('a cursor naming another record, or counting otherwise, differs at once', async () => {
    for (const data of [{ k: [TIME, OTHER], c: 2, l: LIST }, { k: [TIME, SECOND.one], c: 3, l: LIST }]) {
      const found = await differences(cursor(data, SECOND.signature));
      expect(found.differences[0]).toMatch(/^GET \/v1\/things\?limit=1: body\.next\.page: \{"k"/);
    }
  });
});

/** The hardening inputs, on both servers through one mirror. */
function hardeningInputs(): void {
  test('the hardening inputs: the same answer to each request, a 400 naming where for text the engines cannot both store', { timeout: timeout(600_000) }, async () => {
    const mirror = newMirror();
    const call = async (method: string, path: string, body?: string, headers: Record<string, string> = {}) => {
      const response = await mirror.fetch(`${sqlite!.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${RUNNER_TOKEN}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
        ...(body !== undefined ? { body } : {}),
      });
      const text = await response.text();
      return { status: response.status, text };
    };
    // Real resources, so that anything that got through would reach the store.
    const created = async (path: string, body: object) => {
      const answer = await call('POST', path, JSON.stringify(body));
      expect(answer.status, answer.text).toBe(201);
      return (JSON.parse(answer.text) as { id: string }).id;
    };
    const collectionId = await created('/v1/orgs/acme/collections', { title: 'Probe' });
    const spaceId = await created('/v1/orgs/acme/spaces', { title: 'Probe', parent: collectionId });
    const siteId = await created('/v1/orgs/acme/sites', { title: 'Probe' });
    const real: Record<string, string> = { organizationId: 'acme', spaceId, collectionId, siteId };
    const TEXT = [
      { rule: 'U+0000', json: '"a\\u0000b"', url: 'a%00b', named: /must not contain the character U\+0000/ },
      { rule: 'an unpaired surrogate', json: '"a\\ud800b"', url: undefined, named: /unpaired surrogate/ },
    ];
    let sent = 0;
    for (const operation of contractOperations(contract)) {
      const definition = contract.paths[operation.path]![operation.method]! as { parameters?: { name: string; in: string; schema?: { type?: string } }[]; requestBody?: unknown };
      const parameters = (definition.parameters ?? []) as { name: string; in: string; schema?: { type?: string; $ref?: string } }[];
      const path = (override?: [string, string]) =>
        operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => (override?.[0] === name ? override[1] : (real[name] ?? 'x-1')));
      const method = operation.method.toUpperCase();
      const body = definition.requestBody !== undefined ? '{}' : undefined;
      const expectNamed = (answer: { status: number; text: string }, where: string, named: RegExp) => {
        expect(answer.status, `${method} ${operation.path} ${where}: ${answer.text}`).toBe(400);
        expect(answer.text, `${method} ${operation.path}`).toContain(where);
        expect(answer.text).toMatch(named);
      };
      for (const { name } of parameters.filter((parameter) => parameter.in === 'path')) {
        expectNamed(await call(method, path([name, 'x%00y']), body), `path.${name}`, TEXT[0]!.named);
        sent++;
      }
      for (const parameter of parameters.filter((candidate) => candidate.in === 'query')) {
        expectNamed(await call(method, `${path()}?${parameter.name}=a%00b`, body), `query.${parameter.name}`, TEXT[0]!.named);
        sent++;
        if (parameter.name === 'limit') {
          for (const spelling of ['Infinity', '-Infinity', '1e400', '0x10']) {
            const answer = await call(method, `${path()}?limit=${spelling}`, body);
            expect(answer.status, answer.text).toBe(400);
            sent++;
          }
        }
      }
      if (body !== undefined) {
        for (const text of TEXT) {
          expectNamed(await call(method, path(), `{"title":${text.json}}`), 'body.title', text.named);
          expectNamed(await call(method, path(), `{"nested":{"deeper":[${text.json}]}}`), 'body.nested.deeper.0', text.named);
          expectNamed(await call(method, path(), `{"configurations":{${text.json}:1}}`), 'body.configurations: a property name', text.named);
          sent += 3;
        }
      }
    }
    // The requests of the finding, and what they create: nothing.
    const spaces = async () => (await call('GET', '/v1/orgs/acme/spaces?limit=1000')).text;
    const before = await spaces();
    expectNamed2(await call('GET', '/v1/spaces/%00'), 'path.spaceId');
    expectNamed2(await call('GET', '/v1/orgs/acme/teams?title=%00'), 'query.title');
    expectNamed2(await call('POST', '/v1/orgs/acme/spaces', '{"title":"a\\u0000b"}'), 'body.title');
    expect(await spaces()).toBe(before);
    expect(mirror.serverErrors).toEqual([]);
    expect(mirror.differences).toEqual([]);
    expect(sent).toBeGreaterThan(300);
  });

  /**
   * What the triggers keep (each engine's migrations: the counters of each space and organization, the copy of each
   * organization's email domains, members' display names, site spaces leaving with their space), after the same
   * writes on each engine (the runs above, then writes that leave something of each behind): every row alike, the
   * ids each server made paired as the mirrors learnt them. test/server/store-schema.test.ts compares the triggers' names and tables; this, what they do.
   */
}

function expectNamed2(answer: { status: number; text: string }, where: string): void {
  expect(answer.status, answer.text).toBe(400);
  expect(answer.text).toContain(where);
}
