// No body is silently dropped: a request that carries a body without a Content-Type is refused with a 415 naming
// application/json on every operation that takes a body, and writes nothing; a request without a body (no length,
// `Content-Length: 0`, a chunked body that ends empty) needs no Content-Type. What the client sent is never replaced
// by the operation's defaults.
import { request as httpRequest } from 'node:http';
import { describe, expect, test } from 'vitest';
import { contractOperations, loadContract } from '../../server/http/contract.ts';
import { ok } from '../support/expect.ts';
import { extendFixture } from '../support/fixture.ts';
import { useTestServer } from '../support/server.ts';

const contract = loadContract();
const ctx = useTestServer({ fixture: extendFixture({ acme: { spaces: [{ id: 'handbook', title: 'Handbook' }] } }) });
const acme = { params: { path: { organizationId: 'acme' } } };

/** One request over node:http: `body` framed by its length, or sent in chunks (`chunks`), and no other header. */
function send(method: string, path: string, init: { body?: string; chunks?: string[]; headers?: Record<string, string> }) {
  return new Promise<{ status: number; json: any }>((resolve, reject) => {
    const headers: Record<string, string> = { authorization: 'Bearer admin', ...init.headers };
    if (init.body !== undefined) headers['content-length'] = String(Buffer.byteLength(init.body));
    if (init.chunks !== undefined) headers['transfer-encoding'] = 'chunked';
    const request = httpRequest(`${ctx.server.url}${path}`, { method, headers }, (response) => {
      const parts: Buffer[] = [];
      response.on('data', (chunk: Buffer) => parts.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8');
        resolve({ status: response.statusCode!, json: text ? JSON.parse(text) : undefined });
      });
      response.on('error', reject);
    });
    request.on('error', reject);
    for (const chunk of init.chunks ?? []) request.write(chunk);
    request.end(init.body);
  });
}

const spaceCount = async () => ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/spaces', acme)).count;
const titles = async () => ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/spaces', { params: { ...acme.params, query: { limit: 1000 } } })).items.map((space) => space.title);
const changes = () => ctx.server.running.ctx.store.changeCount();

describe('a body without a Content-Type', () => {
  test('is a 415 naming application/json, and the space is not created with defaults instead', async () => {
    const before = await spaceCount();
    for (const init of [{ body: '{"title":"alpha kilo"}' }, { chunks: ['{"title":', '"alpha kilo"}'] }, { body: '{"title":"alpha kilo"}', headers: { 'content-type': '' } }]) {
      const answer = await send('POST', '/v1/orgs/acme/spaces', init);
      expect(answer.status, JSON.stringify(answer.json)).toBe(415);
      expect(answer.json.error.code).toBe(415);
      expect(answer.json.error.message).toContain('application/json');
      expect(answer.json.error.message).toContain('no Content-Type');
    }
    expect(await spaceCount()).toBe(before);
    expect(await titles()).not.toContain('Untitled');
    // The same body, typed, is read.
    const created = await send('POST', '/v1/orgs/acme/spaces', { body: '{"title":"alpha kilo"}', headers: { 'content-type': 'application/json' } });
    expect(created.status).toBe(201);
    expect(created.json.title).toBe('alpha kilo');
  });

  test('a request with no body needs no Content-Type: no length, a length of 0, or chunks that end empty', async () => {
    for (const init of [{}, { body: '' }, { chunks: [] }]) {
      const answer = await send('POST', '/v1/orgs/acme/spaces', init);
      expect(answer.status, JSON.stringify(answer.json)).toBe(201);
      expect(answer.json.title).toBe('Untitled');
    }
  });

  test('is a 415 on every operation that takes a body, before its handler, and writes nothing', async () => {
    const taking = contractOperations(contract).filter((operation) => contract.paths[operation.path]![operation.method]!.requestBody !== undefined);
    expect(taking.length).toBeGreaterThan(40);
    // Real resources where the fixture has them, so that a body that got through would reach a handler that writes.
    const values: Record<string, string> = { organizationId: 'acme', spaceId: 'handbook' };
    const before = await changes();
    for (const operation of taking) {
      const declared = Object.keys(contract.paths[operation.path]![operation.method]!.responses as object);
      expect(declared, operation.operationId).toContain('415');
      const path = operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => values[name] ?? 'x-1');
      for (const init of [{ body: '{"title":"alpha kilo"}' }, { chunks: ['{}'] }]) {
        const answer = await send(operation.method.toUpperCase(), path, init);
        expect(answer.status, `${operation.operationId}: ${JSON.stringify(answer.json)}`).toBe(415);
        expect(answer.json.error.message, operation.operationId).toContain('application/json');
      }
    }
    expect(await changes()).toBe(before);
  });
});

describe('the Content-Type the validator is given (http/request-body.ts)', () => {
  test("is the operation's declared media type whatever parameters and case the request's has: the same bodies get the same answers", async () => {
    const bodies = ['{"title":"Acme"}', '{"title":5}', '{"titel":"Acme"}', '{}', '[]', '{"title":""}'];
    const spellings = ['application/json', 'application/json; charset=utf-8', 'Application/JSON; charset=UTF-8; x=1', 'application/json;profile="a;b"'];
    for (const body of bodies) {
      const answers = [];
      for (const contentType of spellings) {
        const answer = await send('PATCH', '/v1/orgs/acme', { body, headers: { 'content-type': contentType } });
        answers.push({ status: answer.status, title: answer.json.title, error: answer.json.error?.message });
      }
      expect(new Set(answers.map((answer) => JSON.stringify(answer))).size, `${body}: ${JSON.stringify(answers)}`).toBe(1);
      expect([200, 400], body).toContain(answers[0]!.status);
    }
  });

  test('a media type the operation does not declare is a 415 naming it, with or without a body, and writes nothing', async () => {
    const before = await changes();
    for (const contentType of ['text/plain', 'application/jsonx', 'TEXT/JSON; charset=utf-8']) {
      for (const init of [{ body: '{"title":"Acme"}' }, {}]) {
        const answer = await send('PATCH', '/v1/orgs/acme', { ...init, headers: { 'content-type': contentType } });
        expect(answer.status, JSON.stringify(answer.json)).toBe(415);
        expect(answer.json.error.message).toContain(`unsupported media type ${contentType.split(';')[0]!.toLowerCase()}`);
      }
    }
    expect(await changes()).toBe(before);
  });

  test('a request whose body is never read is answered the same whatever its Content-Type', async () => {
    const plain = await send('GET', '/v1/orgs/acme/spaces', {});
    for (const contentType of ['application/json; x=1', 'text/plain', 'multipart/form-data; boundary=x', 'nonsense']) {
      const answer = await send('GET', '/v1/orgs/acme/spaces', { headers: { 'content-type': contentType } });
      expect(answer, contentType).toEqual(plain);
    }
  });
});
