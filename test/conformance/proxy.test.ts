// The validating proxy (conformance/proxy/proxy.ts, `docs-conformance proxy`), through the real stack: the typed client and
// raw requests sent through it to the reference server started in process (and to one broken on purpose, and to a
// plain node:http server that shows what passes through byte for byte), its violations on both sides, its streaming,
// its command mode and reports, and its command line.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, createServer, type IncomingHttpHeaders, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createDocsClient } from '../../client/index.ts';
import { loadContract } from '../../conformance/contract/contract.ts';
import { coverageMarkdown, coverageSummary, emptyCoverage, mergeCoverage, recordAnswer } from '../../conformance/contract/coverage.ts';
import { type RunningProxy, startProxy } from '../../conformance/proxy/proxy.ts';
import { runProxyCommand } from '../../conformance/proxy/proxy-command.ts';
import type { ProxyReport } from '../../conformance/proxy/proxy-report.ts';
import { repoRoot } from '../support/repo.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const TOKEN = 'admin';
const auth = { authorization: `Bearer ${TOKEN}` };

let reference: TestServer;
let broken: TestServer;
let proxy: RunningProxy;
let brokenProxy: RunningProxy;
const scratch = mkdtempSync(path.join(os.tmpdir(), 'proxy-test-'));

beforeAll(async () => {
  // Neither server counts in the suite's operation coverage: the broken one answers wrongly on purpose.
  [reference, broken] = await Promise.all([
    startTestServer({ recordCoverage: false }),
    startTestServer({
      recordCoverage: false,
      // Response validation off, so that the wrong answers go out as they are.
      env: { VALIDATE_RESPONSES: 'false', LOG_LEVEL: 'silent' },
      handlers: (_ctx, { listTeams: _answeredFromContract, ...table }) => ({
        ...table,
        // A status getSpace does not declare, and a list without its required `count`.
        getSpace: async () => ({ status: 418, body: { error: { code: 418, message: 'I am a teapot' } } }) as never,
        listSpaces: async () => ({ status: 200, body: { items: [] } }) as never,
        // listTeams has no handler: the server answers it from the contract (x-contract-answer).
      }) as never,
    }),
  ]);
  [proxy, brokenProxy] = await Promise.all([startProxy({ target: reference.url }), startProxy({ target: broken.url })]);
});

afterAll(async () => {
  await Promise.all([proxy?.close(), brokenProxy?.close()]);
  await Promise.all([reference?.close(), broken?.close()]);
  rmSync(scratch, { recursive: true, force: true });
});

/** The violations recorded since `from` (after every exchange under way is recorded). */
async function violationsSince(running: RunningProxy, from: number) {
  await running.idle();
  return running.violations.slice(from);
}

/** Header names, and values but those that differ per answer (the time, the request id). */
function headersOf(response: Response, { values = true } = {}): Record<string, string> {
  const out: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    out[name] = !values || name === 'date' || name === 'x-request-id' ? '*' : value;
  });
  return out;
}

describe('the typed client through the proxy', () => {
  test('create, read, list, patch and delete pass through as a direct call answers them, with no violation', async () => {
    const from = proxy.violations.length;
    const viaProxy = createDocsClient({ baseUrl: proxy.url, token: TOKEN, retry: false });
    const direct = createDocsClient({ baseUrl: reference.url, token: TOKEN, retry: false });
    const organization = { params: { path: { organizationId: 'acme' } } };

    const created = await viaProxy.POST('/v1/orgs/{organizationId}/spaces', { ...organization, body: { title: 'Through the proxy' } });
    const createdDirect = await direct.POST('/v1/orgs/{organizationId}/spaces', { ...organization, body: { title: 'Direct' } });
    expect(created.response.status).toBe(201);
    expect(created.response.status).toBe(createdDirect.response.status);
    // Same headers (names; ids, lengths and times differ between two creates), none added.
    expect(headersOf(created.response, { values: false })).toEqual(headersOf(createdDirect.response, { values: false }));
    expect(created.response.headers.get('location')).toBe(created.data!.urls.location);
    const spaceId = created.data!.id;
    const space = { params: { path: { spaceId } } };

    const read = await viaProxy.GET('/v1/spaces/{spaceId}', space);
    const readDirect = await direct.GET('/v1/spaces/{spaceId}', space);
    expect(read.response.status).toBe(200);
    expect(read.data).toEqual(readDirect.data);
    expect(read.data).toEqual(created.data);
    expect(headersOf(read.response)).toEqual(headersOf(readDirect.response));

    const list = await viaProxy.GET('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId: 'acme' }, query: { limit: 5 } } });
    const listDirect = await direct.GET('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId: 'acme' }, query: { limit: 5 } } });
    expect(list.response.status).toBe(200);
    expect(list.data).toEqual(listDirect.data);
    expect(headersOf(list.response)).toEqual(headersOf(listDirect.response));

    const patched = await viaProxy.PATCH('/v1/spaces/{spaceId}', { ...space, body: { title: 'Patched through the proxy' } });
    const patchedDirect = await direct.PATCH('/v1/spaces/{spaceId}', { params: { path: { spaceId: createdDirect.data!.id } }, body: { title: 'Patched directly' } });
    expect(patched.response.status).toBe(200);
    expect(patched.data!.title).toBe('Patched through the proxy');
    expect(headersOf(patched.response, { values: false })).toEqual(headersOf(patchedDirect.response, { values: false }));
    expect((await direct.GET('/v1/spaces/{spaceId}', space)).data!.title).toBe('Patched through the proxy');

    const deleted = await viaProxy.DELETE('/v1/spaces/{spaceId}', space);
    const deletedDirect = await direct.DELETE('/v1/spaces/{spaceId}', { params: { path: { spaceId: createdDirect.data!.id } } });
    expect(deleted.response.status).toBe(204);
    expect(headersOf(deleted.response)).toEqual(headersOf(deletedDirect.response));

    expect(await violationsSince(proxy, from)).toEqual([]);
    const report = proxy.report();
    expect(report.coverage.operations.createSpace!.seen).toEqual(['201']);
    expect(report.coverage.operations.deleteSpace!.seen).toEqual(['204']);
    expect(report.operations.getSpace).toMatchObject({ method: 'GET', path: '/v1/spaces/{spaceId}', statuses: [200] });
  });
});

describe('violations', () => {
  test("a client's mistakes are named (operation, pointer, value) and still forwarded: the implementation's 400 passes through", async () => {
    const from = proxy.violations.length;
    const send = (base: string, target: string, init: RequestInit = {}) => fetch(`${base}${target}`, { ...init, headers: { ...auth, ...init.headers } });
    const unknownField = { method: 'POST', body: JSON.stringify({ title: 'Misspelt', titel: 'oops' }), headers: { 'content-type': 'application/json' } };

    const [viaProxy, direct] = await Promise.all([send(proxy.url, '/v1/orgs/acme/spaces', unknownField), send(reference.url, '/v1/orgs/acme/spaces', unknownField)]);
    expect(viaProxy.status).toBe(400);
    expect(await viaProxy.json()).toEqual(await direct.json());
    const wrongType = await send(proxy.url, '/v1/orgs/acme/spaces?limit=many');
    expect(wrongType.status).toBe(400);
    const unknownPath = await send(proxy.url, '/v1/no-such-thing');
    expect(unknownPath.status).toBe(404);
    const undeclaredQuery = await send(proxy.url, '/v1/orgs/acme/spaces?color=blue');
    expect(undeclaredQuery.status).toBe(400);

    const found = await violationsSince(proxy, from);
    expect(found.every((violation) => violation.side === 'client')).toBe(true);
    expect(found).toContainEqual(
      expect.objectContaining({ side: 'client', kind: 'body-schema', operationId: 'createSpace', method: 'POST', path: '/v1/orgs/acme/spaces', status: 400, pointer: '/body/titel', value: 'oops' }),
    );
    expect(found).toContainEqual(
      expect.objectContaining({ kind: 'parameter-schema', operationId: 'listSpaces', path: '/v1/orgs/acme/spaces?limit=many', status: 400, pointer: '/query/limit', value: 'many' }),
    );
    expect(found).toContainEqual(expect.objectContaining({ kind: 'unknown-operation', method: 'GET', path: '/v1/no-such-thing', status: 404, pointer: '/path' }));
    expect(found.find((violation) => violation.kind === 'unknown-operation')!.operationId).toBeUndefined();
    expect(found).toContainEqual(expect.objectContaining({ kind: 'unknown-parameter', operationId: 'listSpaces', pointer: '/query/color', value: 'blue' }));
    expect(found.find((violation) => violation.kind === 'body-schema')!.message).toContain('body/titel is not a property the schema declares');
    // The server's answers conformed: nothing on the implementation's side.
    expect(found).toHaveLength(4);
  });

  test('a request without credentials, a body where none is declared, and one that is not JSON are named', async () => {
    const from = proxy.violations.length;
    expect((await fetch(`${proxy.url}/v1/orgs/acme/spaces`)).status).toBe(401);
    // DELETE answers 204 whether or not the space exists; a body is no part of it.
    expect((await fetch(`${proxy.url}/v1/spaces/nothing`, { method: 'DELETE', headers: { ...auth, 'content-type': 'application/json' }, body: '{"a":1}' })).status).toBe(204);
    expect((await fetch(`${proxy.url}/v1/orgs/acme/spaces`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{"title":' })).status).toBe(400);
    const found = await violationsSince(proxy, from);
    expect(found).toContainEqual(expect.objectContaining({ side: 'client', kind: 'security', operationId: 'listSpaces', status: 401, pointer: '/headers/authorization' }));
    expect(found).toContainEqual(expect.objectContaining({ side: 'client', kind: 'unexpected-body', operationId: 'deleteSpace', pointer: '/body' }));
    expect(found).toContainEqual(expect.objectContaining({ side: 'client', kind: 'invalid-json', operationId: 'createSpace', value: '{"title":' }));
    expect(found.filter((violation) => violation.side === 'implementation')).toEqual([]);
  });

  test("an implementation's mistakes are named: an undeclared status, a body without a required field", async () => {
    const from = brokenProxy.violations.length;
    const teapot = await fetch(`${brokenProxy.url}/v1/spaces/anything`, { headers: auth });
    expect(teapot.status).toBe(418);
    expect(await teapot.json()).toEqual({ error: { code: 418, message: 'I am a teapot' } });
    const list = await fetch(`${brokenProxy.url}/v1/orgs/acme/spaces`, { headers: auth });
    expect(list.status).toBe(200);
    expect(await list.json()).toEqual({ items: [] });

    const found = await violationsSince(brokenProxy, from);
    expect(found).toEqual([
      expect.objectContaining({ side: 'implementation', kind: 'undeclared-status', operationId: 'getSpace', method: 'GET', path: '/v1/spaces/anything', status: 418, pointer: '/status', value: 418 }),
      expect.objectContaining({ side: 'implementation', kind: 'body-schema', operationId: 'listSpaces', status: 200, pointer: '/body/count' }),
    ]);
    expect(found[0]!.message).toContain('status 418 is not declared');
    expect(found[1]!.message).toContain("body must have required property 'count'");
    expect(found[1]).not.toHaveProperty('value');
    // Undeclared statuses are not coverage; the declared ones seen are.
    const coverage = brokenProxy.report().coverage.operations;
    expect(coverage.getSpace!.seen).toEqual([]);
    expect(coverage.listSpaces!.seen).toEqual(['200']);
  });

  test("an answer made from the contract, not by an implementation, is named, though it is valid", async () => {
    const from = brokenProxy.violations.length;
    const teams = await fetch(`${brokenProxy.url}/v1/orgs/acme/teams`, { headers: auth });
    expect(teams.status).toBe(200);
    expect(teams.headers.get('x-contract-answer')).toMatch(/^(example|schema)$/);
    const found = await violationsSince(brokenProxy, from);
    expect(found).toEqual([expect.objectContaining({ side: 'implementation', kind: 'answered-from-contract', operationId: 'listTeams', status: 200 })]);
    expect(found[0]!.message).toMatch(/^answered from the contract \(x-contract-answer: (example|schema)\), not by an implementation/);
    // What the reference server implements passes with no such finding.
    const before = proxy.violations.length;
    const real = await fetch(`${proxy.url}/v1/orgs/acme/teams`, { headers: auth });
    expect([real.status, real.headers.get('x-contract-answer')]).toEqual([200, null]);
    expect(await violationsSince(proxy, before)).toEqual([]);
  });

  test('an unreachable target answers the client 502 and is recorded, not a crash', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const lost = await startProxy({ target: `http://127.0.0.1:${port}` });
    try {
      const answer = await fetch(`${lost.url}/v1/orgs`, { headers: auth });
      expect(answer.status).toBe(502);
      expect(((await answer.json()) as { error: { code: number } }).error.code).toBe(502);
      await lost.idle();
      expect(lost.violations).toEqual([expect.objectContaining({ side: 'implementation', kind: 'network', operationId: 'listOrganizations', status: 502 })]);
      expect(lost.violations[0]!.message).toContain('ECONNREFUSED');
    } finally {
      await lost.close();
    }
  });
});

describe('pass-through', () => {
  test('50 concurrent requests over kept-alive connections get the answers a direct call gets', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    const get = (base: string, target: string) =>
      new Promise<{ status: number; body: string; port: number }>((resolve, reject) => {
        const outgoing = request(`${base}${target}`, { agent, headers: auth }, (answer) => {
          let body = '';
          answer.setEncoding('utf8');
          answer.on('data', (chunk: string) => (body += chunk));
          answer.on('end', () => resolve({ status: answer.statusCode!, body, port: outgoing.socket!.localPort! }));
        });
        outgoing.on('error', reject);
        outgoing.end();
      });
    const targets = ['/v1/orgs/acme/spaces?limit=3', '/v1/orgs/acme', '/v1/orgs?limit=2', '/v1/orgs/acme/members?limit=4', '/v1/spaces/missing'];
    const expected = new Map<string, { status: number; body: string }>();
    for (const target of targets) expected.set(target, await get(reference.url, target));
    const from = proxy.violations.length;
    try {
      const answers = await Promise.all(Array.from({ length: 50 }, (_, index) => targets[index % targets.length]!).map(async (target) => ({ target, ...(await get(proxy.url, target)) })));
      for (const answer of answers) expect({ status: answer.status, body: answer.body }).toEqual({ status: expected.get(answer.target)!.status, body: expected.get(answer.target)!.body });
      // 50 requests over at most 8 connections of the client: kept alive and reused.
      expect(new Set(answers.map((answer) => answer.port)).size).toBeLessThanOrEqual(8);
      expect(await violationsSince(proxy, from)).toEqual([]);
    } finally {
      agent.destroy();
    }
  });

  test('a body of several MB passes through to the server, whose answer (a 400: the title is too long) comes back; it is reported as not checked', async () => {
    // Over the proxy's 4 MiB and within the server's 5 MiB: the server reads it whole (one over its limit it refuses
    // by its Content-Length, before the proxy has passed it all on).
    const big = JSON.stringify({ title: 'x'.repeat(4.5 * 1024 * 1024) });
    const send = (base: string) => fetch(`${base}/v1/orgs/acme/spaces`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: big });
    const direct = await send(reference.url);
    const notCheckedBefore = proxy.report().notChecked.length;
    const viaProxy = await send(proxy.url);
    expect(viaProxy.status).toBe(direct.status);
    expect(viaProxy.status).toBe(400);
    expect(await viaProxy.json()).toEqual(await direct.json());
    await proxy.idle();
    const notChecked = proxy.report().notChecked.slice(notCheckedBefore);
    expect(notChecked).toEqual([expect.objectContaining({ side: 'client', operationId: 'createSpace', status: 400 })]);
    expect(notChecked[0]!.reason).toMatch(/larger than 4194304 bytes/);
  });
});

describe('pass-through: against a plain node:http target', () => {
  let target: Server;
  let targetUrl = '';
  let connections = 0;
  let seen: { rawHeaders: string[]; headers: IncomingHttpHeaders } | undefined;
  /** Resolves when the target has received the first bytes of the streamed request's body. */
  let firstBytes: Promise<void>;
  let sawFirstBytes!: () => void;
  let releaseAnswer!: () => void;
  let plain: RunningProxy;

  beforeAll(async () => {
    firstBytes = new Promise((resolve) => (sawFirstBytes = resolve));
    const answerReleased = new Promise<void>((resolve) => (releaseAnswer = resolve));
    target = createServer((req, res) => {
      seen = { rawHeaders: req.rawHeaders, headers: req.headers };
      res.sendDate = false;
      if (req.url === '/v1/spaces/streamed') {
        // Streams its answer: the head and a first part at once, the rest when the test says.
        let received = 0;
        req.on('data', (chunk: Buffer) => {
          if (received === 0) sawFirstBytes();
          received += chunk.length;
        });
        req.on('end', () => {
          res.writeHead(200, { 'Content-Type': 'application/json' });
          res.write('{"received":');
          void answerReleased.then(() => res.end(`${received}}`));
        });
        return;
      }
      if (req.url === '/v1/spaces/hanging') {
        // Never ends its answer.
        req.resume();
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.write('{"title":');
        return;
      }
      req.resume();
      res.writeHead(200, [
        ['Content-Type', 'application/json'],
        ['X-Custom', 'one'],
        ['Set-Cookie', 'a=1'],
        ['Set-Cookie', 'b=2'],
        ['Content-Length', '2'],
      ].flat());
      res.end('{}');
    });
    target.on('connection', () => connections++);
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
    plain = await startProxy({ target: targetUrl });
  });

  afterAll(async () => {
    await plain?.close();
    target?.closeAllConnections();
    await new Promise((resolve) => target?.close(resolve));
  });

  test('headers go through as they are, both ways: the proxy adds none, drops only hop-by-hop ones, names the target as Host', async () => {
    const answer = await new Promise<{ rawHeaders: string[]; body: string }>((resolve, reject) => {
      const outgoing = request(`${plain.url}/v1/orgs/acme?x=1`, {
        // Given as a list (to send one header twice), so without the Host node:http adds to an object's.
        headers: [['Host', new URL(plain.url).host], ['Authorization', 'Bearer t'], ['X-Trace', 'a'], ['X-Trace', 'b'], ['Connection', 'keep-alive, X-Hop'], ['X-Hop', 'drop me'], ['Keep-Alive', 'timeout=5']].flat(),
      }, (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk));
        response.on('end', () => resolve({ rawHeaders: response.rawHeaders, body }));
      });
      outgoing.on('error', reject);
      outgoing.end();
    });
    expect(answer.body).toBe('{}');
    const names = (raw: string[]) => raw.filter((_, index) => index % 2 === 0);
    // The target's headers, in its order; node:http's own framing of the connection aside.
    const end2end = answer.rawHeaders.filter((_, index, raw) => !['connection', 'keep-alive', 'transfer-encoding'].includes(raw[index - (index % 2)]!.toLowerCase()));
    expect(end2end).toEqual(['Content-Type', 'application/json', 'X-Custom', 'one', 'Set-Cookie', 'a=1', 'Set-Cookie', 'b=2', 'Content-Length', '2']);
    expect(names(answer.rawHeaders).map((name) => name.toLowerCase())).not.toContain('date');
    expect(seen!.headers.host).toBe(new URL(targetUrl).host);
    expect(seen!.headers['x-trace']).toBe('a, b');
    expect(seen!.headers.authorization).toBe('Bearer t');
    expect(seen!.headers['x-hop']).toBeUndefined();
    expect(names(seen!.rawHeaders)).toEqual(['Host', 'Authorization', 'X-Trace', 'X-Trace', 'Connection']);
    expect(seen!.headers.connection).toBe('keep-alive');
  });

  test('request and answer bodies are streamed: the target sees the first bytes before the client has sent the rest, the client the first part of the answer before the target ends it', async () => {
    const connectionsBefore = connections;
    const part = Buffer.alloc(1024 * 1024, 'a');
    const result = new Promise<{ status: number; firstPart: string; body: Promise<string> }>((resolve, reject) => {
      const outgoing = request(`${plain.url}/v1/spaces/streamed`, { method: 'PATCH', headers: { ...auth, 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (response) => {
        let body = '';
        const ended = new Promise<string>((done) => response.on('end', () => done(body)));
        response.once('data', (chunk: Buffer) => {
          body += chunk;
          resolve({ status: response.statusCode!, firstPart: chunk.toString(), body: ended });
          response.on('data', (more: Buffer) => (body += more));
        });
      });
      outgoing.on('error', reject);
      outgoing.write('{"title":"');
      outgoing.write(part);
      // The rest only once the target has seen the beginning: a proxy that held the body would wait forever.
      void firstBytes.then(() => {
        outgoing.write(part);
        outgoing.end('"}');
      });
    });
    const timeout = (ms: number, what: string) => new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`timed out: ${what}`)), ms));
    await Promise.race([firstBytes, timeout(5_000, 'the target never saw the first bytes')]);
    // The answer's first part arrives while the target still holds the rest back.
    const answer = await Promise.race([result, timeout(5_000, 'the first part of the answer never came')]);
    expect(answer.status).toBe(200);
    expect(answer.firstPart).toBe('{"received":');
    releaseAnswer();
    expect(await answer.body).toBe(`{"received":${2 * part.length + '{"title":"'.length + 2}}`);
    // The proxy's connection to the target was the one of the test before: kept alive.
    expect(connections).toBe(connectionsBefore);
    expect(connections).toBe(1);
  });

  test('a client that goes away mid-answer is not taken for a failure of the target: that answer is not checked', async () => {
    const from = plain.violations.length;
    const notCheckedBefore = plain.report().notChecked.length;
    await new Promise<void>((resolve, reject) => {
      const outgoing = request(`${plain.url}/v1/spaces/hanging`, { headers: auth }, (response) => {
        response.once('data', () => {
          outgoing.destroy();
          resolve();
        });
      });
      outgoing.on('error', () => undefined);
      outgoing.on('close', resolve);
      outgoing.on('timeout', () => reject(new Error('no answer')));
      outgoing.end();
    });
    await plain.idle();
    expect(plain.violations.slice(from)).toEqual([]);
    expect(plain.report().notChecked.slice(notCheckedBefore)).toEqual([
      expect.objectContaining({ side: 'implementation', operationId: 'getSpace', status: 200, reason: 'the client closed the connection before the answer ended' }),
    ]);
  });
});

describe('command mode and reports', () => {
  const script = (body: string) => [process.execPath, '--input-type=module', '-e', body];
  const call = (target: string) => `const answer = await fetch(process.env.DOCS_API_URL + ${JSON.stringify(target)}, { headers: { authorization: 'Bearer ${TOKEN}' } }); process.exit(answer.status === 200 ? 0 : 9);`;

  async function run(command: string[], name: string): Promise<{ exitCode: number; lines: string[]; report: ProxyReport; json: ProxyReport; xml: string }> {
    const lines: string[] = [];
    const reportFile = path.join(scratch, `${name}.json`);
    const junitFile = path.join(scratch, `${name}.xml`);
    const { exitCode, report } = await runProxyCommand({ target: reference.url, command, report: reportFile, junit: junitFile, stderr: (line) => lines.push(line) });
    return { exitCode, lines, report, json: JSON.parse(readFileSync(reportFile, 'utf8')) as ProxyReport, xml: readFileSync(junitFile, 'utf8') };
  }
  const parseJunit = (xml: string) =>
    new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => ['testsuite', 'testcase'].includes(name) }).parse(xml) as {
      testsuites: { tests: string; failures: string; testsuite: { name: string; testcase: { name: string; failure?: { message: string } }[] }[] };
    };

  test('a command that makes a good call exits 0; one that makes a bad call exits 1 with the violation printed; one that fails exits with its code', async () => {
    const [good, bad, failing] = await Promise.all([
      run(script(call('/v1/orgs/acme/spaces?limit=2')), 'good'),
      // No check of its own: it exits 0, and the proxy's verdict makes it 1.
      run(script(`await fetch(process.env.DOCS_API_URL + '/v1/orgs/acme/spaces?limit=0', { headers: { authorization: 'Bearer ${TOKEN}' } });`), 'bad'),
      run(script('process.exit(3)'), 'failing'),
    ]);

    expect(good.exitCode).toBe(0);
    expect(good.lines[0]).toMatch(/^docs-conformance proxy: http:\/\/127\.0\.0\.1:\d+ -> http:\/\/127\.0\.0\.1:\d+$/);
    expect(good.lines.at(-1)).toBe('docs-conformance proxy: 1 request, 0 client violations, 0 implementation violations');
    expect(good.json).toEqual(JSON.parse(JSON.stringify(good.report)));
    expect(good.json.command).toMatchObject({ exitCode: 0, signal: null });
    expect(good.json.coverage.operations.listSpaces).toEqual({ declared: expect.arrayContaining(['200', '400', '401']), seen: ['200'] });
    const goodJunit = parseJunit(good.xml);
    expect(goodJunit.testsuites).toMatchObject({ tests: '2', failures: '0' });
    expect(goodJunit.testsuites.testsuite.map((suite) => suite.testcase.map((testcase) => testcase.name))).toEqual([['listSpaces'], ['listSpaces']]);

    expect(bad.exitCode).toBe(1);
    expect(bad.lines).toContainEqual(expect.stringMatching(/^✗ client: listSpaces GET \/v1\/orgs\/acme\/spaces\?limit=0 400: query parameter limit: query\.limit must be >= 1 \[\/query\/limit = "0"\]$/));
    expect(bad.lines.at(-1)).toBe('docs-conformance proxy: 1 request, 1 client violation, 0 implementation violations');
    expect(bad.json.summary).toEqual({ requests: 1, clientViolations: 1, implementationViolations: 0, notChecked: 0 });
    expect(bad.json.violations).toEqual([expect.objectContaining({ side: 'client', operationId: 'listSpaces', pointer: '/query/limit', value: '0', status: 400 })]);
    const badJunit = parseJunit(bad.xml);
    expect(badJunit.testsuites.failures).toBe('1');
    const requestSuite = badJunit.testsuites.testsuite.find((suite) => suite.name === 'request')!;
    expect(requestSuite.testcase[0]!.failure!.message).toContain('query.limit must be >= 1');

    expect(failing.exitCode).toBe(3);
    expect(failing.lines.at(-1)).toBe('docs-conformance proxy: 0 requests, 0 client violations, 0 implementation violations');
    expect(failing.json.command).toMatchObject({ exitCode: 3 });
  });

  test('a command that sends nothing through the proxy fails the run, naming DOCS_API_URL; --min-requests raises the bar', async () => {
    const [silent, one, enough] = await Promise.all([
      // A suite whose client goes straight to the implementation: every call answered, none through the proxy.
      run(script(`const answer = await fetch(${JSON.stringify(reference.url)} + '/v1/orgs/acme', { headers: { authorization: 'Bearer ${TOKEN}' } }); process.exit(answer.status === 200 ? 0 : 9);`), 'silent'),
      runProxyCommand({ target: reference.url, command: script(call('/v1/orgs/acme/spaces?limit=2')), minRequests: 2, stderr: () => undefined }),
      runProxyCommand({
        target: reference.url,
        command: script(`for (const target of ['/v1/orgs/acme/spaces?limit=2', '/v1/orgs/acme']) await fetch(process.env.DOCS_API_URL + target, { headers: { authorization: 'Bearer ${TOKEN}' } });`),
        minRequests: 2,
        stderr: () => undefined,
      }),
    ]);
    expect(silent.exitCode).toBe(1);
    expect(silent.lines.at(-1)).toBe('docs-conformance proxy: 0 requests, 0 client violations, 0 implementation violations');
    expect(silent.lines.at(-2)).toMatch(
      /^docs-conformance proxy: no request went through the proxy, so nothing was checked: the command's client must send its requests to DOCS_API_URL \(http:\/\/127\.0\.0\.1:\d+, set in its environment\), as createDocsClient\(\{ baseUrl: process\.env\.DOCS_API_URL \}\) does$/,
    );
    expect(silent.json).toMatchObject({ minRequests: 1, summary: { requests: 0 } });
    const traffic = parseJunit(silent.xml).testsuites.testsuite.find((suite) => suite.name === 'traffic');
    expect(traffic?.testcase).toEqual([expect.objectContaining({ name: 'requests', failure: expect.objectContaining({ message: expect.stringContaining('DOCS_API_URL') }) })]);
    expect(one.exitCode).toBe(1);
    expect(one.report.summary.requests).toBe(1);
    expect(enough.exitCode).toBe(0);
    expect(enough.report.summary.requests).toBe(2);
  });

  test('with nothing answering at the target, the command is not run: exit 3 at once, naming the target', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const target = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));
    const marker = path.join(scratch, 'ran');
    const lines: string[] = [];
    const { exitCode } = await runProxyCommand({ target, command: script(`(await import('node:fs')).writeFileSync(${JSON.stringify(marker)}, '')`), stderr: (line) => lines.push(line) });
    expect(exitCode).toBe(3);
    expect(lines.at(-1)).toBe(`docs-conformance proxy: nothing answers at ${target} (ECONNREFUSED): start the implementation there, or check --target; the command was not run`);
    expect(existsSync(marker)).toBe(false);
  });

  test('the coverage record: its table and summary, and records merged', () => {
    const contract = loadContract();
    const a = emptyCoverage(contract);
    const b = emptyCoverage(contract);
    recordAnswer(a, contract.operations.get('createSpace')!, 201);
    expect(recordAnswer(b, contract.operations.get('createSpace')!, 400)).toBe('400');
    expect(recordAnswer(b, contract.operations.get('createSpace')!, 418)).toBeUndefined();
    const merged = mergeCoverage(a, b);
    expect(merged.operations.createSpace!.seen).toEqual(['201', '400']);
    const summary = coverageSummary(merged);
    expect(summary.operations).toEqual({ seen: 1, total: contract.operations.size });
    expect(summary.responses.seen).toBe(2);
    expect(summary.responses.total).toBe([...contract.operations.values()].reduce((sum, operation) => sum + Object.keys(operation.responses).length, 0));
    const table = coverageMarkdown(merged, { seenOnly: true }).split('\n');
    expect(table[0]).toBe(`1/${contract.operations.size} operations seen, 2/${summary.responses.total} declared responses seen (${((200 / summary.responses.total)).toFixed(1)} %).`);
    const header = table[2]!.split('|').map((cell) => cell.trim());
    const row = table[4]!.split('|').map((cell) => cell.trim());
    expect(row[1]).toBe('`createSpace`');
    expect(row[header.indexOf('201')]).toBe('✓');
    expect(row[header.indexOf('400')]).toBe('✓');
    expect(row[header.indexOf('401')]).toBe('·');
    expect(table).toHaveLength(6);
  });

  test('a status that declares several media types is covered per media type', () => {
    const contract = loadContract({
      openapi: '3.1.0',
      info: { title: 'x', version: '1' },
      paths: {
        '/x': {
          get: {
            operationId: 'getX',
            responses: {
              '200': { description: 'x', content: { 'application/json': { schema: {} }, 'text/markdown': { schema: {} } } },
              '4XX': { description: 'x', content: { 'application/json': { schema: {} } } },
            },
          },
        },
      },
    });
    const operation = contract.operations.get('getX')!;
    const coverage = emptyCoverage(contract);
    expect(coverage.operations.getX!.declared).toEqual(['200 application/json', '200 text/markdown', '4XX']);
    expect(recordAnswer(coverage, operation, 200, 'text/markdown; charset=utf-8')).toBe('200 text/markdown');
    expect(recordAnswer(coverage, operation, 200)).toBeUndefined();
    expect(recordAnswer(coverage, operation, 404, 'application/json')).toBe('4XX');
    expect(coverage.operations.getX!.seen).toEqual(['200 text/markdown', '4XX']);
  });
});

describe('the command line', () => {
  function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'conformance/cli.ts', 'proxy', ...args], { cwd: repoRoot, env: { ...process.env, ...env } });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
  }

  test('--help, usage errors (exit 2, one line), and a command run through it', { timeout: 30_000 }, async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const nowhere = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));
    const [help, noTarget, unknown, badPort, badMinimum, silent, run] = await Promise.all([
      cli(['--help']),
      cli([]),
      cli(['--target', reference.url, '--colour']),
      cli(['--target', reference.url, '--port', '70000']),
      cli(['--target', reference.url, '--min-requests', 'some']),
      cli(['--target', nowhere, '--', process.execPath, '-e', 'process.stdout.write("ran")']),
      cli(['--target', reference.url, '--', process.execPath, '--input-type=module', '-e', `const answer = await fetch(process.env.DOCS_API_URL + '/v1/orgs/acme', { headers: { authorization: 'Bearer ${TOKEN}' } }); console.log(answer.status);`]),
    ]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: docs-conformance proxy --target URL/);
    expect(help.stdout).toContain('Exit codes:');
    for (const [outcome, message] of [
      [noTarget, '--target is required'],
      [unknown, "Unknown option '--colour'"],
      [badPort, '--port must be an integer from 0 to 65535'],
      [badMinimum, '--min-requests must be an integer from 0 to'],
    ] as const) {
      expect(outcome.code).toBe(2);
      expect(outcome.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(outcome.stderr).toContain(message);
    }
    expect(silent.code).toBe(3);
    expect(silent.stdout).toBe('');
    expect(silent.stderr.trimEnd().split('\n').at(-1)).toBe(`docs-conformance proxy: nothing answers at ${nowhere} (ECONNREFUSED): start the implementation there, or check --target; the command was not run`);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('200\n');
    const lines = run.stderr.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^docs-conformance proxy: http:\/\/127\.0\.0\.1:\d+ -> /);
    expect(lines.at(-1)).toBe('docs-conformance proxy: 1 request, 0 client violations, 0 implementation violations');
  });

  test('without a command it runs until SIGTERM, then writes its report and exits 1 for the violation it saw', { timeout: 30_000 }, async () => {
    const reportFile = path.join(scratch, 'until-signal.json');
    const child = spawn(process.execPath, ['--import', 'tsx', 'conformance/cli.ts', 'proxy', '--target', reference.url, '--report', reportFile], { cwd: repoRoot });
    let stderr = '';
    const address = new Promise<string>((resolve) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk;
        const found = /^docs-conformance proxy: (http:\S+) -> /m.exec(stderr);
        if (found) resolve(found[1]!);
      });
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const url = await address;
    expect((await fetch(`${url}/v1/orgs/acme/spaces?limit=2`, { headers: auth })).status).toBe(200);
    expect((await fetch(`${url}/v1/orgs/acme/spaces?limit=2000`, { headers: auth })).status).toBe(400);
    child.kill('SIGTERM');
    expect(await exited).toBe(1);
    expect(stderr.trimEnd().split('\n').at(-1)).toBe('docs-conformance proxy: 2 requests, 1 client violation, 0 implementation violations');
    const report = JSON.parse(readFileSync(reportFile, 'utf8')) as ProxyReport;
    expect(report.violations).toEqual([expect.objectContaining({ side: 'client', pointer: '/query/limit', value: '2000' })]);
    expect(report).not.toHaveProperty('command');
  });
});
