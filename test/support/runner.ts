// What the conformance runner's tests share: the runner's user and token, admin of two organizations (so that the
// transfers have somewhere to go), and the server settings its Git steps need (local repositories in the temporary
// folder, where the runner creates them).
import os from 'node:os';
import { afterAll, beforeAll } from 'vitest';
import type { SeedFixture } from '../../server/start/seed.ts';
import { startTestServer, type TestServer } from './server.ts';

export const RUNNER_TOKEN = 'runner-token';

export const runnerUser = { id: 'runner', displayName: 'Conformance Runner', email: 'runner@acme.test', tokens: [RUNNER_TOKEN] };

export const runnerOrganizations: NonNullable<SeedFixture['organizations']> = [
  { id: 'acme', title: 'Acme', emailDomains: ['acme.test'], members: [{ user: 'runner', role: 'admin' }] },
  { id: 'globex', title: 'Globex', emailDomains: ['globex.test'], members: [{ user: 'runner', role: 'admin' }] },
];

export const runnerFixture: SeedFixture = { users: [runnerUser], organizations: runnerOrganizations };

/** The server's variables for the runner's local Git repositories. */
export const LOCAL_GIT = { ALLOW_LOCAL_GIT: 'true', LOCAL_GIT_ROOT: os.tmpdir() };

/**
 * A reference server for the runner, started before the file's tests and closed after them. It does not count in
 * the suite's operation coverage (the runner answers every operation), and its own response validation is off: the
 * runner validates every answer against the contract itself.
 */
export function runnerServer(env: Record<string, string> = {}): { readonly url: string } {
  let server: TestServer | undefined;
  beforeAll(async () => {
    server = await startTestServer({ fixture: runnerFixture, recordCoverage: false, env: { VALIDATE_RESPONSES: 'false', LOG_LEVEL: 'silent', ...LOCAL_GIT, ...env } });
  });
  afterAll(async () => {
    await server?.close();
  });
  return {
    get url() {
      if (!server) throw new Error('the runner server is not started yet (use its url inside a test)');
      return server.url;
    },
  };
}
