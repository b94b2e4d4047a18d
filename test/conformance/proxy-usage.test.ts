// The validating proxy records what a consumer used (`consumer`, `docs-conformance proxy --usage`): per operation
// called, parameters, body fields and the response fields it received, merged across runs into one record; only
// requests the contract accepts, and of an answer that was one alternative of a oneOf, that alternative.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createDocsClient } from '../../client/index.ts';
import { consumerIdentity } from '../../conformance/records/consumer.ts';
import { startProxy } from '../../conformance/proxy/proxy.ts';
import { writeUsage } from '../../conformance/proxy/proxy-command.ts';
import { parseUsageRecord, USAGE_VERSION } from '../../conformance/records/usage-format.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let reference: TestServer;
const scratch = mkdtempSync(path.join(os.tmpdir(), 'proxy-usage-'));

beforeAll(async () => {
  reference = await startTestServer({ recordCoverage: false });
});

afterAll(async () => {
  await reference?.close();
  rmSync(scratch, { recursive: true, force: true });
});

/** A consumer's calls through a proxy that records its usage; the record once the proxy is closed. */
async function consumerRun(name: string, calls: (docs: ReturnType<typeof createDocsClient>) => Promise<void>) {
  const proxy = await startProxy({ target: reference.url, consumer: { name, version: '1.2.0' } });
  try {
    await calls(createDocsClient({ baseUrl: proxy.url, token: 'admin', retry: false }));
    await proxy.idle();
    return proxy.usage()!;
  } finally {
    await proxy.close();
  }
}

test('the proxy records each operation called: its parameters, body fields, statuses, and the response fields received', async () => {
  const usage = await consumerRun('search-service', async (docs) => {
    const created = await docs.POST('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId: 'acme' } }, body: { title: 'Used', editMode: 'live' } });
    await docs.GET('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId: 'acme' }, query: { limit: 2 } } });
    await docs.GET('/v1/spaces/{spaceId}', { params: { path: { spaceId: created.data!.id } } });
    await docs.GET('/v1/spaces/{spaceId}', { params: { path: { spaceId: 'no-such-space' } } });
  });
  expect(usage).toMatchObject({ format: 'docs-platform-usage', version: USAGE_VERSION, consumer: { name: 'search-service', version: '1.2.0' }, recordedBy: ['proxy'] });
  expect(usage.contract.version).toMatch(/^\d+\.\d+\.\d+$/);
  expect(Object.keys(usage.operations).sort()).toEqual(['createSpace', 'getSpace', 'listSpaces']);
  const create = usage.operations.createSpace!;
  expect(create.calls).toBe(1);
  expect(create.parameters).toEqual({ 'path.organizationId': { types: ['string'], lengths: [4, 4] } });
  // The edit mode is an enumeration: its value is kept; of the title, only its type and length.
  expect(create.body).toEqual({ '/title': { types: ['string'], lengths: [4, 4] }, '/editMode': { values: ['live'], types: ['string'], lengths: [4, 4] } });
  expect([create.method, create.path]).toEqual(['post', '/v1/orgs/{organizationId}/spaces']);
  expect(create.mediaTypes).toEqual(['application/json']);
  expect(Object.keys(create.responses)).toEqual(['201 application/json']);
  expect(create.responses['201 application/json']!.present).toEqual(expect.arrayContaining(['/id', '/title', '/visibility', '/urls/location']));
  expect(usage.operations.listSpaces!.parameters).toEqual({ 'path.organizationId': { types: ['string'], lengths: [4, 4] }, 'query.limit': { types: ['integer'], numbers: [2, 2] } });
  expect(usage.operations.listSpaces!.responses['200 application/json']!.present).toEqual(expect.arrayContaining(['/items', '/items/*', '/items/*/id']));
  const read = usage.operations.getSpace!;
  expect(read.calls).toBe(2);
  expect(Object.keys(read.responses).sort()).toEqual(['200 application/json', '404 application/json']);
  expect(read.responses['404 application/json']!.present).toEqual(expect.arrayContaining(['/error', '/error/code', '/error/message']));
});

test('runs of one consumer written to one file merge; a broken file or another consumer\'s is refused, the file unchanged', async () => {
  const file = path.join(scratch, 'usage.json');
  writeUsage(file, await consumerRun('billing', async (docs) => void (await docs.GET('/v1/orgs/{organizationId}', { params: { path: { organizationId: 'acme' } } }))));
  writeUsage(file, await consumerRun('billing', async (docs) => void (await docs.GET('/v1/orgs/{organizationId}', { params: { path: { organizationId: 'acme' } } }))));
  const merged = parseUsageRecord(readFileSync(file, 'utf8'), file);
  expect(merged.operations.getOrganization!.calls).toBe(2);
  const other = await consumerRun('search', async (docs) => void (await docs.GET('/v1/orgs/{organizationId}', { params: { path: { organizationId: 'acme' } } })));
  const before = readFileSync(file, 'utf8');
  expect(() => writeUsage(file, other)).toThrow(`${file}: records of two consumers, search and billing (this run's record is search's)`);
  expect(readFileSync(file, 'utf8')).toBe(before);
  writeFileSync(file, '{"format":"docs-platform-usage"');
  expect(() => writeUsage(file, other)).toThrow(`${file}: not JSON`);
});

test("a consumer is its package.json's name and version unless named, and names the commit of its git checkout", () => {
  writeFileSync(path.join(scratch, 'package.json'), JSON.stringify({ name: 'docs-portal', version: '3.1.4' }));
  expect(consumerIdentity(scratch)).toMatchObject({ name: 'docs-portal', version: '3.1.4' });
  expect(consumerIdentity(scratch, 'portal-e2e')).toEqual(expect.objectContaining({ name: 'portal-e2e' }));
  expect(consumerIdentity(scratch, 'portal-e2e').version).toBeUndefined();
  rmSync(path.join(scratch, 'package.json'));
  expect(() => consumerIdentity(scratch)).toThrow('no consumer name');
});

describe('what happened, and only that', () => {
  // A contract whose answer is one of two covers, and an implementation that answers an image cover to every request.
  const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
  const json = (schema: unknown) => ({ 'application/json': { schema } });
  const contract = {
    openapi: '3.1.0',
    info: { title: 'Covers', version: '1.0.0' },
    paths: {
      '/covers/{coverId}': { get: { operationId: 'getCover', parameters: [{ name: 'coverId', in: 'path', required: true, schema: { type: 'string' } }], responses: { '200': { description: 'The cover.', content: json(ref('Cover')) } } } },
      '/covers': { post: { operationId: 'createCover', requestBody: { required: true, content: json(ref('Cover')) }, responses: { '201': { description: 'Created.', content: json(ref('Cover')) } } } },
    },
    components: {
      schemas: {
        Cover: { oneOf: [ref('ImageCover'), ref('ColorCover')] },
        ImageCover: { type: 'object', required: ['url'], properties: { url: { type: 'string' }, alt: { type: 'string' } } },
        ColorCover: { type: 'object', required: ['color'], properties: { color: { type: 'string' }, alt: { type: 'integer' } } },
      },
    },
  };
  let upstream: http.Server;
  let target = '';
  beforeAll(async () => {
    upstream = http.createServer((request, response) => {
      request.resume();
      request.on('end', () => response.writeHead(request.method === 'POST' ? 201 : 200, { 'content-type': 'application/json' }).end(JSON.stringify({ url: 'https://img.example.com/a.png', alt: 'A' })));
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    target = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => upstream.close(() => resolve())));

  async function through(requests: (url: string) => Promise<unknown>) {
    const proxy = await startProxy({ target, contract, consumer: { name: 'cover-app' } });
    try {
      await requests(proxy.url);
      await proxy.idle();
      return { usage: proxy.usage()!, report: proxy.report() };
    } finally {
      await proxy.close();
    }
  }
  const post = (url: string, body: unknown) => fetch(`${url}/covers`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((answer) => answer.text());

  test('a request the contract refuses is reported, not recorded as usage', async () => {
    const { usage, report } = await through(async (url) => {
      await post(url, { shade: 'dark' }); // neither cover: refused by the contract
      await fetch(`${url}/covers/c1`).then((answer) => answer.text());
    });
    expect(new Set(report.violations.filter((violation) => violation.side === 'client').map((violation) => violation.operationId))).toEqual(new Set(['createCover']));
    expect(Object.keys(usage.operations)).toEqual(['getCover']);
    // The same request, valid, is recorded.
    const valid = await through((url) => post(url, { color: '#fff' }));
    expect(valid.usage.operations.createCover!.body).toEqual({ '/color': { types: ['string'], lengths: [4, 4] } });
  });

  test('an answer that was one alternative of a oneOf records that alternative, and the alternatives it could have been', async () => {
    const { usage } = await through((url) => fetch(`${url}/covers/c1`).then((answer) => answer.text()));
    const answer = usage.operations.getCover!.responses['200 application/json']!;
    expect(answer.schemas).toEqual({ '': ['Cover', 'ImageCover'] });
    expect(answer.choices).toEqual({ '': ['ColorCover', 'ImageCover'] });
    // What the contract promised of `alt` is the image cover's string, not also the color cover's integer.
    expect(answer.promised?.['/alt']?.types).toEqual(['string']);
    // Sent, likewise: the color cover alone.
    const sent = await through((url) => post(url, { color: '#fff' }));
    expect(sent.usage.operations.createCover!.bodySchemas).toEqual({ '': ['ColorCover', 'Cover'] });
  });
});
