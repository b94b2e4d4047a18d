// Exporting a space to Git (POST /v1/spaces/{spaceId}/git/export): the markdown files and SUMMARY.md it commits, on
// a new branch or on top of one, under repoProjectDirectory beside the repository's other files, the Git info it
// records, and what it refuses (a checked-out branch, bad input, a caller without triggerGitSync, a locked space).
import fs from 'node:fs';
import path from 'node:path';
import git from 'isomorphic-git';
import { describe, expect, test } from 'vitest';
import { expectError, ok } from '../support/expect.ts';
import { commitsOf, EXPECTED_SUMMARY, filesAt, handbookPages, space, useGitServer } from '../support/git-sync.ts';

const { ctx, SOMEWHERE, idle, operationsOf, bareRepository, handwrittenRepository } = useGitServer();

describe('POST /v1/spaces/{spaceId}/git/export', () => {
  test('writes every page as a markdown file with a SUMMARY.md, commits on the branch and records the Git info', async () => {
    const repo = await bareRepository('export.git');
    const answer = await ctx.server.as('editor').POST('/v1/spaces/{spaceId}/git/export', {
      ...space('handbook'),
      body: { url: repo, ref: 'refs/heads/main', commitMessage: 'Export the handbook' },
    });
    expect(answer.response.status).toBe(204);
    await idle();

    expect(await filesAt(repo, 'refs/heads/main')).toEqual({
      'SUMMARY.md': EXPECTED_SUMMARY,
      'welcome.md': `# Welcome\n\n${handbookPages[0]!.markdown}`,
      'guides/README.md': '# Guides\n\nHow we work.\n',
      'guides/setup.md': '# Setup\n\n## Laptop\n\nInstall the toolchain.\n',
      'guides/deploy/README.md': '# Deploy\n\nShip it.\n',
      'guides/deploy/rollback.md': '# Rollback\n\nUndo it.\n',
      'reference/api.md': '# API\n\n```js\nfetch("/v1")\n```\n',
    });
    const [commit] = await commitsOf(repo, 'refs/heads/main');
    expect(commit!.message).toBe('Export the handbook\n');
    expect(commit!.author).toMatchObject({ name: 'Editor User', email: 'editor@acme.test' });
    expect(commit!.committer.email).toBe('git-sync@docs-platform.invalid');
    expect(commit!.author.timestamp).toBe(Date.parse('2026-03-01T09:00:00Z') / 1000);

    const info = ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/git/info', space('handbook')));
    expect(info).toEqual({
      repoName: 'export',
      installationProvider: 'git',
      integration: 'git-sync',
      url: repo,
      updatedAt: ctx.server.clock.now().toISOString(),
    });
    expect(ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}', space('handbook'))).gitSync).toEqual(info);
    expect((await operationsOf('handbook'))[0]).toMatchObject({ kind: 'export', status: 'done', error: null });
  });

  test('creates a missing branch, then commits on top of it; nothing is committed when nothing changed, unless forced', async () => {
    const repo = await bareRepository('branches.git');
    const exportTo = (body: { force?: boolean; commitMessage: string }) =>
      ctx.server.as('admin').POST('/v1/spaces/{spaceId}/git/export', {
        ...space('branches'),
        body: { url: `file://${repo}`, ref: 'refs/heads/docs/v1', ...body },
      });
    expect((await exportTo({ commitMessage: 'First' })).response.status).toBe(204);
    await idle();
    expect((await commitsOf(repo, 'refs/heads/docs/v1')).map((commit) => commit.message)).toEqual(['First\n']);

    expect((await exportTo({ commitMessage: 'Unchanged' })).response.status).toBe(204);
    await idle();
    expect((await commitsOf(repo, 'refs/heads/docs/v1')).map((commit) => commit.message)).toEqual(['First\n']);
    expect((await operationsOf('branches'))[0]).toMatchObject({ status: 'done', commitOid: null });

    expect((await exportTo({ commitMessage: 'Forced', force: true })).response.status).toBe(204);
    await idle();
    const commits = await commitsOf(repo, 'refs/heads/docs/v1');
    expect(commits.map((commit) => commit.message)).toEqual(['Forced\n', 'First\n']);
    expect(commits[0]!.tree).toBe(commits[1]!.tree);
    const info = ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/git/info', space('branches')));
    expect(info.url).toBe(`file://${repo}`);
  });

  test('writes under repoProjectDirectory and leaves the other files of the repository as they are', async () => {
    const repo = await handwrittenRepository('mono', { 'README.md': '# Mono\n', 'src/index.js': 'export {};\n' });
    await git.branch({ fs, dir: repo, ref: 'docs' });
    const answer = await ctx.server.as('admin').POST('/v1/spaces/{spaceId}/git/export', {
      ...space('mono'),
      body: { url: repo, ref: 'refs/heads/docs', commitMessage: 'Docs', repoProjectDirectory: 'docs/handbook' },
    });
    expect(answer.response.status).toBe(204);
    await idle();
    const files = await filesAt(path.join(repo, '.git'), 'refs/heads/docs');
    expect(files['README.md']).toBe('# Mono\n');
    expect(files['src/index.js']).toBe('export {};\n');
    expect(files['docs/handbook/SUMMARY.md']).toBe(EXPECTED_SUMMARY);
    expect(files['docs/handbook/guides/deploy/rollback.md']).toBe('# Rollback\n\nUndo it.\n');
    expect(Object.keys(files).filter((file) => !file.startsWith('docs/handbook/'))).toEqual(['README.md', 'src/index.js']);

    // Once the space has other pages, the next export replaces the files it wrote, and only those.
    const next = await handwrittenRepository('mono-next', { 'SUMMARY.md': '* [Only](only.md)\n', 'only.md': '# Only\n' });
    ok(await ctx.server.as('admin').POST('/v1/spaces/{spaceId}/git/import', { ...space('mono'), body: { url: next, ref: 'refs/heads/main' } }));
    ok(
      await ctx.server.as('admin').POST('/v1/spaces/{spaceId}/git/export', {
        ...space('mono'),
        body: { url: repo, ref: 'refs/heads/docs', commitMessage: 'Fewer pages', repoProjectDirectory: 'docs/handbook' },
      }),
    );
    await idle();
    expect(Object.keys(await filesAt(path.join(repo, '.git'), 'refs/heads/docs')).sort()).toEqual([
      'README.md',
      'docs/handbook/SUMMARY.md',
      'docs/handbook/only.md',
      'src/index.js',
    ]);
  });

  test('refuses to move a branch that is checked out in a working tree, and records why', async () => {
    const repo = await handwrittenRepository('checked-out', { 'README.md': '# Checked out\n' });
    const answer = await ctx.server.as('admin').POST('/v1/spaces/{spaceId}/git/export', {
      ...space('checks'),
      body: { url: repo, ref: 'refs/heads/main', commitMessage: 'Nope' },
    });
    expect(answer.response.status).toBe(204);
    await idle();
    expect((await operationsOf('checks'))[0]).toMatchObject({ status: 'failed', error: expect.stringContaining('checked out') });
    expect((await commitsOf(path.join(repo, '.git'), 'refs/heads/main')).map((commit) => commit.message)).toEqual(['Written by hand\n']);
    expect(ok(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}/git/info', space('checks')))).toEqual({});
  });

  test('rejects invalid input with 400 naming the field, and starts nothing', async () => {
    const before = (await operationsOf('checks')).length;
    const bodies: [Record<string, unknown>, string][] = [
      [{ url: 'ssh://git@example.com/repo.git', ref: 'refs/heads/main', commitMessage: 'x' }, 'url'],
      [{ url: 'relative/path', ref: 'refs/heads/main', commitMessage: 'x' }, 'url'],
      [{ url: SOMEWHERE, ref: 'main', commitMessage: 'x' }, 'ref'],
      [{ url: SOMEWHERE, ref: 'refs/heads/main' }, 'commitMessage'],
      [{ url: SOMEWHERE, ref: 'refs/heads/main', commitMessage: '' }, 'commitMessage'],
      [{ url: SOMEWHERE, ref: 'refs/heads/main', commitMessage: 'x', repoProjectDirectory: '../outside' }, 'repoProjectDirectory'],
      [{ url: SOMEWHERE, ref: 'refs/heads/main', commitMessage: 'x', repoCommitURL: 'not a url' }, 'repoCommitURL'],
      [{ url: SOMEWHERE, ref: 'refs/heads/main', commitMessage: 'x', timestamp: 'yesterday' }, 'timestamp'],
      [{ url: SOMEWHERE, ref: 'refs/heads/main', commitMessage: 'x', standalone: true }, 'standalone'],
    ];
    for (const [body, field] of bodies) {
      expectError(
        await ctx.server.as('admin').POST('/v1/spaces/{spaceId}/git/export', { ...space('checks'), body: body as never }),
        400,
        field,
      );
    }
    await idle();
    expect(await operationsOf('checks')).toHaveLength(before);
    expect(ok(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}/git/info', space('checks')))).toEqual({});
  });

  test('needs the triggerGitSync permission (403), a live space (403 when locked), membership (404) and a token (401)', async () => {
    const body = { url: SOMEWHERE, ref: 'refs/heads/main', commitMessage: 'x' };
    const before = (await operationsOf('checks')).length;
    expectError(await ctx.server.as('commenter').POST('/v1/spaces/{spaceId}/git/export', { ...space('checks'), body }), 403, 'triggerGitSync');
    expectError(await ctx.server.as('outsider').POST('/v1/spaces/{spaceId}/git/export', { ...space('checks'), body }), 404);
    expectError(await ctx.server.as('guest').POST('/v1/spaces/{spaceId}/git/export', { ...space('checks'), body }), 404);
    expectError(await ctx.server.as('admin').POST('/v1/spaces/{spaceId}/git/export', { ...space('no-such-space'), body }), 404);
    expectError(await ctx.server.as('anonymous').POST('/v1/spaces/{spaceId}/git/export', { ...space('checks'), body }), 401);
    const locked = ok(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}', space('locked')));
    expect(locked.permissions.triggerGitSync).toBe(false);
    expectError(await ctx.server.as('admin').POST('/v1/spaces/{spaceId}/git/export', { ...space('locked'), body }), 403, 'locked');
    expect(await operationsOf('checks')).toHaveLength(before);
    expect(await operationsOf('locked')).toHaveLength(0);
  });
});
