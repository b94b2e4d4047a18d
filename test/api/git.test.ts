import fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import git from 'isomorphic-git';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { sql } from 'kysely';
import type { StoredPage } from '../../server/content/model.ts';
import { getRevision } from '../../server/content/revisions.ts';
import { readConfig } from '../../server/config.ts';
import { gitProvider, listGitOperations } from '../../server/domain/git.ts';
import type { JobRunner } from '../../server/jobs/runner.ts';
import { standardFixture } from '../support/fixture.ts';
import { expectError, ok } from '../support/expect.ts';
import { serveWithGitHttpBackend } from '../support/git-http-backend.ts';
import { repoRoot } from '../support/repo.ts';
import { startTestServer, type TestServer, useTestServer } from '../support/server.ts';

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'git-test-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));
/** A path under LOCAL_GIT_ROOT where no repository is. */
const SOMEWHERE = path.join(scratch, 'repo');

const handbookPages = [
  { title: 'Welcome', markdown: 'Hello **world**.\n\nSee [the guide](https://example.com/guide).\n' },
  {
    title: 'Guides',
    markdown: 'How we work.\n',
    pages: [
      { title: 'Setup', markdown: '## Laptop\n\nInstall the toolchain.\n' },
      { title: 'Deploy', markdown: 'Ship it.\n', pages: [{ title: 'Rollback', markdown: 'Undo it.\n' }] },
    ],
  },
  { title: 'Reference', pages: [{ title: 'API', markdown: '```js\nfetch("/v1")\n```\n' }] },
];

// Spaces with the handbook's pages, and spaces with one old page.
const HANDBOOK_SPACES = ['handbook', 'branches', 'mono', 'remote'];
const OTHER_SPACES = ['ordered', 'copy', 'preview', 'handmade', 'folders', 'broken', 'locked', 'legacy', 'mirror', 'checks', 'oversized'];

const fixture = {
  ...standardFixture,
  organizations: [
    {
      ...standardFixture.organizations![0]!,
      spaces: [
        ...HANDBOOK_SPACES.map((id) => ({ id, title: id, pages: handbookPages })),
        ...OTHER_SPACES.map((id) => ({ id, title: id, pages: [{ title: 'Old', markdown: 'Old page.\n' }] })),
      ],
    },
    { ...standardFixture.organizations![1]!, spaces: [{ id: 'globex-space', title: 'Globex' }] },
  ],
};

// Every log line of the server, to check that no credential is ever logged.
const logLines: string[] = [];
const ctx = useTestServer({
  fixture,
  dataDir: path.join(scratch, 'data'), // a folder: the server restarts, and keeps repoCacheID clones there
  env: { ALLOW_LOCAL_GIT: 'true', LOCAL_GIT_ROOT: scratch }, // the repositories of these tests are under scratch
  log: pino({ level: 'debug' }, { write: (line: string) => void logLines.push(line) }),
});

const space = (spaceId: string) => ({ params: { path: { spaceId } } });

beforeAll(async () => {
  ok(await ctx.server.as('admin').PATCH('/v1/spaces/{spaceId}', { ...space('locked'), body: { editMode: 'locked' } }));
});

const idle = () => ctx.server.running.ctx.jobs.idle();
const db = () => ctx.server.running.ctx.store.reader;
const runnerOf = (server: { running: { ctx: { jobs: unknown } } }) => server.running.ctx.jobs as JobRunner;

type Shape = { title: string; type: string; markdown?: string; pages: Shape[] };

/** The pages of a space's current content, read through the API, reduced to what Git carries. */
async function pagesOf(spaceId: string): Promise<Shape[]> {
  const content = ok(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}/content', space(spaceId)));
  const shape = (pages: NonNullable<typeof content.pages>): Promise<Shape[]> =>
    Promise.all(
      pages.map(async (page) => ({
        title: page.title!,
        type: page.type!,
        ...(page.type === 'document'
          ? {
              markdown: ok(
                await ctx.server.as('admin').GET('/v1/spaces/{spaceId}/content/page/{pageId}', {
                  params: { path: { spaceId, pageId: page.id! } },
                }),
              ).markdown,
            }
          : {}),
        pages: await shape(page.pages ?? []),
      })),
    );
  return shape(content.pages ?? []);
}

/** The pages of a revision no API operation reads (a standalone import's), from the database. */
async function storedPages(revisionId: string, spaceId: string): Promise<Shape[]> {
  const shape = (pages: StoredPage[]): Shape[] =>
    pages.map((page) => ({
      title: page.title,
      type: page.type,
      ...(page.type === 'document' ? { markdown: page.markdown } : {}),
      pages: shape(page.pages),
    }));
  return shape((await getRevision(db(), revisionId, spaceId))!.content.pages);
}

const operationsOf = (spaceId: string) => listGitOperations(db(), spaceId);

async function bareRepository(name: string): Promise<string> {
  const dir = path.join(scratch, name);
  await git.init({ fs, dir, bare: true, defaultBranch: 'main' });
  return dir;
}

/** A non-bare repository with one commit of `files` on `main` (a folder the import reads in place). */
async function handwrittenRepository(name: string, files: Record<string, string | Buffer>): Promise<string> {
  const dir = path.join(scratch, name);
  await git.init({ fs, dir, defaultBranch: 'main' });
  for (const [file, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), content);
    await git.add({ fs, dir, filepath: file });
  }
  await git.commit({ fs, dir, message: 'Written by hand', author: { name: 'Hand', email: 'hand@acme.test' } });
  return dir;
}

/** The files of the commit `ref` points at, as text. */
async function filesAt(gitdir: string, ref: string): Promise<Record<string, string>> {
  const oid = await git.resolveRef({ fs, gitdir, ref });
  const { commit } = await git.readCommit({ fs, gitdir, oid });
  const files: Record<string, string> = {};
  const walk = async (tree: string, prefix: string) => {
    for (const entry of (await git.readTree({ fs, gitdir, oid: tree })).tree) {
      if (entry.type === 'tree') await walk(entry.oid, `${prefix}${entry.path}/`);
      else files[`${prefix}${entry.path}`] = Buffer.from((await git.readBlob({ fs, gitdir, oid: entry.oid })).blob).toString('utf8');
    }
  };
  await walk(commit.tree, '');
  return files;
}

const commitsOf = async (gitdir: string, ref: string) => (await git.log({ fs, gitdir, ref })).map((entry) => entry.commit);

const EXPECTED_SUMMARY = `# Table of contents

* [Welcome](welcome.md)
* [Guides](guides/README.md)
  * [Setup](guides/setup.md)
  * [Deploy](guides/deploy/README.md)
    * [Rollback](guides/deploy/rollback.md)
* Reference
  * [API](reference/api.md)
`;

const HANDBOOK_SHAPE = [
  { title: 'Welcome', type: 'document', markdown: handbookPages[0]!.markdown, pages: [] },
  {
    title: 'Guides',
    type: 'document',
    markdown: 'How we work.\n',
    pages: [
      { title: 'Setup', type: 'document', markdown: '## Laptop\n\nInstall the toolchain.\n', pages: [] },
      {
        title: 'Deploy',
        type: 'document',
        markdown: 'Ship it.\n',
        pages: [{ title: 'Rollback', type: 'document', markdown: 'Undo it.\n', pages: [] }],
      },
    ],
  },
  { title: 'Reference', type: 'group', pages: [{ title: 'API', type: 'document', markdown: '```js\nfetch("/v1")\n```\n', pages: [] }] },
];

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

describe('POST /v1/spaces/{spaceId}/git/import', () => {
  test('a markdown file over 2 MiB, more than a page holds, fails the import and changes nothing', async () => {
    const repo = await handwrittenRepository('oversized', { 'README.md': '# Home\n', 'big.md': `# Big\n\n${'word '.repeat(450_000)}\n` });
    const before = ok(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}', space('oversized')));
    ok(await ctx.server.as('admin').POST('/v1/spaces/{spaceId}/git/import', { ...space('oversized'), body: { url: repo, ref: 'refs/heads/main' } }));
    await idle();
    expect((await operationsOf('oversized'))[0]).toMatchObject({ status: 'failed', error: expect.stringContaining('big.md is larger than 2097152 bytes') });
    expect(ok(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}', space('oversized'))).revision).toBe(before.revision);
  });

  test('an export then an import into another space gives the same pages, in a new current revision', async () => {
    const repo = await bareRepository('round-trip.git');
    ok(
      await ctx.server.as('admin').POST('/v1/spaces/{spaceId}/git/export', {
        ...space('handbook'),
        body: { url: repo, ref: 'refs/heads/main', commitMessage: 'Round trip' },
      }),
    );
    await idle();
    const [tip] = await commitsOf(repo, 'refs/heads/main');
    const oid = await git.resolveRef({ fs, gitdir: repo, ref: 'refs/heads/main' });
    const before = ok(await ctx.server.as('editor').GET('/v1/spaces/{spaceId}', space('copy')));
    ctx.server.clock.advance(60_000);

    const answer = await ctx.server.as('editor').POST('/v1/spaces/{spaceId}/git/import', {
      ...space('copy'),
      body: {
        url: repo,
        ref: 'refs/heads/main',
        repoCommitURL: 'https://git.acme.test/handbook/commit/',
        gitInfo: { provider: 'gitea', url: 'https://git.acme.test/handbook' },
      },
    });
    expect(answer.response.status).toBe(204);
    await idle();

    const after = ok(await ctx.server.as('editor').GET('/v1/spaces/{spaceId}', space('copy')));
    expect(after.revision).not.toBe(before.revision);
    expect(await pagesOf('copy')).toEqual(HANDBOOK_SHAPE);
    expect(await pagesOf('copy')).toEqual(await pagesOf('handbook'));
    const revision = ok(await ctx.server.as('editor').GET('/v1/spaces/{spaceId}/content', space('copy')));
    expect(revision.id).toBe(after.revision);
    expect(revision.parents).toEqual([before.revision]);
    expect(revision.git).toEqual({
      oid,
      message: tip!.message.trimEnd(),
      createdByService: true,
      url: `https://git.acme.test/handbook/commit/${oid}`,
      ref: 'refs/heads/main',
    });
    expect(revision.pages![1]!.pages![0]!.git).toEqual({ oid: expect.any(String), path: 'guides/setup.md' });
    expect(after.gitSync).toEqual({
      repoName: 'round-trip',
      installationProvider: 'gitea',
      integration: 'git-sync',
      url: repo,
      updatedAt: ctx.server.clock.now().toISOString(),
    });
    expect((await operationsOf('copy'))[0]).toMatchObject({ kind: 'import', status: 'done', commitOid: oid, revisionId: after.revision });
  });

  test('importing the same commit again changes nothing, unless forced; pages keep their ids', async () => {
    const repo = path.join(scratch, 'round-trip.git');
    const first = ok(await ctx.server.as('editor').GET('/v1/spaces/{spaceId}/content', space('copy')));
    const firstIds = first.pages!.map((page) => page.id);
    ok(await ctx.server.as('editor').POST('/v1/spaces/{spaceId}/git/import', { ...space('copy'), body: { url: repo, ref: 'refs/heads/main' } }));
    await idle();
    expect(ok(await ctx.server.as('editor').GET('/v1/spaces/{spaceId}', space('copy'))).revision).toBe(first.id);

    ok(
      await ctx.server.as('editor').POST('/v1/spaces/{spaceId}/git/import', {
        ...space('copy'),
        body: { url: repo, ref: 'refs/heads/main', force: true },
      }),
    );
    await idle();
    const forced = ok(await ctx.server.as('editor').GET('/v1/spaces/{spaceId}/content', space('copy')));
    expect(forced.id).not.toBe(first.id);
    expect(forced.pages!.map((page) => page.id)).toEqual(firstIds);
    expect(await pagesOf('copy')).toEqual(HANDBOOK_SHAPE);
  });

  test('a standalone import produces a revision and leaves the space’s content and Git info unchanged', async () => {
    const repo = path.join(scratch, 'round-trip.git');
    const before = ok(await ctx.server.as('editor').GET('/v1/spaces/{spaceId}', space('preview')));
    ok(
      await ctx.server.as('editor').POST('/v1/spaces/{spaceId}/git/import', {
        ...space('preview'),
        body: { url: repo, ref: 'refs/heads/main', standalone: true },
      }),
    );
    await idle();
    const after = ok(await ctx.server.as('editor').GET('/v1/spaces/{spaceId}', space('preview')));
    expect(after.revision).toBe(before.revision);
    expect(after.gitSync).toBeUndefined();
    expect(await pagesOf('preview')).toEqual([{ title: 'Old', type: 'document', markdown: 'Old page.\n', pages: [] }]);
    const [operation] = await operationsOf('preview');
    expect(operation).toMatchObject({ status: 'done', revisionId: expect.any(String) });
    expect(await storedPages(operation!.revisionId!, 'preview')).toEqual(HANDBOOK_SHAPE);
    expect((await getRevision(db(), operation!.revisionId!, 'preview'))!.parents).toEqual([before.revision]);
  });
});

describe('POST /v1/spaces/{spaceId}/git/import: repositories as they are written', () => {
  test('reads a repository written by hand: part headings, link pages, front matter, assets and external files', async () => {
    const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000002000000030806000000', 'hex');
    const repo = await handwrittenRepository('handmade', {
      'docs/SUMMARY.md': [
        '# Summary',
        '',
        '* [Introduction](README.md)',
        '',
        '## Guides',
        '',
        '- [Getting started](guides/getting-started.md)',
        '  - [Install](guides/install.md "How to install")',
        '- [Status page](https://status.acme.test)',
        '',
      ].join('\n'),
      'docs/README.md': '---\ndescription: What this is\n---\n\n# Hello\n\nThe intro. ![Logo](.gitbook/assets/logo.png)\n',
      'docs/guides/getting-started.md': 'No heading here.\n\nSee [the script](../../scripts/setup.sh) and [install](install.md).\n',
      'docs/guides/install.md': '# Install it\n\nRun it.\n',
      'docs/.gitbook/assets/logo.png': png,
      'docs/notes.md': '# Not in the summary\n',
      'scripts/setup.sh': '#!/bin/sh\n',
    });
    ok(
      await ctx.server.as('editor').POST('/v1/spaces/{spaceId}/git/import', {
        ...space('handmade'),
        body: {
          url: `file://${repo}`,
          ref: 'refs/heads/main',
          repoProjectDirectory: 'docs',
          repoTreeURL: 'https://git.acme.test/handmade/blob/main/',
        },
      }),
    );
    await idle();
    expect((await operationsOf('handmade'))[0]).toMatchObject({ status: 'done' });
    expect(await pagesOf('handmade')).toEqual([
      { title: 'Hello', type: 'document', markdown: 'The intro. ![Logo](.gitbook/assets/logo.png)\n', pages: [] },
      {
        title: 'Guides',
        type: 'group',
        pages: [
          {
            title: 'Getting started',
            type: 'document',
            markdown:
              'No heading here.\n\nSee [the script](https://git.acme.test/handmade/blob/main/scripts/setup.sh) and [install](install.md).\n',
            pages: [{ title: 'Install it', type: 'document', markdown: 'Run it.\n', pages: [] }],
          },
          { title: 'Status page', type: 'link', pages: [] },
        ],
      },
    ]);
    const content = ok(await ctx.server.as('editor').GET('/v1/spaces/{spaceId}/content', space('handmade')));
    expect(content.pages![0]).toMatchObject({ slug: 'hello', description: 'What this is', git: { path: 'docs/README.md' } });
    expect(content.pages![1]).toMatchObject({ slug: 'guides', path: 'guides' });
    expect(content.pages![1]!.pages![0]).toMatchObject({ slug: 'getting-started', path: 'guides/getting-started' });
    expect(content.files).toEqual([
      expect.objectContaining({ name: 'logo.png', contentType: 'image/png', size: png.length, dimensions: { width: 2, height: 3 } }),
    ]);
    expect(content.files![0]!.git).toMatchObject({ path: 'docs/.gitbook/assets/logo.png' });
    expect(content.git).toMatchObject({ message: 'Written by hand', createdByService: false, ref: 'refs/heads/main' });
    // The API shows no target of link pages; the stored page has it.
    expect((await getRevision(db(), content.id!, 'handmade'))!.content.pages[1]!.pages[1]!.href).toBe('https://status.acme.test');
  });

  test('an export writes the files, link pages and page attributes, and an import reads them back the same', async () => {
    const repo = await bareRepository('handmade-copy.git');
    ok(
      await ctx.server.as('editor').POST('/v1/spaces/{spaceId}/git/export', {
        ...space('handmade'),
        body: { url: repo, ref: 'refs/heads/main', commitMessage: 'Copy', repoProjectDirectory: 'docs' },
      }),
    );
    await idle();
    const files = await filesAt(repo, 'refs/heads/main');
    expect(files['docs/SUMMARY.md']).toBe(
      [
        '# Table of contents',
        '',
        '* [Hello](hello.md)',
        '* Guides',
        '  * [Getting started](guides/getting-started/README.md)',
        '    * [Install it](guides/getting-started/install.md)',
        '  * [Status page](https://status.acme.test)',
        '',
      ].join('\n'),
    );
    expect(files['docs/hello.md']).toBe('---\ndescription: What this is\n---\n\n# Hello\n\nThe intro. ![Logo](.gitbook/assets/logo.png)\n');
    const { blob } = await git.readBlob({
      fs,
      gitdir: repo,
      oid: await git.resolveRef({ fs, gitdir: repo, ref: 'refs/heads/main' }),
      filepath: 'docs/.gitbook/assets/logo.png',
    });
    expect(Buffer.from(blob).toString('hex')).toBe('89504e470d0a1a0a0000000d4948445200000002000000030806000000');

    ok(
      await ctx.server.as('editor').POST('/v1/spaces/{spaceId}/git/import', {
        ...space('folders'),
        body: { url: repo, ref: 'refs/heads/main', repoProjectDirectory: 'docs' },
      }),
    );
    await idle();
    expect(await pagesOf('folders')).toEqual(await pagesOf('handmade'));
    const copy = ok(await ctx.server.as('editor').GET('/v1/spaces/{spaceId}/content', space('folders')));
    expect(copy.pages![0]!.description).toBe('What this is');
    expect(copy.files!.map((file) => [file.name, file.size])).toEqual([['logo.png', 29]]);
  });

  test('without a SUMMARY.md, pages follow the folders: README first, then files and folders by name', async () => {
    const repo = await handwrittenRepository('folders', {
      'README.md': '# Home\n\nStart here.\n',
      'zeta.md': '# Zeta\n',
      'alpha.md': 'Alpha without a heading.\n',
      'guides/README.md': '# All guides\n',
      'guides/one.md': '# One\n',
      'empty/deeper/two.md': '# Two\n',
    });
    ok(await ctx.server.as('editor').POST('/v1/spaces/{spaceId}/git/import', { ...space('folders'), body: { url: repo, ref: 'refs/heads/main' } }));
    await idle();
    expect(await pagesOf('folders')).toEqual([
      { title: 'Home', type: 'document', markdown: 'Start here.\n', pages: [] },
      { title: 'alpha', type: 'document', markdown: 'Alpha without a heading.\n', pages: [] },
      {
        title: 'empty',
        type: 'group',
        pages: [{ title: 'deeper', type: 'group', pages: [{ title: 'Two', type: 'document', markdown: '', pages: [] }] }],
      },
      { title: 'All guides', type: 'document', markdown: '', pages: [{ title: 'One', type: 'document', markdown: '', pages: [] }] },
      { title: 'Zeta', type: 'document', markdown: '', pages: [] },
    ]);
  });
});

describe('POST /v1/spaces/{spaceId}/git/import: failures, bad input and access', () => {
  test('a failing import (a missing repository or branch) is recorded, changes nothing, and the server keeps serving', async () => {
    const before = ok(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}', space('broken')));
    ok(
      await ctx.server.as('admin').POST('/v1/spaces/{spaceId}/git/import', {
        ...space('broken'),
        body: { url: path.join(scratch, 'no-such-repo.git'), ref: 'refs/heads/main' },
      }),
    );
    ok(
      await ctx.server.as('admin').POST('/v1/spaces/{spaceId}/git/import', {
        ...space('broken'),
        body: { url: path.join(scratch, 'round-trip.git'), ref: 'refs/heads/no-such-branch' },
      }),
    );
    ok(
      await ctx.server.as('admin').POST('/v1/spaces/{spaceId}/git/import', {
        ...space('broken'),
        body: { url: path.join(scratch, 'round-trip.git'), ref: 'refs/heads/main', repoProjectDirectory: 'nowhere' },
      }),
    );
    await idle();
    const [folder, branch, missing] = await operationsOf('broken');
    expect(missing).toMatchObject({ status: 'failed', error: expect.stringContaining('is not a Git repository') });
    expect(branch).toMatchObject({ status: 'failed', error: expect.stringContaining('no branch refs/heads/no-such-branch') });
    expect(folder).toMatchObject({ status: 'failed', error: expect.stringContaining('no folder nowhere') });
    const after = ok(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}', space('broken')));
    expect(after.revision).toBe(before.revision);
    expect(ok(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}/git/info', space('broken')))).toEqual({});
    expect(logLines.some((line) => line.includes('git import failed') && line.includes('no branch refs/heads/no-such-branch'))).toBe(true);
  });

  test('an import into a space locked after the request is refused when it runs, and recorded', async () => {
    // The job is held back (kick does nothing) while the space gets locked: when it runs, it finds the space locked.
    const runner = runnerOf(ctx.server);
    const original = runner.kick.bind(runner);
    runner.kick = () => {};
    try {
      ok(
        await ctx.server.as('admin').POST('/v1/spaces/{spaceId}/git/import', {
          ...space('checks'),
          body: { url: path.join(scratch, 'round-trip.git'), ref: 'refs/heads/main' },
        }),
      );
      ok(await ctx.server.as('admin').PATCH('/v1/spaces/{spaceId}', { ...space('checks'), body: { editMode: 'locked' } }));
    } finally {
      runner.kick = original;
    }
    await idle();
    expect((await operationsOf('checks'))[0]).toMatchObject({ kind: 'import', status: 'failed', error: expect.stringContaining('locked') });
    expect(await pagesOf('checks')).toEqual([{ title: 'Old', type: 'document', markdown: 'Old page.\n', pages: [] }]);
    ok(await ctx.server.as('admin').PATCH('/v1/spaces/{spaceId}', { ...space('checks'), body: { editMode: 'live' } }));
  });

  test('rejects invalid input with 400 naming the field, and starts nothing', async () => {
    const before = (await operationsOf('checks')).length;
    const bodies: [Record<string, unknown>, string][] = [
      [{ ref: 'refs/heads/main' }, 'url'],
      [{ url: '', ref: 'refs/heads/main' }, 'url'],
      [{ url: 'ftp://example.com/repo.git', ref: 'refs/heads/main' }, 'url'],
      [{ url: SOMEWHERE, ref: 'refs/tags/v1' }, 'ref'],
      [{ url: SOMEWHERE, ref: 'refs/heads/main', standalone: 'yes' }, 'standalone'],
      [{ url: SOMEWHERE, ref: 'refs/heads/main', repoTreeURL: '/relative' }, 'repoTreeURL'],
      [{ url: SOMEWHERE, ref: 'refs/heads/main', gitInfo: { provider: 'github' } }, 'gitInfo'],
      [{ url: SOMEWHERE, ref: 'refs/heads/main', gitInfo: { provider: 'github', url: 'https://u:p@github.com/a/b' } }, 'gitInfo.url'],
      [{ url: SOMEWHERE, ref: 'refs/heads/main', commitMessage: 'not for imports' }, 'commitMessage'],
    ];
    for (const [body, field] of bodies) {
      expectError(
        await ctx.server.as('admin').POST('/v1/spaces/{spaceId}/git/import', { ...space('checks'), body: body as never }),
        400,
        field,
      );
    }
    await idle();
    expect(await operationsOf('checks')).toHaveLength(before);
  });

  test('needs the triggerGitSync permission (403), a live space (403 when locked), membership (404) and a token (401)', async () => {
    const body = { url: SOMEWHERE, ref: 'refs/heads/main' };
    const before = (await operationsOf('checks')).length;
    expectError(await ctx.server.as('reader').POST('/v1/spaces/{spaceId}/git/import', { ...space('checks'), body }), 403, 'triggerGitSync');
    expectError(await ctx.server.as('admin').POST('/v1/spaces/{spaceId}/git/import', { ...space('locked'), body }), 403, 'locked');
    expectError(await ctx.server.as('outsider').POST('/v1/spaces/{spaceId}/git/import', { ...space('checks'), body }), 404);
    expectError(await ctx.server.as('admin').POST('/v1/spaces/{spaceId}/git/import', { ...space('no-such-space'), body }), 404);
    expectError(await ctx.server.as('anonymous').POST('/v1/spaces/{spaceId}/git/import', { ...space('checks'), body }), 401);
    expect(await operationsOf('checks')).toHaveLength(before);
  });
});

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

describe('GET /v1/spaces/{spaceId}/git/info', () => {
  test('answers {} for a space never synchronised', async () => {
    expect(ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/git/info', space('legacy')))).toEqual({});
  });

  test('derives the provider from the host unless the request names it', () => {
    expect(gitProvider({ kind: 'http', url: 'https://github.com/acme/docs.git' })).toBe('github');
    expect(gitProvider({ kind: 'http', url: 'https://gitlab.acme.test/docs.git' })).toBe('gitlab');
    expect(gitProvider({ kind: 'http', url: 'https://git.acme.test/docs.git' })).toBe('git');
    expect(gitProvider({ kind: 'http', url: 'https://github.com/acme/docs.git' }, 'github-enterprise')).toBe('github-enterprise');
    expect(gitProvider({ kind: 'local', path: '/srv/docs.git' })).toBe('git');
  });

  test('is visible to whoever can see the space: 404 to guests, other organizations and unknown spaces; 401 without a token', async () => {
    expectError(await ctx.server.as('guest').GET('/v1/spaces/{spaceId}/git/info', space('handbook')), 404);
    expectError(await ctx.server.as('outsider').GET('/v1/spaces/{spaceId}/git/info', space('handbook')), 404);
    expectError(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}/git/info', space('no-such-space')), 404);
    expectError(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}/git/info', space('globex-space')), 404);
    expectError(await ctx.server.as('anonymous').GET('/v1/spaces/{spaceId}/git/info', space('handbook')), 401);
    expectError(
      await ctx.server.as('admin').GET('/v1/spaces/{spaceId}/git/info', { params: { path: { spaceId: 'handbook' }, query: { verbose: 1 } } } as never),
      400,
      'verbose',
    );
  });
});

describe('DELETE /v1/spaces/{spaceId}/git/legacy-installation', () => {
  test('clears the Git info of the space, and answers 204 again when there is none', async () => {
    const repo = await bareRepository('legacy.git');
    ok(
      await ctx.server.as('admin').POST('/v1/spaces/{spaceId}/git/export', {
        ...space('legacy'),
        body: { url: repo, ref: 'refs/heads/main', commitMessage: 'Legacy' },
      }),
    );
    await idle();
    expect(ok(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}/git/info', space('legacy')))).toMatchObject({ repoName: 'legacy' });

    expect((await ctx.server.as('admin').DELETE('/v1/spaces/{spaceId}/git/legacy-installation', space('legacy'))).response.status).toBe(204);
    expect(ok(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}/git/info', space('legacy')))).toEqual({});
    expect(ok(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}', space('legacy'))).gitSync).toBeUndefined();
    expect((await ctx.server.as('admin').DELETE('/v1/spaces/{spaceId}/git/legacy-installation', space('legacy'))).response.status).toBe(204);
  });

  test('needs the installIntegration permission (403), membership (404) and a token (401)', async () => {
    ok(
      await ctx.server.as('admin').POST('/v1/spaces/{spaceId}/git/export', {
        ...space('legacy'),
        body: { url: path.join(scratch, 'legacy.git'), ref: 'refs/heads/main', commitMessage: 'Again', force: true },
      }),
    );
    await idle();
    const info = ok(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}/git/info', space('legacy')));
    expect(info.repoName).toBe('legacy');
    const editor = ok(await ctx.server.as('editor').GET('/v1/spaces/{spaceId}', space('legacy')));
    expect(editor.permissions).toMatchObject({ triggerGitSync: true, installIntegration: false });
    expectError(await ctx.server.as('editor').DELETE('/v1/spaces/{spaceId}/git/legacy-installation', space('legacy')), 403, 'installIntegration');
    expectError(await ctx.server.as('outsider').DELETE('/v1/spaces/{spaceId}/git/legacy-installation', space('legacy')), 404);
    expectError(await ctx.server.as('admin').DELETE('/v1/spaces/{spaceId}/git/legacy-installation', space('no-such-space')), 404);
    expectError(await ctx.server.as('anonymous').DELETE('/v1/spaces/{spaceId}/git/legacy-installation', space('legacy')), 401);
    expect(ok(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}/git/info', space('legacy')))).toEqual(info);
  });
});

describe('background work across a restart', () => {
  test('queued jobs run after a restart, in the order of their timestamp, and an interrupted one runs again', async () => {
    const incoming = await handwrittenRepository('incoming', { 'SUMMARY.md': '* [Imported](imported.md)\n', 'imported.md': '# Imported\n\nFrom Git.\n' });
    const outgoing = await bareRepository('outgoing.git');
    const before = ok(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}', space('ordered')));
    await runnerOf(ctx.server).stop(); // as if the server were stopping: requests are still taken, nothing runs
    ok(
      await ctx.server.as('admin').POST('/v1/spaces/{spaceId}/git/export', {
        ...space('ordered'),
        body: { url: outgoing, ref: 'refs/heads/main', commitMessage: 'Later event', timestamp: '2026-03-01T08:02:00Z' },
      }),
    );
    ok(
      await ctx.server.as('admin').POST('/v1/spaces/{spaceId}/git/import', {
        ...space('ordered'),
        body: { url: incoming, ref: 'refs/heads/main', timestamp: '2026-03-01T08:01:00+00:00' },
      }),
    );
    // The import, the earlier event, was running when the process died.
    await ctx.server.running.ctx.store.write((db) => db.run(sql`UPDATE jobs SET status = 'running' WHERE kind = 'git-import' AND status = 'queued'`));
    expect(ok(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}', space('ordered'))).revision).toBe(before.revision);

    await ctx.server.restart();
    await idle();
    // The import ran first, so the export carries the imported page.
    expect((await filesAt(outgoing, 'refs/heads/main'))['SUMMARY.md']).toContain('[Imported](imported.md)');
    expect(await pagesOf('ordered')).toEqual([{ title: 'Imported', type: 'document', markdown: 'From Git.\n', pages: [] }]);
    expect((await operationsOf('ordered')).map((operation) => [operation.kind, operation.status])).toEqual([
      ['import', 'done'],
      ['export', 'done'],
    ]);
    const after = ok(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}', space('ordered')));
    expect(after.revision).not.toBe(before.revision);
    expect(after.gitSync).toMatchObject({ repoName: 'outgoing' });
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
