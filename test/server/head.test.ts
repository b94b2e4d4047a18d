// HEAD wherever the contract declares GET (server/http/head.ts), over raw sockets against the real server: the GET's
// status and headers, Content-Length included, and not one byte of body; the GET's authentication and validation; a
// 405 names HEAD beside GET, and a path without GET refuses HEAD as it refuses GET.
// What is asked, and what the runner asks: test/README.md, "HEAD on every GET".
import { createConnection } from 'node:net';
import { describe, expect, test } from 'vitest';
import { contractOperations, loadContract } from '../../server/http/contract.ts';
import { ok } from '../support/expect.ts';
import { ACME } from '../support/fixture.ts';
import { useTestServer } from '../support/server.ts';

const contract = loadContract();
const ctx = useTestServer({ recordCoverage: false });

interface RawAnswer {
  status: number;
  /** Lower-case names; Date and x-request-id left out (the time, and one id per request). */
  headers: Record<string, string>;
  /** Every byte the server sent after the header block. */
  body: Buffer;
}

/** One request on a connection of its own (`Connection: close`), read to its end. */
function raw(method: string, path: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  const url = new URL(ctx.server.url);
  return new Promise((resolve, reject) => {
    const socket = createConnection(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      const all = Buffer.concat(chunks);
      const end = all.indexOf('\r\n\r\n');
      const [statusLine, ...lines] = all.subarray(0, end).toString('latin1').split('\r\n');
      const answerHeaders: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        const name = line.slice(0, colon).toLowerCase();
        if (name !== 'date' && name !== 'x-request-id') answerHeaders[name] = line.slice(colon + 1).trim();
      }
      resolve({ status: Number(statusLine!.split(' ')[1]), headers: answerHeaders, body: all.subarray(end + 4) });
    });
    const lines = [`${method} ${path} HTTP/1.1`, `Host: ${url.host}`, 'Connection: close', ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)];
    socket.end(`${lines.join('\r\n')}\r\n\r\n`);
  });
}

const ADMIN = { authorization: 'Bearer admin' };

/** Sends GET then HEAD; the HEAD must answer the GET's status and headers, without a body. Returns the GET's answer. */
async function expectHeadAsGet(path: string, headers: Record<string, string> = ADMIN): Promise<RawAnswer> {
  const get = await raw('GET', path, headers);
  const head = await raw('HEAD', path, headers);
  expect({ status: head.status, headers: head.headers }, `HEAD ${path}`).toEqual({ status: get.status, headers: get.headers });
  expect(head.body.length, `HEAD ${path}: bytes after the headers`).toBe(0);
  expect(Number(get.headers['content-length']), `GET ${path}: Content-Length`).toBe(get.body.length);
  return get;
}

describe('HEAD, wherever GET is', () => {
  test('answers as the GET on resources that exist: an organization, a space, a list (read again: kept in memory)', async () => {
    const space = ok(await ctx.server.as('admin').POST('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId: ACME } }, body: { title: 'Heads' } }), 201);
    for (const path of ['/v1/orgs', `/v1/orgs/${ACME}`, `/v1/spaces/${space.id}`, `/v1/orgs/${ACME}/spaces?limit=1`, `/v1/orgs/${ACME}/spaces?limit=1`]) {
      const get = await expectHeadAsGet(path);
      expect(get.status, path).toBe(200);
      expect(get.headers['content-type']).toBe('application/json; charset=utf-8');
    }
    // Twice in a row, HEAD first: the page the HEAD made (and kept) is the GET's.
    const page = `/v1/orgs/${ACME}/spaces?limit=2`;
    const head = await raw('HEAD', page, ADMIN);
    const get = await raw('GET', page, ADMIN);
    expect(head.headers['content-length']).toBe(String(get.body.length));
  });

  test('with the GET authentication and validation: no token, a wrong one, a caller who may not see, an invalid query, an unknown id', async () => {
    const cases: [string, Record<string, string>, number][] = [
      ['/v1/orgs', {}, 401],
      ['/v1/orgs', { authorization: 'Bearer wrong' }, 401],
      [`/v1/orgs/${ACME}`, { authorization: 'Bearer outsider' }, 404],
      ['/v1/orgs?limit=0', ADMIN, 400],
      ['/v1/orgs?unknown=1', ADMIN, 400],
      ['/v1/spaces/%ZZ', ADMIN, 400],
      ['/v1/spaces/nothing-here', ADMIN, 404],
      // A trailing slash: placed by the validator's own lookup, answered by Express's GET route.
      ['/v1/orgs/', ADMIN, 200],
    ];
    for (const [path, headers, status] of cases) expect((await expectHeadAsGet(path, headers)).status, path).toBe(status);
  });

  test('every GET operation of the contract, on ids that name nothing', async () => {
    const gets = contractOperations(contract).filter((operation) => operation.method === 'get');
    expect(gets.length).toBeGreaterThan(70);
    for (const operation of gets) {
      const required = ((contract.paths[operation.path]!.get.parameters ?? []) as { in?: string; required?: boolean; name?: string }[]).filter((parameter) => parameter.in === 'query' && parameter.required);
      const query = required.length > 0 ? `?${required.map((parameter) => `${parameter.name}=x-1`).join('&')}` : '';
      await expectHeadAsGet(`${operation.path.replace(/\{[^}]+\}/g, 'x-1')}${query}`);
    }
  });

  test('a 405 names HEAD beside GET; a path without GET refuses HEAD, and its Allow names neither', async () => {
    const allowOf = (answer: RawAnswer) => answer.headers.allow!.split(',').map((method) => method.trim()).sort();
    const withGet = await raw('PUT', '/v1/orgs', { ...ADMIN, 'content-type': 'application/json', 'content-length': '2' });
    expect(withGet.status).toBe(405);
    expect(allowOf(withGet)).toEqual(['GET', 'HEAD']);
    const withoutGet = Object.entries(contract.paths).find(([template, item]) => item.get === undefined && !template.includes('{'))
      ?? Object.entries(contract.paths).find(([, item]) => item.get === undefined)!;
    const path = withoutGet[0].replace(/\{[^}]+\}/g, 'x-1');
    const head = await raw('HEAD', path, ADMIN);
    expect(head.status, path).toBe(405);
    expect(head.body.length).toBe(0);
    expect(allowOf(head)).not.toContain('HEAD');
    expect(allowOf(head)).not.toContain('GET');
    expect(allowOf(head)).toEqual(Object.keys(withoutGet[1]).filter((key) => ['put', 'post', 'delete', 'patch'].includes(key)).map((method) => method.toUpperCase()).sort());
  });

  test("the server's own pages answer HEAD as GET", async () => {
    for (const path of ['/health', '/openapi.json', '/openapi.yaml']) expect((await expectHeadAsGet(path, {})).status, path).toBe(200);
  });
});
