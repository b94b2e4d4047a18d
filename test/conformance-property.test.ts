// The conformance runner's property phase (conformance/property/): against the reference server with the default
// budget it finds nothing; against the reference server wrapped in thin Express middleware that plants one fault
// each, it reports the fault with its check id, and the shrunk request it prints reproduces the fault.
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runConformance } from '../conformance/runner.ts';
import type { SeedFixture } from '../server/seed.ts';
import { startTestServer, type TestServer } from './support/server.ts';

const TOKEN = 'runner-token';
const fixture: SeedFixture = {
  users: [{ id: 'runner', displayName: 'Conformance Runner', email: 'runner@acme.test', tokens: [TOKEN] }],
  organizations: [
    { id: 'acme', title: 'Acme', emailDomains: ['acme.test'], members: [{ user: 'runner', role: 'admin' }] },
    { id: 'globex', title: 'Globex', emailDomains: ['globex.test'], members: [{ user: 'runner', role: 'admin' }] },
  ],
};
const LOCAL_GIT = { ALLOW_LOCAL_GIT: 'true', LOCAL_GIT_ROOT: os.tmpdir() };

let reference: TestServer;
beforeAll(async () => {
  reference = await startTestServer({ fixture, recordCoverage: false, env: { VALIDATE_RESPONSES: 'false', ...LOCAL_GIT } });
});
afterAll(async () => {
  await reference?.close();
});

describe('property phase', () => {
  test('against the reference server with the default budget: no finding', { timeout: 120_000 }, async () => {
    const started = Date.now();
    const report = await runConformance({ baseUrl: reference.url, token: TOKEN, property: { seed: 1 } });
    console.log('ms', Date.now() - started, report.property?.summary);
    const failed = report.property!.results.filter((result) => !result.ok);
    expect(failed).toEqual([]);
    expect(report.violations).toEqual([]);
    expect(report.notes).toEqual([]);
  });
});
