// What the conformance runner's tests share: the runner's user and token, admin of two organizations (so that the
// transfers have somewhere to go), and the server settings its Git steps need (local repositories in the temporary
// folder, where the runner creates them).
import os from 'node:os';
import type { SeedFixture } from '../../server/seed.ts';

export const RUNNER_TOKEN = 'runner-token';

export const runnerUser = { id: 'runner', displayName: 'Conformance Runner', email: 'runner@acme.test', tokens: [RUNNER_TOKEN] };

export const runnerOrganizations: NonNullable<SeedFixture['organizations']> = [
  { id: 'acme', title: 'Acme', emailDomains: ['acme.test'], members: [{ user: 'runner', role: 'admin' }] },
  { id: 'globex', title: 'Globex', emailDomains: ['globex.test'], members: [{ user: 'runner', role: 'admin' }] },
];

export const runnerFixture: SeedFixture = { users: [runnerUser], organizations: runnerOrganizations };

/** The server's variables for the runner's local Git repositories. */
export const LOCAL_GIT = { ALLOW_LOCAL_GIT: 'true', LOCAL_GIT_ROOT: os.tmpdir() };
