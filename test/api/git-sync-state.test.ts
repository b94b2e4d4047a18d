// The Git state a space keeps: its Git info (GET /v1/spaces/{spaceId}/git/info, the provider it names, who sees it),
// clearing it (DELETE /v1/spaces/{spaceId}/git/legacy-installation), and the queued imports and exports, which run
// after a restart in the order of their timestamp.
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { sql } from 'kysely';
import { gitProvider } from '../../server/domain/git.ts';
import { expectError, ok } from '../support/expect.ts';
import { filesAt, runnerOf, space, useGitServer } from '../support/git-sync.ts';

const { ctx, scratch, idle, operationsOf, pagesOf, bareRepository, handwrittenRepository } = useGitServer();

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
