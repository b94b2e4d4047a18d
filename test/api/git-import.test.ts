// Importing a space from Git (POST /v1/spaces/{spaceId}/git/import): an export read back the same, a commit imported
// again, a standalone import's revision, repositories written by hand (SUMMARY.md, front matter, assets, links, or
// folders alone), and the import's failures, refusals and access.
import fs from 'node:fs';
import path from 'node:path';
import git from 'isomorphic-git';
import { describe, expect, test } from 'vitest';
import { getRevision } from '../../server/content/revisions.ts';
import { expectError, ok } from '../support/expect.ts';
import { commitsOf, filesAt, HANDBOOK_SHAPE, runnerOf, space, useGitServer } from '../support/git-sync.ts';

const { ctx, scratch, SOMEWHERE, logLines, idle, db, operationsOf, pagesOf, storedPages, bareRepository, handwrittenRepository } =
  useGitServer();

describe('POST /v1/spaces/{spaceId}/git/import', () => {
  test('a markdown file over 2 MiB, more than a page holds, fails the import and changes nothing', async () => {
    const repo = await handwrittenRepository('oversized', { 'README.md': '# Home\n', 'big.md': `# Big\n\n${'word '.repeat(450_000)}\n` });
    const before = ok(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}', space('oversized')));
    ok(await ctx.server.as('admin').POST('/v1/spaces/{spaceId}/git/import', { ...space('oversized'), body: { url: repo, ref: 'refs/heads/main' } }));
    await idle();
    expect((await operationsOf('oversized'))[0]).toMatchObject({ status: 'failed', error: expect.stringContaining('big.md is larger than 2097152 bytes') });
    expect(ok(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}', space('oversized'))).revision).toBe(before.revision);
  });

  test('a page of more distinct words than a PostgreSQL text-search entry holds (1 MiB) is imported, and searched by its first words', async () => {
    // 150 000 distinct words, 1 MB of markdown (a page holds 2 MiB): the index of its one section would take 1.5 MB.
    const words = Array.from({ length: 150_000 }, (_, i) => `zq${i.toString(36)}`);
    const markdown = `# Wordy\n\n${words.join(' ')}\n`;
    const repo = await handwrittenRepository('wordy', { 'README.md': '# Home\n', 'wordy.md': markdown });
    ok(await ctx.server.as('admin').POST('/v1/spaces/{spaceId}/git/import', { ...space('wordy'), body: { url: repo, ref: 'refs/heads/main' } }));
    await idle();
    expect((await operationsOf('wordy'))[0]).toMatchObject({ status: 'done' });
    const found = ok(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}/search', { params: { path: { spaceId: 'wordy' }, query: { query: words[1]! } } }));
    expect(found.items.map((item) => item.title)).toEqual(['Wordy']);
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
