// The test harness (server/testing/) from the sources: what `startDocsServer` gives, in the test's process and as a
// child process (the command, run from the sources with tsx). test/tooling/server-package.test.ts runs it from the server
// package, as consumers do: with vitest and node's test runner, files side by side, and a killed test process.
// @needs processes
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, expectTypeOf, test } from 'vitest';
import { ApiError, type DocsClient, type ThrowingDocsClient } from '../../client/index.ts';
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
const root = path.resolve(import.meta.dirname, '../..');
const harness = pathToFileURL(path.join(root, 'server/testing/index.ts')).href;
/** The environment of a child node or vitest: this run's vitest variables left out (a nested vitest would think it runs inside this one). */
const childEnv = () => ({ ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(VITEST|TINYPOOL|FORCE_COLOR)/i.test(name))), NO_COLOR: '1' });

/** Runs a command to its end: its exit code (or signal) and what it printed. */
function runToEnd(file: string, args: string[], cwd: string, timeout: number): Promise<{ code: number | null; signal: string | null; output: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd, env: childEnv(), timeout, killSignal: 'SIGKILL', maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const failure = error as (Error & { code?: number | string; signal?: string | null }) | null;
      resolve({ code: failure ? (typeof failure.code === 'number' ? failure.code : null) : 0, signal: failure?.signal ?? null, output: `${stdout}${stderr}` });
    });
  });
}

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

  test('clientWith takes the client options, throwOnError included: a throwing client, typed so', async () => {
    const server = await startDocsServer({ seed, inProcess: true });
    try {
      const throwing = server.clientWith('bob-token', { throwOnError: true, retry: false, userAgent: 'harness-test' });
      expectTypeOf(throwing).toEqualTypeOf<ThrowingDocsClient>();
      expectTypeOf(server.clientWith('bob-token', { retry: false })).toEqualTypeOf<DocsClient>();
      const { data } = await throwing.GET('/v1/spaces/{spaceId}', { params: { path: { spaceId: 'handbook' } } });
      expectTypeOf(data.title).toEqualTypeOf<string>(); // no `error` beside it: `data` is always there
      expect(data.title).toBe('Handbook');
      const missing = throwing.GET('/v1/spaces/{spaceId}', { params: { path: { spaceId: 'nothing-here' } } });
      await expect(missing).rejects.toBeInstanceOf(ApiError);
      await expect(missing).rejects.toMatchObject({ status: 404 });
      // A token given by a function, as the client takes it.
      const { data: spaces } = await server.clientWith(() => 'ann-token', { throwOnError: true }).GET('/v1/orgs/{organizationId}/spaces', acme);
      expect(spaces.items.map((space) => space.title)).toEqual(['Handbook']);
    } finally {
      await server.stop();
    }
  });

  test('a seed file is a path from the working directory, or a file: URL; one that is missing says where it was looked for', async () => {
    const seedFile = path.join(scratch, 'relative', 'seed.json');
    mkdirSync(path.dirname(seedFile), { recursive: true });
    writeFileSync(seedFile, JSON.stringify(seed));
    const relative = path.relative(process.cwd(), seedFile);
    expect(path.isAbsolute(relative)).toBe(false);
    for (const given of [relative, pathToFileURL(seedFile), pathToFileURL(seedFile).href]) {
      const server = await startDocsServer({ seed: given, inProcess: true });
      try {
        expect(await spaceTitles(server), String(given)).toEqual(['Handbook']);
      } finally {
        await server.stop();
      }
    }
    const missing = startDocsServer({ seed: 'no-such-seed.yaml', inProcess: true });
    await expect(missing).rejects.toThrow(
      `docs-platform-server/testing: the seed file ${path.resolve('no-such-seed.yaml')} does not exist (the seed was a path, resolved against the working directory ${process.cwd()}; new URL('./seed.yaml', import.meta.url) names a file beside the test file)`,
    );
    await expect(startDocsServer({ seed: new URL('./no-such-seed.yaml', import.meta.url) })).rejects.toThrow(/the seed file .*no-such-seed\.yaml does not exist \(the seed was a file: URL/);
  });

  test('a server never keeps its process alive: a script that does not stop it ends by itself once its work is done', async () => {
    // Requests on kept-alive connections, a background job (an OpenAPI specification processed from its text) and a
    // reset, then nothing: what still holds the event loop is printed, and the process must end on its own.
    const script = path.join(scratch, 'not-stopped.mts');
    writeFileSync(
      script,
      `import { startDocsServer } from ${JSON.stringify(harness)};
const server = await startDocsServer({ inProcess: true, seed: ${JSON.stringify(seed)} });
const acme = { params: { path: { organizationId: 'acme' } } };
const created = await server.client.POST('/v1/orgs/{organizationId}/openapi', { ...acme, body: { slug: 'pets', source: { text: 'openapi: 3.1.0\\ninfo: { title: Pets, version: 1.0.0 }\\npaths: {}\\n' } } });
if (created.response.status !== 201) throw new Error('POST openapi: ' + created.response.status);
for (let attempt = 0; ; attempt++) {
  const { data } = await server.clientWith('bob-token').GET('/v1/orgs/{organizationId}/openapi/{specSlug}', { params: { path: { organizationId: 'acme', specSlug: 'pets' } } });
  if (data?.processingState === 'complete') break;
  if (attempt > 300) throw new Error('the specification was not processed: ' + JSON.stringify(data));
  await new Promise((resolve) => setTimeout(resolve, 50));
}
await server.reset();
await server.client.GET('/v1/orgs');
setImmediate(() => console.log('holding the event loop: ' + JSON.stringify(process.getActiveResourcesInfo())));
`,
    );
    const result = await runToEnd(process.execPath, ['--import', 'tsx', script], root, 90_000);
    expect({ code: result.code, signal: result.signal }, result.output).toEqual({ code: 0, signal: null });
    const held = JSON.parse(/^holding the event loop: (.*)$/m.exec(result.output)?.[1] ?? 'null') as string[] | null;
    expect(held, result.output).not.toBeNull();
    // Neither the listening socket, nor its connections, nor a timer (the job runner's, the purge's).
    expect(held!.filter((resource) => /TCP|Timeout|Timer|Message|Worker/i.test(resource))).toEqual([]);
  }, 100_000);

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
    const failing = startDocsServer({ seed: noAdmin });
    await expect(failing).rejects.toThrow(/^docs-platform-server failed to start: DOCS_API_TOKEN cannot be registered: the first organization of SEED_FILE \(solo\)/);
    // In the test's process, the same error, saying what failed.
    await expect(startDocsServer({ seed: noAdmin, inProcess: true })).rejects.toThrow(/^docs-platform-server \(in process\) failed to start: DOCS_API_TOKEN cannot be registered/);
  }, 60_000);
});

/** A seed the server refuses to start with: its first organization has no admin to receive the admin token. */
const noAdmin: Seed = { users: [{ id: 'cy', displayName: 'Cy' }], organizations: [{ id: 'solo', title: 'Solo', members: [{ user: 'cy', role: 'read' }] }] };

describe("the README's vitest example", () => {
  test('with a start that fails, vitest shows one error: the start\'s, saying why', async () => {
    // The README's example as a consumer's test file, its seed swapped for one the server refuses, run by vitest.
    const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
    const example = /^<!-- consumer-test: test\/readme\.test\.ts -->\n```ts\n([\s\S]*?)\n```$/m.exec(readme)?.[1];
    expect(example).toBeDefined();
    const source = example!
      .replace("from 'docs-platform-server/testing'", `from ${JSON.stringify(harness)}`)
      .replace(/^const seed: Seed = \{[\s\S]*?^\};$/m, `const seed: Seed = ${JSON.stringify(noAdmin)};`);
    expect(source).toContain(JSON.stringify(noAdmin));
    expect(source).toContain(harness);
    const project = path.join(scratch, 'consumer');
    mkdirSync(path.join(project, 'test'), { recursive: true });
    symlinkSync(path.join(root, 'node_modules'), path.join(project, 'node_modules'), 'dir');
    writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    writeFileSync(path.join(project, 'vitest.config.mjs'), `export default { test: { include: ['test/**/*.test.ts'], hookTimeout: 60000 } };\n`);
    writeFileSync(path.join(project, 'test/readme.test.ts'), source);
    const result = await runToEnd(process.execPath, [path.join(root, 'node_modules/vitest/vitest.mjs'), 'run'], project, 120_000);
    expect(result.code, result.output).toBe(1);
    expect(result.output).toContain('Failed Suites 1');
    expect(result.output).toMatch(/^Error: docs-platform-server failed to start: DOCS_API_TOKEN cannot be registered: /m);
    // Said once: the server's own line is in the error, not also on stderr.
    expect(result.output.split('DOCS_API_TOKEN cannot be registered').length - 1, result.output).toBe(1);
    // One error in all: none from afterAll (`server` is undefined there) or beforeEach.
    expect(result.output.match(/⎯\[\d+\/\d+\]⎯/g), result.output).toEqual(['⎯[1/1]⎯']);
    expect(result.output).not.toContain('TypeError');

    // A seed object the contract refuses (a role it does not have): its error names the object's field, once, and no
    // file the harness wrote it to.
    writeFileSync(
      path.join(project, 'test/readme.test.ts'),
      example!.replace("from 'docs-platform-server/testing'", `from ${JSON.stringify(harness)}`).replace("role: 'read' }", "role: 'reader' }"),
    );
    const refused = await runToEnd(process.execPath, [path.join(root, 'node_modules/vitest/vitest.mjs'), 'run'], project, 120_000);
    expect(refused.code, refused.output).toBe(1);
    const problem = 'the seed object: organizations[0] (acme) › members[1] (bob): role must be one of "admin", "create", "review", "edit", "comment", "read", got "reader"';
    expect(refused.output).toContain(`Error: docs-platform-server failed to start: ${problem}`);
    expect(refused.output.split('organizations[0] (acme)').length - 1, refused.output).toBe(1);
    expect(refused.output).not.toMatch(/docs-server-seed-|seed\.json/);
  }, 130_000);
});
