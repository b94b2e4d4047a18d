// The typed client's recording mode (conformance/records/recording.ts, `docs-platform-conformance/recording`) against the real
// server: what each call sent and received, what the code read through the views, records of processes merged.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { ApiError, createDocsClient, paginate } from '../../client/index.ts';
import { loadContract } from '../../conformance/contract/contract.ts';
import { startProxy } from '../../conformance/proxy/proxy.ts';
import { flushUsage, mergeUsageRecords, recordingClient, USAGE_VARIABLE } from '../../conformance/records/recording.ts';
import { parseUsageRecord, type UsageRecord, USAGE_VERSION } from '../../conformance/records/usage-format.ts';
import { ACME } from '../support/fixture.ts';
import { repoRoot } from '../support/repo.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const run = promisify(execFile);
const consumer = { name: 'search-service', version: '1.2.0' };
let server: TestServer;
const scratch = mkdtempSync(path.join(os.tmpdir(), 'client-recording-'));
let folders = 0;
/** A new usage folder of this file's own. */
const newFolder = () => path.join(scratch, `usage-${++folders}`);
/** The record this process wrote into `folder`. */
function recordIn(folder: string): UsageRecord {
  flushUsage();
  const files = readdirSync(path.join(folder, 'records'));
  expect(files).toHaveLength(1);
  return parseUsageRecord(readFileSync(path.join(folder, 'records', files[0]!), 'utf8'), files[0]!);
}
const plain = (baseUrl = server.url) => createDocsClient({ baseUrl, token: 'admin', retry: false });

beforeAll(async () => {
  server = await startTestServer({ recordCoverage: false });
});

afterAll(async () => {
  await server?.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('a call recorded', () => {
  test('names what was sent and received, and in `read` exactly the fields the code read', async () => {
    const folder = newFolder();
    const docs = recordingClient(plain(), { folder, consumer });
    const created = await docs.POST('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId: ACME } }, body: { title: 'Recorded', editMode: 'live' } });
    const id = created.data!.id;
    const list = await docs.GET('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId: ACME }, query: { limit: 2 } } });
    const titles = list.data!.items.map((space) => space.title);
    expect(titles).toContain('Recorded');
    const missing = await docs.GET('/v1/spaces/{spaceId}', { params: { path: { spaceId: 'no-such-space' } } });
    expect(missing.status === 404 && missing.error.error.code).toBe(404);
    await docs.DELETE('/v1/spaces/{spaceId}', { params: { path: { spaceId: id } } });

    const record = recordIn(folder);
    expect(record).toMatchObject({ format: 'docs-platform-usage', version: USAGE_VERSION, consumer, recordedBy: ['client'] });
    expect(record.contract).toEqual({ version: loadContract().document.info.version, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(Object.keys(record.operations).sort()).toEqual(['createSpace', 'deleteSpace', 'getSpace', 'listSpaces']);
    const create = record.operations.createSpace!;
    expect({ ...create, responses: undefined }).toEqual({
      calls: 1,
      method: 'post',
      path: '/v1/orgs/{organizationId}/spaces',
      security: ['BearerAuth'],
      parameters: { 'path.organizationId': { types: ['string'], lengths: [ACME.length, ACME.length] } },
      // The edit mode is an enumeration: its value is kept; of the title, its type and length only.
      body: { '/title': { types: ['string'], lengths: [8, 8] }, '/editMode': { values: ['live'], types: ['string'], lengths: [4, 4] } },
      mediaTypes: ['application/json'],
      bodySchemas: { '': ['CreateSpaceRequest'], '/editMode': ['EditMode'] },
      responses: undefined,
    });
    const answer = create.responses['201 application/json']!;
    expect(Object.keys(create.responses)).toEqual(['201 application/json']);
    expect(answer.present).toEqual(expect.arrayContaining(['/id', '/title', '/visibility', '/urls/location']));
    // Only the id was read: the title and the rest were received, not read.
    expect(answer.read).toEqual(['/id']);
    const listed = record.operations.listSpaces!;
    expect(listed.parameters).toEqual({ 'path.organizationId': { types: ['string'], lengths: [ACME.length, ACME.length] }, 'query.limit': { types: ['integer'], numbers: [2, 2] } });
    expect(listed.responses['200 application/json']!.read).toEqual(['/items', '/items/*', '/items/*/title']);
    expect(listed.responses['200 application/json']!.present).toEqual(expect.arrayContaining(['/count', '/items/*/id', '/items/*/visibility']));
    expect(record.operations.getSpace!.responses['404 application/json']!.read).toEqual(['/error', '/error/code']);
    // An answer without a body: its status, nothing read.
    expect(record.operations.deleteSpace!.responses).toEqual({ '204': { present: [], read: [] } });
  });

  test("is what the validating proxy records of the same calls, the fields read beside", async () => {
    const folder = newFolder();
    const proxy = await startProxy({ target: server.url, consumer });
    try {
      const docs = recordingClient(plain(proxy.url), { folder, consumer });
      const created = await docs.POST('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId: ACME } }, body: { title: 'Both', editMode: 'locked' } });
      await docs.PATCH('/v1/spaces/{spaceId}', { params: { path: { spaceId: created.data!.id } }, body: { title: 'Both, renamed' } });
      await docs.GET('/v1/orgs/{organizationId}/members', { params: { path: { organizationId: ACME }, query: { limit: 3, sort: 'name' } } });
      await docs.GET('/v1/spaces/{spaceId}', { params: { path: { spaceId: 'gone' } } });
      await proxy.idle();
      const byClient = recordIn(folder);
      const byProxy = proxy.usage()!;
      for (const usage of Object.values(byClient.operations)) for (const response of Object.values(usage.responses)) delete response.read;
      expect(byClient.operations).toEqual(byProxy.operations);
      expect(byClient.contract).toEqual(byProxy.contract);
    } finally {
      await proxy.close();
    }
  });

  test('in the throwing mode and through paginate: the ApiError body and the items are views too', async () => {
    const folder = newFolder();
    const strict = recordingClient(createDocsClient({ baseUrl: server.url, token: 'admin', retry: false, throwOnError: true }), { folder, consumer });
    const error = await strict.GET('/v1/spaces/{spaceId}', { params: { path: { spaceId: 'no-such-space' } } }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    if (!(error instanceof ApiError) || error.status !== 404) throw new Error('a 404 ApiError was expected');
    expect(error.body.error.message).toMatch(/.+/);
    const roles: unknown[] = [];
    for await (const member of paginate(strict, '/v1/orgs/{organizationId}/members', { params: { path: { organizationId: ACME }, query: { limit: 3 } } })) roles.push(member.role);
    expect(roles).toHaveLength(7);

    const record = recordIn(folder);
    expect(record.operations.getSpace!.responses['404 application/json']!.read).toEqual(['/error', '/error/message']);
    const members = record.operations.listMembers!;
    // Three pages: the first, then each `next.page` followed.
    expect(members.calls).toBe(3);
    expect(Object.keys(members.parameters)).toEqual(['path.organizationId', 'query.limit', 'query.page']);
    expect(members.parameters['query.limit']).toEqual({ types: ['integer'], numbers: [3, 3] });
    // paginate read the items and `next`, the loop each member's role.
    expect(members.responses['200 application/json']!.read).toEqual(['/items', '/items/*', '/items/*/role', '/next', '/next/page']);
  });

  test('an answer that was one alternative of a oneOf records that alternative, and the alternatives it could have been', async () => {
    const folder = newFolder();
    const document = structuredClone(loadContract().document) as { paths: Record<string, Record<string, { responses: Record<string, { content: Record<string, { schema: unknown }> }> }>>; components: { schemas: Record<string, unknown> } };
    // getOrganization's answer: an organization, or a team (which no organization can be: it requires `members`).
    document.components.schemas.Team = { type: 'object', required: ['members'], properties: { id: { type: 'integer' }, members: { type: 'integer' } } };
    document.paths['/v1/orgs/{organizationId}']!.get!.responses['200']!.content['application/json']!.schema = { oneOf: [{ $ref: '#/components/schemas/Organization' }, { $ref: '#/components/schemas/Team' }] };
    const docs = recordingClient(plain(), { folder, consumer, contract: document as never });
    const { data } = await docs.GET('/v1/orgs/{organizationId}', { params: { path: { organizationId: ACME } } });
    expect(typeof data?.id).toBe('string');
    const answer = recordIn(folder).operations.getOrganization!.responses['200 application/json']!;
    expect(answer.schemas?.['']).toEqual(['Organization']);
    expect(answer.choices).toEqual({ '': ['Organization', 'Team'] });
    // What was promised of `id` is the organization's string, not also the team's integer.
    expect(answer.promised?.['/id']?.types).toEqual(['string']);
  });

  test('an operation the contract given does not have is not recorded, and said once', async () => {
    const folder = newFolder();
    const document = structuredClone(loadContract().document);
    delete document.paths['/v1/spaces/{spaceId}']!.get;
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const docs = recordingClient(plain(), { folder, consumer, contract: document });
      await docs.GET('/v1/spaces/{spaceId}', { params: { path: { spaceId: 'a' } } });
      await docs.GET('/v1/spaces/{spaceId}', { params: { path: { spaceId: 'b' } } });
      await docs.GET('/v1/orgs/{organizationId}', { params: { path: { organizationId: ACME } } });
      expect(warn.mock.calls).toEqual([[expect.stringContaining('GET /v1/spaces/{spaceId} is not an operation of (document given in memory), so it is not recorded')]]);
    } finally {
      warn.mockRestore();
    }
    expect(Object.keys(recordIn(folder).operations)).toEqual(['getOrganization']);
  });
});

  test('a call the contract refuses (a body field of the wrong type, no credentials) is made but not recorded, as the proxy does; said once per operation', async () => {
    const folder = newFolder();
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const docs = recordingClient(plain(), { folder, consumer });
      const anonymous = recordingClient(createDocsClient({ baseUrl: server.url, retry: false }), { folder, consumer });
      const wrong = { title: 7, editMode: 'live' } as unknown as { title: string; editMode: 'live' };
      for (let call = 0; call < 2; call++) {
        const refused = await docs.POST('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId: ACME } }, body: wrong });
        expect(refused.response.status).toBe(400);
      }
      expect((await anonymous.GET('/v1/orgs/{organizationId}', { params: { path: { organizationId: ACME } } })).response.status).toBe(401);
      const accepted = await docs.GET('/v1/orgs/{organizationId}', { params: { path: { organizationId: ACME } } });
      expect(accepted.response.status).toBe(200);
      expect(warn.mock.calls).toEqual([
        [expect.stringMatching(/a call of createSpace is not recorded, as the contract refuses it: .*title/)],
        [expect.stringMatching(/a call of getOrganization is not recorded, as the contract refuses it: .*(credential|[Aa]uthoriz)/)],
      ]);
    } finally {
      warn.mockRestore();
    }
    const record = recordIn(folder);
    expect(Object.keys(record.operations)).toEqual(['getOrganization']);
    expect(record.operations.getOrganization!.calls).toBe(1);
  });

describe('the views', () => {
  test('behave as the data for the code: JSON, equality, arrays, spreading, `in`, identity', async () => {
    const folder = newFolder();
    const docs = recordingClient(plain(), { folder, consumer });
    const query = { params: { path: { organizationId: ACME }, query: { limit: 4 } } } as const;
    const viewed = (await docs.GET('/v1/orgs/{organizationId}/members', query)).data!;
    const raw = (await plain().GET('/v1/orgs/{organizationId}/members', query)).data!;
    expect(viewed).toEqual(raw);
    expect(raw).toEqual(viewed);
    expect(JSON.stringify(viewed)).toBe(JSON.stringify(raw));
    expect(JSON.parse(JSON.stringify(viewed))).toStrictEqual(raw);
    expect({ ...viewed }).toEqual({ ...raw });
    expect(Object.keys(viewed)).toEqual(Object.keys(raw));
    expect(Object.entries(viewed.items[0]!)).toEqual(Object.entries(raw.items[0]!));
    expect(Array.isArray(viewed.items)).toBe(true);
    expect(viewed.items.length).toBe(raw.items.length);
    expect(viewed.items.map((member) => member.user.id)).toEqual(raw.items.map((member) => member.user.id));
    expect([...viewed.items].map((member) => member.role)).toEqual(raw.items.map((member) => member.role));
    expect(viewed.items.filter((member) => member.role === 'admin')).toHaveLength(raw.items.filter((member) => member.role === 'admin').length);
    expect(viewed.items.at(-1)!.user.displayName).toBe(raw.items.at(-1)!.user.displayName);
    expect(viewed.items.includes(viewed.items[1]!)).toBe(true);
    expect(viewed.items.find((member) => member.user.id === raw.items[2]!.user.id)).toEqual(raw.items[2]);
    const ids: string[] = [];
    for (const member of viewed.items) ids.push(member.user.id);
    expect(ids).toEqual(raw.items.map((member) => member.user.id));
    expect('next' in viewed).toBe('next' in raw);
    expect('nothing' in viewed).toBe(false);
    expect(viewed.items[0] === viewed.items[0]).toBe(true);
    expect(viewed.count === raw.count).toBe(true);
    const { items, ...rest } = viewed;
    expect(items).toEqual(raw.items);
    expect(rest).toEqual({ ...raw, items: undefined });
    expect(String(viewed.items[0]!.user.id)).toBe(raw.items[0]!.user.id);
    expect(await Promise.resolve(viewed)).toBe(viewed);
  });

  test('a field read in any of those ways is read; a declared field read while absent is read too', async () => {
    const folder = newFolder();
    const docs = recordingClient(plain(), { folder, consumer });
    const organization = (await docs.GET('/v1/orgs/{organizationId}', { params: { path: { organizationId: ACME } } })).data!;
    expect('title' in organization).toBe(true);
    const members = (await docs.GET('/v1/orgs/{organizationId}/members', { params: { path: { organizationId: ACME }, query: { limit: 10 } } })).data!;
    // All seven on one page: no `next`, which the code still depended on.
    expect(members.next).toBeUndefined();
    const record = recordIn(folder);
    expect(record.operations.getOrganization!.responses['200 application/json']!.read).toEqual(['/title']);
    expect(record.operations.listMembers!.responses['200 application/json']!.read).toEqual(['/next']);
    expect(record.operations.listMembers!.responses['200 application/json']!.present).not.toContain('/next');

    const whole = (await docs.GET('/v1/orgs/{organizationId}', { params: { path: { organizationId: ACME } } })).data!;
    JSON.stringify(whole);
    const read = recordIn(folder).operations.getOrganization!.responses['200 application/json']!;
    expect(read.read).toEqual(read.present);
  });
});

describe('records in a folder', () => {
  test('off, the client is itself and nothing is written; DOCS_CLIENT_USAGE or `folder` turns it on, `folder: false` off', async () => {
    const folder = newFolder();
    const client = plain();
    const saved = process.env[USAGE_VARIABLE];
    try {
      delete process.env[USAGE_VARIABLE];
      expect(recordingClient(client, { consumer })).toBe(client);
      process.env[USAGE_VARIABLE] = folder;
      expect(recordingClient(client, { consumer, folder: false })).toBe(client);
      await recordingClient(client, { folder: false }).GET('/v1/orgs/{organizationId}', { params: { path: { organizationId: ACME } } });
      flushUsage();
      expect(existsSync(folder)).toBe(false);
      const on = recordingClient(client, { consumer });
      expect(on).not.toBe(client);
      await on.GET('/v1/orgs/{organizationId}', { params: { path: { organizationId: ACME } } });
    } finally {
      if (saved === undefined) delete process.env[USAGE_VARIABLE];
      else process.env[USAGE_VARIABLE] = saved;
    }
    expect(Object.keys(recordIn(folder).operations)).toEqual(['getOrganization']);
  });

  test("two processes' records, each written when its process exits, merge into one record", async () => {
    const folder = newFolder();
    const script = (calls: string) => `
import { createDocsClient } from ${JSON.stringify(path.join(repoRoot, 'client/index.ts'))};
import { recordingClient } from ${JSON.stringify(path.join(repoRoot, 'conformance/records/recording.ts'))};
const docs = recordingClient(createDocsClient({ baseUrl: process.argv[2], token: 'admin', retry: false }), { consumer: ${JSON.stringify(consumer)} });
${calls}
`;
    writeFileSync(
      path.join(scratch, 'first.mts'),
      script(`const { data } = await docs.GET('/v1/orgs/{organizationId}', { params: { path: { organizationId: '${ACME}' } } });
console.log(data.title);`),
    );
    writeFileSync(
      path.join(scratch, 'second.mts'),
      script(`const { data } = await docs.GET('/v1/orgs/{organizationId}', { params: { path: { organizationId: '${ACME}' } } });
console.log(data.id);
await docs.GET('/v1/orgs/{organizationId}/members', { params: { path: { organizationId: '${ACME}' }, query: { limit: 1 } } });`),
    );
    const env = { ...process.env, [USAGE_VARIABLE]: folder };
    const outputs = await Promise.all(['first.mts', 'second.mts'].map((file) => run(process.execPath, ['--import', 'tsx', path.join(scratch, file), server.url], { cwd: repoRoot, env, timeout: 60_000 })));
    expect(outputs.map((output) => output.stdout.trim())).toEqual(['Acme', ACME]);
    expect(readdirSync(path.join(folder, 'records')).filter((name) => name.endsWith('.json'))).toHaveLength(2);

    const lines: string[] = [];
    const merged = mergeUsageRecords({ folder, log: (line) => lines.push(line) });
    expect(merged).toEqual(parseUsageRecord(readFileSync(path.join(folder, 'usage.json'), 'utf8'), 'usage.json'));
    expect(merged!.recordedBy).toEqual(['client']);
    expect(merged!.operations.getOrganization!.calls).toBe(2);
    expect(merged!.operations.getOrganization!.responses['200 application/json']!.read).toEqual(['/id', '/title']);
    expect(merged!.operations.listMembers!.responses['200 application/json']!.read).toEqual([]);
    expect(lines).toEqual([`docs-platform-conformance usage: search-service used 2 operations in 3 calls: ${path.relative(process.cwd(), path.join(folder, 'usage.json'))}`]);
    // The records merged are removed: the next merge starts from the next run's; the merge's mark says where they went
    // (a second merge of the same run, the harness's reportUsage(), finds them merged, not missing).
    expect(readdirSync(path.join(folder, 'records'))).toEqual(['merged']);
  });

  test('a record that cannot be read is an error naming it, and nothing is written or removed', () => {
    const folder = newFolder();
    const records = path.join(folder, 'records');
    mkdirSync(records, { recursive: true });
    const good: UsageRecord = { format: 'docs-platform-usage', version: 1, consumer, contract: { version: '1.0.0' }, recordedBy: ['client'], operations: {} };
    writeFileSync(path.join(records, 'a.json'), JSON.stringify(good));
    writeFileSync(path.join(records, 'b.json'), '{"format":"docs-platform-usage","version":1,');
    expect(() => mergeUsageRecords({ folder, log: () => undefined })).toThrow(`${path.join(records, 'b.json')}: not JSON`);
    writeFileSync(path.join(records, 'b.json'), JSON.stringify({ ...good, version: 3 }));
    expect(() => mergeUsageRecords({ folder, log: () => undefined })).toThrow('written in version 3 of the format; this reads version 2: upgrade the package that reads it');
    writeFileSync(path.join(records, 'b.json'), JSON.stringify({ ...good, consumer: { name: 'billing' } }));
    expect(() => mergeUsageRecords({ folder, log: () => undefined })).toThrow('records of two consumers, search-service and billing');
    expect(readdirSync(records).sort()).toEqual(['a.json', 'b.json']);
    expect(existsSync(path.join(folder, 'usage.json'))).toBe(false);
  });

  test('mergeUsageRecords({ merge: true }) merges into the record its file holds; by default it replaces it; a file of another consumer is refused, named', () => {
    const folder = newFolder();
    const records = path.join(folder, 'records');
    const file = path.join(folder, 'usage.json');
    const recorded = (calls: number, name = consumer.name): UsageRecord => ({
      format: 'docs-platform-usage',
      version: 1,
      consumer: { name },
      contract: { version: '1.0.0' },
      recordedBy: ['client'],
      operations: { getOrganization: { calls, parameters: {}, body: {}, mediaTypes: [], responses: {} } },
    });
    /** One test command's record, then the merge. */
    const command = (calls: number, merge?: boolean) => {
      mkdirSync(records, { recursive: true });
      writeFileSync(path.join(records, 'a.json'), JSON.stringify(recorded(calls)));
      return () => mergeUsageRecords({ folder, log: () => undefined, ...(merge === undefined ? {} : { merge }) })?.operations.getOrganization?.calls;
    };
    expect(command(1)()).toBe(1);
    expect(command(2, true)()).toBe(3);
    expect(command(5)()).toBe(5);
    writeFileSync(file, JSON.stringify(recorded(1, 'billing')));
    expect(command(1, true)).toThrow(`${file}: records of two consumers, ${consumer.name} and billing (this run's record is ${consumer.name}'s)`);
    // The refused merge left the record of this run where it was (beside the mark of the merges before it).
    expect(readdirSync(records)).toEqual(['a.json', 'merged']);
    expect(parseUsageRecord(readFileSync(file, 'utf8'), file).consumer.name).toBe('billing');
  });
});
