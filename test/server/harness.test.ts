// The test harness (server/testing/) from the sources: what `startDocsServer` gives, in the test's process and as a
// child process (the command, run from the sources with tsx). test/tooling/server-package.test.ts runs it from the server
// package, as consumers do: with vitest and node's test runner, files side by side, and a killed test process.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { type DocsServer, type Seed, startDocsServer } from '../../server/testing/index.ts';

const seed: Seed = {
  users: [
    { id: 'ann', displayName: 'Ann', tokens: ['ann-token'] },
    { id: 'bob', displayName: 'Bob', tokens: ['bob-token'] },
  ],
  organizations: [
    {
      id: 'acme',
      title: 'Acme',
      members: [
        { user: 'bob', role: 'read' },
        { user: 'ann', role: 'admin' },
      ],
      spaces: [{ id: 'handbook', title: 'Handbook', pages: [{ id: 'welcome', title: 'Welcome', markdown: 'Hello.' }] }],
    },
  ],
};
const acme = { params: { path: { organizationId: 'acme' } } };
const scratch = mkdtempSync(path.join(os.tmpdir(), 'harness-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Whose the admin token is: the members who were active (a ping) after the start. */
async function adminTokenHolder(server: DocsServer): Promise<string[]> {
  await server.client.POST('/v1/orgs/{organizationId}/ping', acme);
  const { data } = await server.client.GET('/v1/orgs/{organizationId}/members', { params: { path: { organizationId: 'acme' }, query: { sort: 'lastSeenAt' } } });
  return (data?.items ?? []).map((member) => member.user.id);
}

async function spaceTitles(server: DocsServer): Promise<string[]> {
  const { data, error } = await server.client.GET('/v1/orgs/{organizationId}/spaces', acme);
  if (error) throw new Error(error.error.message);
  return data.items.map((space) => space.title).sort();
}

describe('in the test process', () => {
  test('seeds the server, gives the admin token to the first admin of the first organization, and clients for it', async () => {
    const server = await startDocsServer({ seed, inProcess: true });
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(await adminTokenHolder(server)).toEqual(['ann']);
      const asBob = await server.clientWith('bob-token').GET('/v1/spaces/{spaceId}', { params: { path: { spaceId: 'handbook' } } });
      expect(asBob.data?.permissions.edit).toBe(false);
      const anonymous = await server.clientWith(undefined).GET('/v1/orgs');
      expect(anonymous.response.status).toBe(401);
      expect(await spaceTitles(server)).toEqual(['Handbook']);
    } finally {
      await server.stop();
    }
  });

  test('reset() gives back the seeded database as it was at the start, behind the same address', async () => {
    const server = await startDocsServer({ seed, inProcess: true, token: 'chosen-token' });
    try {
      expect(server.token).toBe('chosen-token');
      const before = await server.client.GET('/v1/spaces/{spaceId}', { params: { path: { spaceId: 'handbook' } } });
      // A new space, the seeded one changed, and a list page read (and kept in memory) after them.
      const created = await server.client.POST('/v1/orgs/{organizationId}/spaces', { ...acme, body: { title: 'Notes' } });
      expect(created.response.status).toBe(201);
      const renamed = await server.client.PATCH('/v1/spaces/{spaceId}', { params: { path: { spaceId: 'handbook' } }, body: { title: 'Renamed' } });
      expect(renamed.response.status).toBe(200);
      expect(await spaceTitles(server)).toEqual(['Notes', 'Renamed']);

      await server.reset();
      expect(await spaceTitles(server)).toEqual(['Handbook']);
      const after = await server.client.GET('/v1/spaces/{spaceId}', { params: { path: { spaceId: 'handbook' } } });
      expect(after.data).toEqual(before.data);
      const gone = await server.client.GET('/v1/spaces/{spaceId}', { params: { path: { spaceId: created.data!.id } } });
      expect(gone.response.status).toBe(404);

      // Again, from the same image: what the first reset's database received is not in it.
      await server.client.POST('/v1/orgs/{organizationId}/spaces', { ...acme, body: { title: 'Later' } });
      await server.reset();
      expect(await spaceTitles(server)).toEqual(['Handbook']);
    } finally {
      await server.stop();
      await server.stop(); // a second stop does nothing
    }
  });

  test('reset() needs the database in memory, and says so', async () => {
    const dataDir = path.join(scratch, 'kept');
    const server = await startDocsServer({ seed, inProcess: true, env: { DATA_DIR: dataDir } });
    try {
      await expect(server.reset()).rejects.toThrow(/reset\(\) needs .*DATA_DIR=:memory:/);
      expect(await spaceTitles(server)).toEqual(['Handbook']);
    } finally {
      await server.stop();
    }
  });
});

describe('as a child process', () => {
  test('starts the command with a seed file, resets it, and stops it; a start that fails says why', async () => {
    const seedFile = path.join(scratch, 'seed.json');
    writeFileSync(seedFile, JSON.stringify(seed));
    // Variables of the test process's own environment do not reach the server: these would stop it from starting.
    const saved = { PORT: process.env.PORT, DATABASE_URL: process.env.DATABASE_URL };
    process.env.PORT = 'eighty';
    process.env.DATABASE_URL = 'postgres://nobody@127.0.0.1:1/nothing';
    let server: DocsServer;
    try {
      server = await startDocsServer({ seed: seedFile });
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
    try {
      expect(await adminTokenHolder(server)).toEqual(['ann']);
      await server.client.POST('/v1/orgs/{organizationId}/spaces', { ...acme, body: { title: 'Notes' } });
      expect(await spaceTitles(server)).toEqual(['Handbook', 'Notes']);
      await server.reset();
      expect(await spaceTitles(server)).toEqual(['Handbook']);
    } finally {
      await server.stop();
    }
    await expect(fetch(`${server.url}/health`)).rejects.toThrow();
    await expect(server.reset()).rejects.toThrow(/has been stopped/);

    // The seed's first organization has no admin to receive the admin token: the command's own one-line error.
    const failing = startDocsServer({ seed: { users: [{ id: 'cy', displayName: 'Cy' }], organizations: [{ id: 'solo', title: 'Solo', members: [{ user: 'cy', role: 'read' }] }] } });
    await expect(failing).rejects.toThrow(/docs-platform-server exited \(code 1\) before it listened:\n.*failed to start: DOCS_API_TOKEN cannot be registered/);
  }, 60_000);
});
