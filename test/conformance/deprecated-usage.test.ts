// A consumer's usage record names what it used that the contract deprecates (its operations' `deprecated`,
// conformance/records/usage-fields.ts), through each of the three recorders against the real server: the harness, the
// proxy and the typed client's recording mode; the uses merge and survive a record read back.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { createDocsClient, type DocsClient } from '../../client/index.ts';
import { startProxy } from '../../conformance/proxy/proxy.ts';
import { flushUsage, mergeUsageRecords, recordingClient } from '../../conformance/records/recording.ts';
import { mergeUsage, parseUsageRecord, type UsageRecord } from '../../conformance/records/usage-format.ts';
import { reportUsage, startDocsServer, startUsage } from '../../server/testing/index.ts';
import { USAGE_CONSUMER_VARIABLE, USAGE_VARIABLE } from '../../server/start/harness-protocol.ts';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'deprecated-usage-'));
const before = { [USAGE_VARIABLE]: process.env[USAGE_VARIABLE], [USAGE_CONSUMER_VARIABLE]: process.env[USAGE_CONSUMER_VARIABLE] };
afterAll(() => {
  for (const [name, value] of Object.entries(before)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  rmSync(scratch, { recursive: true, force: true });
});

const seed = {
  users: [{ id: 'ann', displayName: 'Ann' }],
  organizations: [{ id: 'acme', title: 'Acme', members: [{ user: 'ann', role: 'admin' as const }], spaces: [{ id: 'guides', title: 'Guides' }] }],
};
const MOVE = '/v1/orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}/move' as const;

/** A deprecated operation called (its section unknown: a 404, still a call) and an operation not deprecated. */
async function traffic(docs: DocsClient): Promise<void> {
  const moved = await docs.POST(MOVE, { params: { path: { organizationId: 'acme', siteId: 'nosite', siteSectionId: 'nosection' } }, body: { position: {} } });
  expect(moved.response.status).toBe(404);
  expect((await docs.GET('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId: 'acme' } } })).response.status).toBe(200);
}

/** The deprecated uses of each operation of a record. */
const deprecatedOf = (record: UsageRecord) => Object.fromEntries(Object.entries(record.operations).map(([id, usage]) => [id, usage.deprecated ?? []]));

test('the harness, the proxy and the typed client each record the deprecated operation called, and nothing of the others', async () => {
  const folder = path.join(scratch, 'harness');
  const clientFolder = path.join(scratch, 'client');
  startUsage({ folder, consumer: 'mover' });
  const server = await startDocsServer({ seed, inProcess: true });
  const proxy = await startProxy({ target: server.url, consumer: { name: 'mover' } });
  let proxied: UsageRecord;
  try {
    await traffic(createDocsClient({ baseUrl: server.url, token: server.token, retry: false, onDeprecated: false }));
    await traffic(createDocsClient({ baseUrl: proxy.url, token: server.token, retry: false, onDeprecated: false }));
    await proxy.idle();
    proxied = proxy.usage()!;
    await traffic(recordingClient(createDocsClient({ baseUrl: server.url, token: server.token, retry: false, onDeprecated: false }), { folder: clientFolder, consumer: 'mover' }));
    flushUsage();
  } finally {
    await proxy.close();
    await server.stop();
  }
  const harnessed = reportUsage({ folder, log: () => undefined }).record!;
  const recorded = mergeUsageRecords({ folder: clientFolder, log: () => undefined })!;
  const expected = { moveSiteSection: ['operation'], listSpaces: [] };
  // The harness saw every call, through the proxy and the recording client too.
  expect(deprecatedOf(harnessed)).toEqual(expected);
  expect(harnessed.operations.moveSiteSection!.calls).toBe(3);
  for (const record of [proxied, recorded]) {
    expect(deprecatedOf(record)).toEqual(expected);
    expect(record.operations.moveSiteSection!.calls).toBe(1);
  }
  // Merged, and read back from its text: still named.
  const merged = mergeUsage(harnessed, proxied, recorded);
  expect(deprecatedOf(parseUsageRecord(JSON.stringify(merged), 'merged')).moveSiteSection).toEqual(['operation']);
  expect(() => parseUsageRecord(JSON.stringify({ ...merged, operations: { moveSiteSection: { ...merged.operations.moveSiteSection, deprecated: 'operation' } } }), 'bad')).toThrow('operations.moveSiteSection.deprecated: not a list of uses');
}, 120_000);
