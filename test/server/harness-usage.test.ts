// The consumer's usage record through the harness (server/testing/usage.ts, http/usage-recorder.ts): servers started
// through it, as a child process and in process (two workers' record files), record what the typed client's requests
// used; the report merges them into one record of the consumer, exactly what was used; a record it cannot read fails
// the report; off, nothing is written; the proxy's record of the same traffic is the same, but for the requests the
// contract refuses, which the proxy does not record; the typed client's records merge with them.
// @needs processes
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { createDocsClient, type DocsClient } from '../../client/index.ts';
import { consumerIdentity, contractIdentity } from '../../conformance/records/consumer.ts';
import { loadContract } from '../../conformance/contract/contract.ts';
import { startProxy } from '../../conformance/proxy/proxy.ts';
import { flushUsage, mergeUsageRecords, recordingClient } from '../../conformance/records/recording.ts';
import { parseUsageRecord, type UsageRecord, USAGE_VERSION } from '../../conformance/records/usage-format.ts';
import { USAGE_CONSUMER_VARIABLE, USAGE_VARIABLE, usageRecordsFolder } from '../../server/start/harness-protocol.ts';
import { type DocsServer, reportUsage, startDocsServer, startUsage } from '../../server/testing/index.ts';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'harness-usage-'));
const variables = [USAGE_VARIABLE, USAGE_CONSUMER_VARIABLE] as const;
const before = Object.fromEntries(variables.map((name) => [name, process.env[name]]));
afterEach(() => {
  for (const name of variables) {
    if (before[name] === undefined) delete process.env[name];
    else process.env[name] = before[name];
  }
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const seed = {
  users: [
    { id: 'ann', displayName: 'Ann' },
    { id: 'bob', displayName: 'Bob' },
  ],
  organizations: [
    {
      id: 'acme',
      title: 'Acme',
      members: [
        { user: 'ann', role: 'admin' as const },
        { user: 'bob', role: 'read' as const },
      ],
      spaces: [{ id: 'guides', title: 'Guides' }],
    },
  ],
};
const acme = { organizationId: 'acme' };

/** The JSON pointers of the fields of values received, as a record names them (`*` for each item of an array). */
function pointers(...values: unknown[]): string[] {
  const into = new Set<string>();
  const walk = (value: unknown, at: string) => {
    if (at !== '') into.add(at);
    if (Array.isArray(value)) for (const item of value) walk(item, `${at}/*`);
    else if (value !== null && typeof value === 'object') for (const [key, item] of Object.entries(value)) walk(item, `${at}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`);
  };
  for (const value of values) walk(value, '');
  return [...into].sort();
}

/** The record's files in `folder`'s usage records. */
const recordFiles = (folder: string) => (existsSync(usageRecordsFolder(folder)) ? readdirSync(usageRecordsFolder(folder)) : []);

describe('the usage record through the harness', () => {
  test('two servers (two workers) record what the consumer sent and received; the report merges them into one record, exactly that', async () => {
    const folder = path.join(scratch, 'run');
    expect(startUsage({ folder })).toBe(folder);
    expect(process.env[USAGE_VARIABLE]).toBe(folder);
    const [child, inProcess] = await Promise.all([startDocsServer({ seed }), startDocsServer({ seed, inProcess: true })]);
    let received: Record<string, unknown>;
    try {
      // One worker: a space created (a JSON body with an enumerated field), the members listed by an enumerated role.
      const created = await child.client.POST('/v1/orgs/{organizationId}/spaces', { params: { path: acme }, body: { title: 'Notes', editMode: 'live' } });
      expect(created.response.status).toBe(201);
      const admins = await child.client.GET('/v1/orgs/{organizationId}/members', { params: { path: acme, query: { role: 'admin', sort: 'name', order: 'desc' } } });
      expect(admins.response.status).toBe(200);
      // The other: the members by another role, with a limit (not enumerated), and a space that is not there.
      const readers = await inProcess.client.GET('/v1/orgs/{organizationId}/members', { params: { path: acme, query: { role: 'read', limit: 5 } } });
      expect(readers.data!.items).toHaveLength(1);
      const missing = await inProcess.client.GET('/v1/spaces/{spaceId}', { params: { path: { spaceId: 'missing' } } });
      expect(missing.response.status).toBe(404);
      received = { created: created.data, admins: admins.data, readers: readers.data, missing: missing.error };
    } finally {
      await Promise.all([child.stop(), inProcess.stop()]);
    }
    expect(recordFiles(folder)).toHaveLength(2);

    const lines: string[] = [];
    const report = reportUsage({ folder, log: (line) => lines.push(line) });
    const file = path.join(folder, 'usage.json');
    expect(report.file).toBe(file);
    const record = parseUsageRecord(readFileSync(file, 'utf8'), file);
    expect(record).toEqual(report.record);
    expect(lines).toEqual([`docs-platform-server usage: docs-platform-contract called 3 operations (4 requests) of contract ${record.contract.version}: ${path.relative(process.cwd(), file)}`]);
    expect(recordFiles(folder)).toEqual(['merged']); // the records merged, and the merge's mark (docs/consumers.md)

    // The consumer, by default, is the working directory's package and checkout; the contract, the one served.
    expect(record).toMatchObject({ format: 'docs-platform-usage', version: USAGE_VERSION, recordedBy: ['harness'] });
    expect(record.consumer).toEqual(consumerIdentity(process.cwd()));
    expect(record.consumer.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(record.contract).toEqual(contractIdentity(loadContract()));
    // Exactly what was used: the three operations called, nothing else.
    const present = (value: unknown) => ({ present: pointers(value) });
    const { created, admins, readers, missing } = received as Record<string, { items?: unknown[] }>;
    // The facts of what was sent (its types, lengths, ranges), its operation's method and path, and how it authenticated.
    expect(record.operations.createSpace!.body['/editMode']).toEqual({ values: ['live'], types: ['string'], lengths: [4, 4] });
    expect(record.operations.createSpace!.body['/title']!.types).toEqual(['string']);
    expect([record.operations.createSpace!.method, record.operations.createSpace!.path, record.operations.createSpace!.security]).toEqual(['post', '/v1/orgs/{organizationId}/spaces', ['BearerAuth']]);
    expect(withoutFacts(record.operations)).toEqual({
      createSpace: {
        calls: 1,
        parameters: { 'path.organizationId': {} },
        body: { '/title': {}, '/editMode': { values: ['live'] } },
        mediaTypes: ['application/json'],
        bodySchemas: { '': ['CreateSpaceRequest'], '/editMode': ['EditMode'] },
        responses: { '201 application/json': expect.objectContaining(present(created)) },
      },
      listMembers: {
        calls: 2,
        // The enumerated parameters' values from both workers; the limit's value is not kept.
        parameters: { 'path.organizationId': {}, 'query.role': { values: ['admin', 'read'] }, 'query.sort': { values: ['name'] }, 'query.order': { values: ['desc'] }, 'query.limit': {} },
        body: {},
        mediaTypes: [],
        responses: { '200 application/json': expect.objectContaining({ present: pointers(admins, readers) }) },
      },
      getSpace: {
        calls: 1,
        parameters: { 'path.spaceId': {} },
        body: {},
        mediaTypes: [],
        responses: { '404 application/json': expect.objectContaining(present(missing)) },
      },
    });
    // The members' role, an enumeration, with the values received from both workers (and the constant kinds).
    expect(record.operations.listMembers!.responses['200 application/json']!.values).toEqual({ '/items/*/object': ['member'], '/items/*/role': ['admin', 'read'], '/items/*/user/object': ['user'] });
  }, 60_000);

  test("the harness's record and the proxy's of the same traffic are the same", async () => {
    const folder = path.join(scratch, 'proxy');
    startUsage({ folder, consumer: 'search-service' });
    const server = await startDocsServer({ seed, inProcess: true });
    const proxy = await startProxy({ target: server.url, consumer: { name: 'search-service' } });
    let proxied: UsageRecord;
    try {
      const docs = createDocsClient({ baseUrl: proxy.url, token: server.token, retry: false });
      await sameTraffic(docs, createDocsClient({ baseUrl: proxy.url, retry: false }), server);
      await proxy.idle();
      proxied = proxy.usage()!;
    } finally {
      await proxy.close();
      await server.stop();
    }
    const { record } = reportUsage({ folder, log: () => undefined });
    expect(record!.consumer).toEqual({ name: 'search-service', ...(record!.consumer.commit ? { commit: record!.consumer.commit } : {}) });
    expect(record!.recordedBy).toEqual(['harness']);
    expect(proxied.recordedBy).toEqual(['proxy']);
    expect(record!.contract).toEqual(proxied.contract);
    expect(Object.keys(record!.operations).sort()).toEqual(['createSpace', 'getOrganization', 'getSpace', 'listMembers', 'listSpaces', 'updateSpace']);
    expect(Object.keys(record!.operations.getSpace!.responses).sort()).toEqual(['200 application/json', '401 application/json', '404 application/json']);
    expect(Object.keys(record!.operations.listSpaces!.responses).sort()).toEqual(['200 application/json', '400 application/json']);
    expect(Object.keys(record!.operations.getOrganization!.responses)).toEqual(['503 application/json']);
    // The two requests the contract refuses (a limit above its maximum, no token) the harness records as called and
    // answered; the proxy reports them and records nothing of them. The rest is the same.
    expect(proxied.operations).toEqual(withoutRefused(record!.operations));
  }, 60_000);

  test('a record the report cannot read (broken, of a newer format, of another consumer) fails it, naming the file, and the records stay', async () => {
    const folder = path.join(scratch, 'broken');
    startUsage({ folder, consumer: 'billing' });
    const server = await startDocsServer({ seed, inProcess: true });
    await server.client.GET('/v1/orgs/{organizationId}', { params: { path: acme } });
    await server.stop();
    const [written] = recordFiles(folder);
    const good = readFileSync(path.join(usageRecordsFolder(folder), written!), 'utf8');
    const other = path.join(usageRecordsFolder(folder), 'other.json');
    const report = () => reportUsage({ folder, log: () => undefined });

    writeFileSync(other, good.slice(0, 40));
    expect(report).toThrow(`${other}: not JSON`);
    writeFileSync(other, JSON.stringify({ ...JSON.parse(good), version: USAGE_VERSION + 1 }));
    expect(report).toThrow(`${other}: written in version ${USAGE_VERSION + 1} of the format; this reads version ${USAGE_VERSION}: upgrade the package that reads it`);
    writeFileSync(other, JSON.stringify({ ...JSON.parse(good), operations: { getOrganization: { calls: 'one' } } }));
    expect(report).toThrow(`${other}: not a valid usage record`);
    writeFileSync(other, JSON.stringify({ ...JSON.parse(good), consumer: { name: 'search' } }));
    expect(report).toThrow('records of two consumers');
    expect(recordFiles(folder).sort()).toEqual([written, 'other.json'].sort());
    expect(existsSync(path.join(folder, 'usage.json'))).toBe(false);

    rmSync(other);
    expect(report().record!.operations.getOrganization!.calls).toBe(1);
  }, 60_000);

  test('off unless asked: no variable, or usage: false, and no record file is written; a report of nothing says so', async () => {
    delete process.env[USAGE_VARIABLE];
    const folder = path.join(scratch, 'off');
    const unasked = await startDocsServer({ seed, inProcess: true });
    await unasked.client.GET('/v1/orgs/{organizationId}', { params: { path: acme } });
    await unasked.stop();
    startUsage({ folder });
    const refused = await startDocsServer({ seed, inProcess: true, usage: false });
    await refused.client.GET('/v1/orgs/{organizationId}', { params: { path: acme } });
    await refused.stop();
    expect(existsSync(folder)).toBe(false);
    const lines: string[] = [];
    expect(reportUsage({ folder, log: (line) => lines.push(line) })).toMatchObject({ record: undefined, file: undefined });
    expect(lines[0]).toMatch(/^docs-platform-server usage: no server recorded a request \(was the usage record on when they started\?\)/);
    expect(existsSync(path.join(folder, 'usage.json'))).toBe(false);
  }, 60_000);
});

describe('the usage record into a file that holds one', () => {
  test('reportUsage({ merge: true }) merges into the record its file holds (several test commands, one record); by default it replaces it; a file of another consumer is refused, named', async () => {
    const folder = path.join(scratch, 'merge');
    const file = path.join(folder, 'kept.json');
    /** One test command: a server started, one request, its report. */
    const command = async (consumer: string, merge?: boolean) => {
      startUsage({ folder, consumer });
      const server = await startDocsServer({ seed, inProcess: true });
      await server.client.GET('/v1/orgs/{organizationId}', { params: { path: acme } });
      await server.stop();
      return () => reportUsage({ folder, file, log: () => undefined, ...(merge === undefined ? {} : { merge }) });
    };
    expect((await command('billing'))().record!.operations.getOrganization!.calls).toBe(1);
    expect((await command('billing', true))().record!.operations.getOrganization!.calls).toBe(2);
    expect(parseUsageRecord(readFileSync(file, 'utf8'), file).operations.getOrganization!.calls).toBe(2);
    expect((await command('billing'))().record!.operations.getOrganization!.calls).toBe(1);
    const before = readFileSync(file, 'utf8');
    const foreign = await command('search', true);
    expect(foreign).toThrow(`${file}: records of two consumers, search and billing (this run's record is search's)`);
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(recordFiles(folder)).toHaveLength(1);
  }, 60_000);
});

describe('the usage record of a suite that records through the harness and the typed client', () => {
  test("the typed client's recording mode writes beside the harness's servers: one merge, one record of both", async () => {
    const folder = path.join(scratch, 'both');
    startUsage({ folder, consumer: 'search-service' });
    const server = await startDocsServer({ seed, inProcess: true });
    try {
      const recorded = recordingClient(createDocsClient({ baseUrl: server.url, token: server.token, retry: false }), { folder, consumer: 'search-service' });
      const answer = await recorded.GET('/v1/orgs/{organizationId}', { params: { path: acme } });
      expect(answer.data!.title).toBe('Acme');
      flushUsage();
    } finally {
      await server.stop();
    }
    const { record } = reportUsage({ folder, log: () => undefined });
    expect(record!.recordedBy).toEqual(['client', 'harness']);
    // The harness saw the call too, and keeps no reads: every field it received counts as relied on, so the merge
    // relies on them all, never on less than either record did (the client's alone read `/title`).
    expect(record!.operations.getOrganization!.calls).toBe(2);
    const answer = record!.operations.getOrganization!.responses['200 application/json']!;
    expect(answer.read).toContain('/title');
    expect(answer.read).toEqual(answer.present);
    // Both merges at the end of the run, as docs/consumers.md shows them: the second finds the records merged, says
    // nothing (the first said what it wrote) and returns that record; in the other order the same.
    const lines: string[] = [];
    expect(mergeUsageRecords({ folder, log: (line) => lines.push(line) })).toEqual(record);
    expect(lines).toEqual([]);
    startUsage({ folder, consumer: 'search-service' });
    const again = await startDocsServer({ seed, inProcess: true });
    try {
      const recorded = recordingClient(createDocsClient({ baseUrl: again.url, token: again.token, retry: false }), { folder, consumer: 'search-service' });
      await recorded.GET('/v1/orgs/{organizationId}', { params: { path: acme } });
      flushUsage();
    } finally {
      await again.stop();
    }
    const merged = mergeUsageRecords({ folder, log: (line) => lines.push(line) });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^docs-platform-conformance usage: search-service used 1 operation in \d+ calls?: /);
    const reported = reportUsage({ folder, log: (line) => lines.push(line) });
    expect(lines).toHaveLength(1);
    expect(reported.record).toEqual(merged);
    expect(reported.line).toBe('');
  }, 60_000);

});

/**
 * Requests of every kind the record reads, through `docs`: bodies with an enumeration, a list by enumerated
 * parameters, a 404, a request the validator refuses (400), one without a token (401) and a fault (503).
 */
async function sameTraffic(docs: DocsClient, anonymous: DocsClient, server: DocsServer): Promise<void> {
  const created = await docs.POST('/v1/orgs/{organizationId}/spaces', { params: { path: acme }, body: { title: 'Notes', editMode: 'live' } });
  expect(created.response.status).toBe(201);
  expect((await docs.GET('/v1/orgs/{organizationId}/spaces', { params: { path: acme, query: { limit: 1 } } })).response.status).toBe(200);
  expect((await docs.GET('/v1/orgs/{organizationId}/spaces', { params: { path: acme, query: { limit: 100_000 } } })).response.status).toBe(400);
  expect((await docs.GET('/v1/orgs/{organizationId}/members', { params: { path: acme, query: { role: 'read', order: 'asc' } } })).response.status).toBe(200);
  expect((await docs.GET('/v1/spaces/{spaceId}', { params: { path: { spaceId: created.data!.id } } })).response.status).toBe(200);
  expect((await docs.GET('/v1/spaces/{spaceId}', { params: { path: { spaceId: 'missing' } } })).response.status).toBe(404);
  expect((await anonymous.GET('/v1/spaces/{spaceId}', { params: { path: { spaceId: created.data!.id } } })).response.status).toBe(401);
  expect((await docs.PATCH('/v1/spaces/{spaceId}', { params: { path: { spaceId: created.data!.id } }, body: { editMode: 'locked' } })).response.status).toBe(200);
  await server.faults.add({ operation: 'getOrganization', status: 503, times: 1 });
  expect((await docs.GET('/v1/orgs/{organizationId}', { params: { path: acme } })).response.status).toBe(503);
}

/** The harness's record of `sameTraffic` without the two requests the contract refuses: the proxy's record of it. */
function withoutRefused(operations: UsageRecord['operations']): UsageRecord['operations'] {
  const accepted = structuredClone(operations);
  for (const [operationId, key] of [['listSpaces', '400 application/json'], ['getSpace', '401 application/json']] as const) {
    delete accepted[operationId]!.responses[key];
    accepted[operationId]!.calls -= 1;
  }
  return accepted;
}

/** Operations' uses without what version 2 of the format adds: what was sent, by name and enumerated value only. */
function withoutFacts(operations: UsageRecord['operations']): UsageRecord['operations'] {
  const copy = structuredClone(operations);
  for (const usage of Object.values(copy)) {
    for (const key of ['method', 'path', 'security', 'defaults'] as const) delete usage[key];
    for (const used of [...Object.values(usage.parameters), ...Object.values(usage.body)]) for (const key of ['types', 'lengths', 'numbers', 'sizes'] as const) delete used[key];
  }
  return copy;
}
