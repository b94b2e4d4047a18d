// The server as a development target, without a browser (test/tooling/browser.test.ts has the browser): the contract it
// serves (/openapi.json, /openapi.yaml), its health (/health), CORS (CORS_ORIGINS), and its log (one line per
// request, JSON or LOG_FORMAT=pretty). These pages are the reference server's, not the API's: they are outside the
// contract, need no token, and the validator leaves them alone.
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { describe, expect, test, vi } from 'vitest';
import { readConfig, ConfigError } from '../../server/common/config.ts';
import { createLogger, prettyLine } from '../../server/http/access-log.ts';
import { CONTRACT_PATH, contractOperations, loadContract, parseContractYaml } from '../../server/http/contract.ts';
import { cors } from '../../server/http/cors.ts';
import { ACME } from '../support/fixture.ts';
import { expectError, ok } from '../support/expect.ts';
import { useTestServer } from '../support/server.ts';

const contractYaml = readFileSync(CONTRACT_PATH, 'utf8');
const contract = parseContractYaml(contractYaml) as unknown as { info: { version: string }; paths: Record<string, Record<string, unknown>>; servers: { description?: string }[] };
const packageVersion = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
const OWN_PATHS = ['/health', '/openapi.json', '/openapi.yaml', '/docs'];

const APP_ORIGIN = 'http://app.example.test:8080';
const lines: string[] = [];
const ctx = useTestServer({
  env: { CORS_ORIGINS: `${APP_ORIGIN}, https://other.example.test`, LOG_REQUESTS: '1' },
  log: createLogger({ logLevel: 'info', logFormat: 'json' }, { write: (line: string) => lines.push(line) }),
});

/** A second server: CORS off (the default), another PUBLIC_URL, pretty logs; its database is closed by the last test. */
const pretty: string[] = [];
const PUBLIC_URL = 'https://api.example.test/docs-api';
const other = useTestServer({
  env: { PUBLIC_URL, LOG_REQUESTS: '1' },
  recordCoverage: false,
  log: createLogger({ logLevel: 'info', logFormat: 'pretty' }, { write: (text: string) => pretty.push(text) }),
});

/** The access-log line of the request with this id (written when the answer is finished, so waited for). */
const accessLine = (requestId: string | null) =>
  vi.waitFor(() => {
    const line = lines.map((text) => JSON.parse(text) as Record<string, unknown>).find((entry) => entry.requestId === requestId);
    if (!line) throw new Error(`no log line for request ${requestId}`);
    return line;
  });

describe('the served contract', () => {
  test('/openapi.json is generated/openapi.yaml with this server as its only server', async () => {
    const response = await fetch(`${ctx.server.url}/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const served = (await response.json()) as typeof contract;
    expect(served.servers).toEqual([{ url: ctx.server.url, description: contract.servers[0]!.description }]);
    expect({ ...served, servers: undefined }).toEqual({ ...contract, servers: undefined });
  });

  test('/openapi.yaml is the committed text but for its servers block, and parses to the JSON', async () => {
    const response = await fetch(`${ctx.server.url}/openapi.yaml`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/yaml/);
    const text = await response.text();
    const json = await (await fetch(`${ctx.server.url}/openapi.json`)).json();
    expect(parseContractYaml(text)).toEqual(json);
    const withoutServers = (yaml: string) => yaml.replace(/^servers:\n(?:[ -].*\n)*/m, '');
    expect(withoutServers(text)).toBe(withoutServers(contractYaml));
    expect(text).not.toBe(contractYaml);
  });

  test('PUBLIC_URL is the server of the served contract', async () => {
    const url = other.server.url;
    const served = (await (await fetch(`${url}/openapi.json`)).json()) as typeof contract;
    expect(served.servers).toEqual([{ url: PUBLIC_URL, description: contract.servers[0]!.description }]);
    expect(parseContractYaml(await (await fetch(`${url}/openapi.yaml`)).text()).servers).toEqual(served.servers);
  });
});

describe('the server pages are outside the contract', () => {
  test('the contract has none of them: other implementations are not expected to serve them', () => {
    const paths = Object.keys(contract.paths);
    expect(paths.filter((path) => OWN_PATHS.some((own) => path === own || path.startsWith(`${own}/`)))).toEqual([]);
    expect(paths.every((path) => path.startsWith('/v1/'))).toBe(true);
  });

  test('they need no token, ignore a bad token, and the validator leaves their query alone', async () => {
    for (const path of OWN_PATHS) {
      for (const headers of [{}, { authorization: 'Bearer nobody-has-this-token' }] as Record<string, string>[]) {
        const response = await fetch(`${ctx.server.url}${path}?unknown=1`, { headers });
        expect(response.status, path).toBe(200);
      }
    }
  });
});

describe('GET /', () => {
  test('leads to the reference: a redirect to /docs, under the path of PUBLIC_URL', async () => {
    const root = await fetch(`${ctx.server.url}/`, { redirect: 'manual' });
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/docs');
    const followed = await fetch(`${ctx.server.url}/`);
    expect(followed.url).toBe(`${ctx.server.url}/docs`);
    expect(await followed.text()).toContain('swagger-ui-bundle.js');
    const behindPath = await fetch(`${other.server.url}/`, { redirect: 'manual' });
    expect(behindPath.headers.get('location')).toBe('/docs-api/docs');
  });
});

describe('/health', () => {
  test('reports the status, the versions and a reachable database', async () => {
    const response = await fetch(`${ctx.server.url}/health`);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.json()).toEqual({
      status: 'ok',
      version: packageVersion,
      contractVersion: contract.info.version,
      database: 'reachable',
      storage: 'ok',
      engine: ctx.server.running.ctx.store.engine,
    });
  });
});

describe('CORS', () => {
  /** The path of the contract with the most methods, with its parameters filled. */
  const [template, item] = Object.entries(contract.paths).sort((a, b) => Object.keys(b[1]).length - Object.keys(a[1]).length)[0]!;
  const path = template.replace(/\{[^}]+\}/g, 'abc');
  // HEAD beside GET: the server answers it wherever GET is (server/http/head.ts).
  const methods = [...Object.keys(item), ...('get' in item ? ['head'] : [])].map((method) => method.toUpperCase()).sort();
  const exposed = new Set<string>(['x-request-id', 'x-contract-answer']);
  for (const operationItem of Object.values(contract.paths)) {
    for (const operation of Object.values(operationItem) as { responses: Record<string, { headers?: object }> }[]) {
      for (const response of Object.values(operation.responses)) Object.keys(response.headers ?? {}).forEach((name) => exposed.add(name.toLowerCase()));
    }
  }
  const preflight = (url: string, origin: string, method = 'POST') =>
    fetch(`${url}${path}`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'authorization, content-type' },
    });

  test('a preflight from an allowed origin is answered 204 with the methods and headers the contract uses', async () => {
    expect(methods.length).toBeGreaterThan(1);
    const response = await preflight(ctx.server.url, APP_ORIGIN);
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
    expect(response.headers.get('access-control-allow-methods')!.split(', ')).toEqual(methods);
    expect(response.headers.get('access-control-allow-headers')!.split(', ')).toEqual(['authorization', 'content-type']);
    expect(response.headers.get('access-control-max-age')).toMatch(/^\d+$/);
    expect(response.headers.get('vary')).toMatch(/Origin/);
  });

  test('an answer to an allowed origin allows it and exposes the response headers the contract declares', async () => {
    expect(exposed.has('location')).toBe(true);
    const response = await fetch(`${ctx.server.url}/v1/orgs`, { headers: { origin: APP_ORIGIN, authorization: 'Bearer admin' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
    expect(new Set(response.headers.get('access-control-expose-headers')!.split(', '))).toEqual(exposed);
    expect(response.headers.get('vary')).toMatch(/Origin/);
    const health = await fetch(`${ctx.server.url}/health`, { headers: { origin: 'https://other.example.test' } });
    expect(health.headers.get('access-control-allow-origin')).toBe('https://other.example.test');
  });

  test('another origin gets no CORS header, and its preflight is answered as without CORS', async () => {
    const response = await preflight(ctx.server.url, 'http://evil.example.test');
    expect(response.status).toBe(405);
    expect([...response.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([]);
    const get = await fetch(`${ctx.server.url}/v1/orgs`, { headers: { origin: 'http://evil.example.test', authorization: 'Bearer admin' } });
    expect(get.headers.get('access-control-allow-origin')).toBeNull();
  });

  test('off by default', async () => {
    const refused = await preflight(other.server.url, APP_ORIGIN);
    expect(refused.status).toBe(405);
    expect([...refused.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([]);
    const get = await fetch(`${other.server.url}/v1/orgs`, { headers: { origin: APP_ORIGIN, authorization: 'Bearer admin' } });
    expect(get.status).toBe(200);
    expect(get.headers.get('access-control-allow-origin')).toBeNull();
    expect(get.headers.get('vary')).toBeNull();
  });

  test('* allows every origin', async () => {
    // The middleware the server installs for CORS_ORIGINS=*, in an app of its own (no second database needed).
    const app = express();
    app.use(cors(loadContract(), readConfig({ CORS_ORIGINS: '*' }).corsOrigins));
    app.use((_req, res) => void res.status(405).end());
    const listening = app.listen(0, '127.0.0.1');
    await once(listening, 'listening');
    try {
      const allowed = await preflight(`http://127.0.0.1:${(listening.address() as AddressInfo).port}`, 'http://anywhere.example.test', 'DELETE');
      expect(allowed.status).toBe(204);
      expect(allowed.headers.get('access-control-allow-origin')).toBe('*');
      expect(allowed.headers.get('access-control-allow-methods')!.split(', ')).toEqual(methods);
    } finally {
      listening.close();
    }
  });

  test('a malformed CORS_ORIGINS stops start-up naming the variable', () => {
    for (const value of ['app.example.test', 'https://app.example.test/path', 'ftp://app.example.test', '*, https://a.example.test']) {
      expect(() => readConfig({ CORS_ORIGINS: value }), value).toThrow(ConfigError);
      expect(() => readConfig({ CORS_ORIGINS: value }), value).toThrow(/^CORS_ORIGINS/);
    }
    expect(readConfig({ CORS_ORIGINS: 'https://a.example.test/, http://127.0.0.1:5173' }).corsOrigins).toEqual([
      'https://a.example.test',
      'http://127.0.0.1:5173',
    ]);
    expect(readConfig({}).corsOrigins).toEqual([]);
  });
});

describe('the access log', () => {
  test('one info line per request: method, path, operation id, status, duration, request id', async () => {
    const { response } = await ctx.server.as('admin').GET('/v1/orgs/{organizationId}', { params: { path: { organizationId: ACME } } });
    expect(response.status).toBe(200);
    const line = await accessLine(response.headers.get('x-request-id'));
    expect(line).toMatchObject({ level: 30, msg: 'request', method: 'GET', path: `/v1/orgs/${ACME}`, status: 200 });
    const getOrganization = contractOperations(contract as never).find(
      (operation) => operation.method === 'get' && operation.path === '/v1/orgs/{organizationId}',
    )!.operationId;
    expect(line.operationId).toBe(getOrganization);
    expect(typeof line.ms).toBe('number');
    expect(line.reason).toBeUndefined();
    const health = await fetch(`${ctx.server.url}/health?x=1`);
    expect(await accessLine(health.headers.get('x-request-id'))).toMatchObject({ method: 'GET', path: '/health', status: 200 });
  });

  test('an error answer carries the reason the client was given', async () => {
    const bad = await ctx.server.as('admin').GET('/v1/orgs', { params: { query: { limit: 0 } } });
    const message = expectError(bad, 400);
    expect(message).toMatch(/^query\.limit/);
    expect(await accessLine(bad.response.headers.get('x-request-id'))).toMatchObject({ status: 400, reason: message });
    const anonymous = await ctx.server.as('anonymous').GET('/v1/orgs');
    expect(await accessLine(anonymous.response.headers.get('x-request-id'))).toMatchObject({
      status: 401,
      operationId: expect.any(String),
      reason: expectError(anonymous, 401),
    });
    const missing = await fetch(`${ctx.server.url}/no-such-page`);
    expect(await accessLine(missing.headers.get('x-request-id'))).toMatchObject({ status: 404, reason: 'No route GET /no-such-page' });
  });

  test('LOG_FORMAT=pretty writes one readable line per request', async () => {
    const server = other.server;
    const answer = ok(await server.as('admin').GET('/v1/orgs/{organizationId}', { params: { path: { organizationId: ACME } } }));
    expect(answer.id).toBe(ACME);
    const bad = await server.as('admin').GET('/v1/orgs', { params: { query: { limit: 0 } } });
    const id = bad.response.headers.get('x-request-id')!;
    const line = await vi.waitFor(() => {
      const found = pretty.find((text) => text.includes(id));
      if (!found) throw new Error('no pretty line');
      return found;
    });
    expect(line).toMatch(
      new RegExp(`^\\d\\d:\\d\\d:\\d\\d\\.\\d{3} INFO  GET /v1/orgs 400 [\\d.]+ ms \\w+ \\[${id}\\] - query\\.limit: .+\\n$`),
    );
    expect(line.split('\n')).toHaveLength(2);
    expect(pretty.some((text) => /INFO  GET \/v1\/orgs\/acme 200 [\d.]+ ms \w+ \[/.test(text))).toBe(true);
    expect(pretty.every((text) => !text.startsWith('{'))).toBe(true);
  });

  test('pretty lines of other entries: the message, the fields, an error stack below', () => {
    const time = Date.UTC(2026, 0, 2, 3, 4, 5, 6);
    expect(prettyLine(JSON.stringify({ level: 40, time, pid: 1, hostname: 'h', msg: 'git import failed', spaceId: 's1' }))).toBe(
      '03:04:05.006 WARN  git import failed spaceId=s1\n',
    );
    const withError = prettyLine(JSON.stringify({ level: 50, time, msg: 'boom', err: { message: 'bad', stack: 'Error: bad\n    at f (x.ts:1)' } }));
    expect(withError).toBe('03:04:05.006 ERROR boom\n  Error: bad\n      at f (x.ts:1)\n');
  });

  test('LOG_FORMAT is json or pretty (auto when unset)', () => {
    expect(readConfig({}).logFormat).toBe('auto');
    expect(readConfig({ LOG_FORMAT: 'pretty' }).logFormat).toBe('pretty');
    expect(() => readConfig({ LOG_FORMAT: 'text' })).toThrow(/^LOG_FORMAT must be one of json, pretty, got "text"$/);
  });
});

describe('/health of a server that lost its database', () => {
  test('answers 503', async () => {
    expect((await fetch(`${other.server.url}/health`)).status).toBe(200);
    await other.server.running.ctx.jobs.idle();
    await other.server.running.ctx.store.close();
    const response = await fetch(`${other.server.url}/health`);
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ status: 'unavailable', database: 'unreachable' });
  });
});
