// Where a Git import or export may reach: a server over HTTP with credentials in the URL (used, never stored nor
// shown, a fetched clone kept by repoCacheID, failures that do not show them), repositories on the server's disk
// (refused unless ALLOW_LOCAL_GIT, inside LOCAL_GIT_ROOT only, never the server's own folders, checked again when
// the job runs), and http(s) addresses the server does not call.
import fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import git from 'isomorphic-git';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { sql } from 'kysely';
import { readConfig } from '../../server/common/config.ts';
import { listGitOperations } from '../../server/domain/git.ts';
import { standardFixture } from '../support/fixture.ts';
import { expectError, ok } from '../support/expect.ts';
import { serveWithGitHttpBackend } from '../../scripts/git-http-backend.ts';
import { commitsOf, EXPECTED_SUMMARY, filesAt, HANDBOOK_SHAPE, runnerOf, space, useGitServer } from '../support/git-sync.ts';
import { repoRoot } from '../support/repo.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const { ctx, scratch, logLines, idle, db, operationsOf, pagesOf, handwrittenRepository } = useGitServer();

/**
 * A Git server over HTTP on 127.0.0.1 (git http-backend) that wants the user `docs` with the password `s3cret-token`,
 * and redirects `/moved/…` to `/…`.
 */
async function startGitHttpServer(root: string): Promise<Server> {
  const expected = `Basic ${Buffer.from('docs:s3cret-token').toString('base64')}`;
  const server = createServer((req, res) => {
    if (req.url!.startsWith('/moved/')) {
      res.writeHead(301, { location: req.url!.replace('/moved/', '/') }).end();
      return;
    }
    if (req.headers.authorization !== expected) {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="git"' }).end();
      return;
    }
    serveWithGitHttpBackend(req, res, root, 'docs');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

describe('Git over HTTP, with credentials in the URL', () => {
  let gitServer: Server;
  let remote: string;
  let base: string;
  beforeAll(async () => {
    const root = path.join(scratch, 'http');
    await git.init({ fs, dir: path.join(root, 'acme', 'handbook.git'), bare: true, defaultBranch: 'main' });
    gitServer = await startGitHttpServer(root);
    remote = path.join(root, 'acme', 'handbook.git');
    base = `127.0.0.1:${(gitServer.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => gitServer.close(() => resolve())));

  const secretIn = (value: unknown) => JSON.stringify(value).includes('s3cret-token');

  test('exports and imports through an authenticated Git server; the credentials are used, never stored nor shown', async () => {
    ok(
      await ctx.server.as('admin').POST('/v1/spaces/{spaceId}/git/export', {
        ...space('remote'),
        body: { url: `http://docs:s3cret-token@${base}/acme/handbook.git`, ref: 'refs/heads/main', commitMessage: 'Over HTTP' },
      }),
    );
    // Before the job runs, the queued operation holds the credentials encrypted only.
    const queued = await db().all(sql`SELECT * FROM git_operations WHERE space_id = 'remote'`);
    expect(secretIn(queued)).toBe(false);
    expect(secretIn(await db().all(sql`SELECT payload FROM jobs`))).toBe(false);
    await idle();

    expect((await operationsOf('remote'))[0]).toMatchObject({ status: 'done', credentials: null });
    expect((await filesAt(remote, 'refs/heads/main'))['SUMMARY.md']).toBe(EXPECTED_SUMMARY);
    const info = ok(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}/git/info', space('remote')));
    expect(info).toMatchObject({ repoName: 'acme/handbook', installationProvider: 'git', url: `http://${base}/acme/handbook.git` });

    ok(
      await ctx.server.as('admin').POST('/v1/spaces/{spaceId}/git/import', {
        ...space('mirror'),
        body: { url: `http://docs:s3cret-token@${base}/acme/handbook.git`, ref: 'refs/heads/main' },
      }),
    );
    await idle();
    expect(await pagesOf('mirror')).toEqual(HANDBOOK_SHAPE);

    for (const spaceId of ['remote', 'mirror']) {
      expect(secretIn(ok(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}/git/info', space(spaceId))))).toBe(false);
      expect(secretIn(ok(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}', space(spaceId))))).toBe(false);
      expect(secretIn(await operationsOf(spaceId))).toBe(false);
    }
    expect(secretIn(await db().all(sql`SELECT * FROM jobs`))).toBe(false);
    expect(logLines.some((line) => line.includes('s3cret-token'))).toBe(false);
  });

  test('keeps the fetched repository between operations that name the same repoCacheID', async () => {
    const exportWithCache = (commitMessage: string) =>
      ctx.server.as('admin').POST('/v1/spaces/{spaceId}/git/export', {
        ...space('remote'),
        body: {
          url: `http://docs:s3cret-token@${base}/acme/handbook.git`,
          ref: 'refs/heads/cached',
          commitMessage,
          repoCacheID: 'handbook-cache',
          force: true,
        },
      });
    ok(await exportWithCache('Cached once'));
    await idle();
    const cache = path.join(scratch, 'data', 'git-cache');
    expect(fs.readdirSync(cache)).toHaveLength(1);
    ok(await exportWithCache('Cached twice'));
    await idle();
    expect(fs.readdirSync(cache)).toHaveLength(1);
    expect((await commitsOf(remote, 'refs/heads/cached')).map((commit) => commit.message)).toEqual(['Cached twice\n', 'Cached once\n']);
    const config = fs.readFileSync(path.join(cache, fs.readdirSync(cache)[0]!, 'config'), 'utf8');
    expect(config).not.toContain('s3cret-token');
  });

  test('a refused password, an unreachable server or a redirect is recorded as a failure that does not show the secret', async () => {
    const before = ok(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}/git/info', space('mirror')));
    ok(
      await ctx.server.as('admin').POST('/v1/spaces/{spaceId}/git/export', {
        ...space('mirror'),
        body: { url: `http://docs:wrong-s3cret-token@${base}/acme/handbook.git`, ref: 'refs/heads/main', commitMessage: 'x' },
      }),
    );
    ok(
      await ctx.server.as('admin').POST('/v1/spaces/{spaceId}/git/import', {
        ...space('mirror'),
        body: { url: 'http://docs:s3cret-token@127.0.0.1:1/acme/handbook.git', ref: 'refs/heads/main' },
      }),
    );
    ok(
      await ctx.server.as('admin').POST('/v1/spaces/{spaceId}/git/import', {
        ...space('mirror'),
        body: { url: `http://docs:s3cret-token@${base}/moved/acme/handbook.git`, ref: 'refs/heads/main' },
      }),
    );
    await idle();
    const [redirected, unreachable, refused] = await operationsOf('mirror');
    expect(redirected).toMatchObject({ status: 'failed', error: expect.stringContaining('redirects are not followed with credentials') });
    expect(refused).toMatchObject({ status: 'failed', error: expect.stringContaining('refused the credentials (HTTP 401)') });
    expect(unreachable).toMatchObject({ status: 'failed', error: expect.stringContaining('could not be reached') });
    expect(secretIn(operationsOf('mirror'))).toBe(false);
    expect(ok(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}/git/info', space('mirror')))).toEqual(before);
    expect(logLines.some((line) => line.includes('s3cret-token'))).toBe(false);
  });
});

describe('repositories on the server’s disk', () => {
  const closedFixture = { ...standardFixture, organizations: [{ ...standardFixture.organizations![0]!, spaces: [{ id: 'closed', title: 'Closed' }] }] };
  const importInto = (server: TestServer, spaceId: string, url: string) =>
    server.as('admin').POST('/v1/spaces/{spaceId}/git/import', { params: { path: { spaceId } }, body: { url, ref: 'refs/heads/main' } });
  const exportFrom = (server: TestServer, spaceId: string, url: string) =>
    server.as('admin').POST('/v1/spaces/{spaceId}/git/export', {
      params: { path: { spaceId } },
      body: { url, ref: 'refs/heads/main', commitMessage: 'Export' },
    });

  test('are refused by default (ALLOW_LOCAL_GIT is false): paths, file:// and file://localhost/ are a 400 naming url', async () => {
    const repository = await handwrittenRepository('default-off', { 'README.md': '# Secret\n\nOn the server.\n' });
    const server = await startTestServer({ fixture: closedFixture });
    try {
      for (const url of [repository, `file://${repository}`, `file://localhost${repository}`, process.cwd()]) {
        expectError(await importInto(server, 'closed', url), 400, 'url', 'ALLOW_LOCAL_GIT');
        expectError(await exportFrom(server, 'closed', url), 400, 'url', 'ALLOW_LOCAL_GIT');
      }
      expect(await listGitOperations(server.running.ctx.store.reader, 'closed')).toEqual([]);
      expect((await exportFrom(server, 'closed', 'https://git.example.com/docs.git')).response.status).toBe(204);
    } finally {
      await server.close();
    }
  });

  test('ALLOW_LOCAL_GIT=true needs LOCAL_GIT_ROOT, an existing folder', () => {
    expect(readConfig({}).allowLocalGit).toBe(false);
    expect(() => readConfig({ ALLOW_LOCAL_GIT: 'true' })).toThrow(/LOCAL_GIT_ROOT/);
    expect(() => readConfig({ ALLOW_LOCAL_GIT: 'true', LOCAL_GIT_ROOT: path.join(scratch, 'no-such-folder') })).toThrow(
      /LOCAL_GIT_ROOT must be an existing folder/,
    );
    expect(readConfig({ ALLOW_LOCAL_GIT: 'true', LOCAL_GIT_ROOT: scratch })).toMatchObject({ allowLocalGit: true, localGitRoot: scratch });
  });

  test('must be inside LOCAL_GIT_ROOT, symbolic links resolved; nothing is queued otherwise', async () => {
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'git-outside-'));
    try {
      const elsewhere = path.join(outside, 'elsewhere.git');
      await git.init({ fs, dir: elsewhere, bare: true, defaultBranch: 'main' });
      fs.symlinkSync(elsewhere, path.join(scratch, 'link-to-elsewhere.git'));
      // A folder inside the root whose .git is elsewhere.
      fs.mkdirSync(path.join(scratch, 'borrowed'));
      await git.init({ fs, dir: path.join(outside, 'work'), defaultBranch: 'main' });
      fs.symlinkSync(path.join(outside, 'work', '.git'), path.join(scratch, 'borrowed', '.git'));
      const before = (await operationsOf('checks')).length;
      for (const url of [
        elsewhere,
        `file://${elsewhere}`,
        `file://localhost${elsewhere}`,
        `${scratch}/../${path.basename(outside)}/elsewhere.git`,
        path.join(scratch, 'link-to-elsewhere.git'),
        `file://${path.join(scratch, 'link-to-elsewhere.git')}`,
        path.join(scratch, 'borrowed'),
        '/',
      ]) {
        expectError(await importInto(ctx.server, 'checks', url), 400, 'url', 'LOCAL_GIT_ROOT');
        expectError(await exportFrom(ctx.server, 'checks', url), 400, 'url', 'LOCAL_GIT_ROOT');
      }
      // Odd spellings are a 400 too, never a 5xx.
      for (const url of [`file://${scratch}/%2F..%2Fetc`, `file://${scratch}/a%00b`, `${scratch}/a\u0000b`, `${scratch}/../../etc`, 'file:///']) {
        expectError(await importInto(ctx.server, 'checks', url), 400, 'url');
      }
      expect(await operationsOf('checks')).toHaveLength(before);
      expect(fs.readdirSync(path.join(elsewhere, 'refs', 'heads'))).toEqual([]); // nothing was exported there
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  test('never the server’s own folders (working directory, installation, data), even inside LOCAL_GIT_ROOT', async () => {
    const dataDir = path.join(scratch, 'own-data');
    const server = await startTestServer({ fixture: closedFixture, dataDir, env: { ALLOW_LOCAL_GIT: 'true', LOCAL_GIT_ROOT: '/' } });
    try {
      for (const url of [process.cwd(), `file://${process.cwd()}`, path.join(process.cwd(), '.git'), repoRoot, dataDir, path.dirname(dataDir), '/']) {
        expectError(await importInto(server, 'closed', url), 400, 'url', 'server itself');
        expectError(await exportFrom(server, 'closed', url), 400, 'url', 'server itself');
      }
      expect(await listGitOperations(server.running.ctx.store.reader, 'closed')).toEqual([]);
      // Any other repository under the root is used.
      const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'git-root-'));
      try {
        await git.init({ fs, dir: outside, bare: true, defaultBranch: 'main' });
        expect((await exportFrom(server, 'closed', outside)).response.status).toBe(204);
        await server.running.ctx.jobs.idle();
        expect(await listGitOperations(server.running.ctx.store.reader, 'closed')).toMatchObject([{ status: 'done' }]);
        expect(await commitsOf(outside, 'refs/heads/main')).toHaveLength(1);
      } finally {
        fs.rmSync(outside, { recursive: true, force: true });
      }
    } finally {
      await server.close();
    }
  });

  test('are checked again when the operation runs: a link moved outside the root meanwhile fails the operation', async () => {
    const root = path.join(scratch, 'moving-root');
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'git-moved-'));
    fs.mkdirSync(root);
    try {
      const inside = await handwrittenRepository('moving-root/inside', { 'README.md': '# Inside\n' });
      const secret = path.join(outside, 'secret');
      await git.init({ fs, dir: secret, defaultBranch: 'main' });
      fs.writeFileSync(path.join(secret, 'README.md'), '# Secret\n\nNot for the pages API.\n');
      await git.add({ fs, dir: secret, filepath: 'README.md' });
      await git.commit({ fs, dir: secret, message: 'Secret', author: { name: 'Owner', email: 'owner@acme.test' } });
      const link = path.join(root, 'repository');
      fs.symlinkSync(inside, link);

      const server = await startTestServer({
        fixture: closedFixture,
        dataDir: path.join(scratch, 'moving-data'),
        env: { ALLOW_LOCAL_GIT: 'true', LOCAL_GIT_ROOT: root },
      });
      try {
        await runnerOf(server).stop(); // requests are taken, nothing runs until the restart
        expect((await importInto(server, 'closed', link)).response.status).toBe(204);
        fs.unlinkSync(link);
        fs.symlinkSync(secret, link);
        await server.restart();
        await server.running.ctx.jobs.idle();
        const [operation] = await listGitOperations(server.running.ctx.store.reader, 'closed');
        expect(operation).toMatchObject({ status: 'failed', error: expect.stringContaining('LOCAL_GIT_ROOT') });
        const pages = ok(await server.as('admin').GET('/v1/spaces/{spaceId}/content/pages', { params: { path: { spaceId: 'closed' } } }));
        expect(JSON.stringify(pages)).not.toContain('Secret');
      } finally {
        await server.close();
      }
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });
});

describe('an http(s) repository at an address the server does not call', () => {
  let refusing: TestServer;
  beforeAll(async () => {
    refusing = await startTestServer({ env: { ALLOW_PRIVATE_NETWORKS: 'false', ALLOW_PRIVATE_ADDRESSES: '127.0.0.2' }, fixture: standardFixture });
  });
  afterAll(() => refusing?.close());

  test('is a 400 naming url when the request comes (an address literal, or localhost), and nothing is queued', async () => {
    const space = ok(await refusing.as('admin').POST('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId: 'acme' } }, body: { title: 'Refused Git' } }), 201);
    const onSpace = { params: { path: { spaceId: space.id } } };
    for (const url of ['http://127.0.0.1:9/repo.git', 'https://localhost/repo.git', 'http://[::1]:9/repo.git', 'http://10.0.0.1/repo.git']) {
      const message = expectError(await refusing.as('admin').POST('/v1/spaces/{spaceId}/git/import', { ...onSpace, body: { url, ref: 'refs/heads/main' } }), 400);
      expect(message).toMatch(/^url: .* is not a public address; only public addresses are called$/);
      const exported = expectError(
        await refusing.as('admin').POST('/v1/spaces/{spaceId}/git/export', { ...onSpace, body: { url, ref: 'refs/heads/main', commitMessage: 'Export' } }),
        400,
      );
      expect(exported).toMatch(/^url: .* is not a public address/);
    }
    // An address ALLOW_PRIVATE_ADDRESSES opens is accepted (and fails later, when nothing answers there).
    expect(await listGitOperations(refusing.running.ctx.store.reader, space.id)).toEqual([]);
    expect((await refusing.as('admin').POST('/v1/spaces/{spaceId}/git/import', { ...onSpace, body: { url: 'http://127.0.0.2:9/repo.git', ref: 'refs/heads/main' } })).response.status).toBe(204);
    expect(await listGitOperations(refusing.running.ctx.store.reader, space.id)).toHaveLength(1);
  });
});
