// What the Git sync tests (test/api/git-*.test.ts) share: a server whose spaces hold the handbook's pages or one old
// page, with local repositories allowed under a scratch folder of the file's own, and the readers of what an import
// or an export left behind, in the space (through the API), in the database and in the repository.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import git from 'isomorphic-git';
import { pino } from 'pino';
import { afterAll, beforeAll } from 'vitest';
import type { StoredPage } from '../../server/content/model.ts';
import { getRevision } from '../../server/content/revisions.ts';
import { listGitOperations } from '../../server/domain/git.ts';
import type { JobRunner } from '../../server/jobs/runner.ts';
import { ok } from './expect.ts';
import { standardFixture } from './fixture.ts';
import { useTestServer } from './server.ts';

export const handbookPages = [
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
const OTHER_SPACES = ['ordered', 'copy', 'preview', 'handmade', 'folders', 'broken', 'locked', 'legacy', 'mirror', 'checks', 'oversized', 'wordy'];

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

export const space = (spaceId: string) => ({ params: { path: { spaceId } } });
export const runnerOf = (server: { running: { ctx: { jobs: unknown } } }) => server.running.ctx.jobs as JobRunner;

export type Shape = { title: string; type: string; markdown?: string; pages: Shape[] };

/** The files of the commit `ref` points at, as text. */
export async function filesAt(gitdir: string, ref: string): Promise<Record<string, string>> {
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

export const commitsOf = async (gitdir: string, ref: string) => (await git.log({ fs, gitdir, ref })).map((entry) => entry.commit);

export const EXPECTED_SUMMARY = `# Table of contents

* [Welcome](welcome.md)
* [Guides](guides/README.md)
  * [Setup](guides/setup.md)
  * [Deploy](guides/deploy/README.md)
    * [Rollback](guides/deploy/rollback.md)
* Reference
  * [API](reference/api.md)
`;

export const HANDBOOK_SHAPE = [
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

/**
 * Starts the file's server on the spaces above (`locked` in locked edit mode), its data and the file's repositories in
 * a scratch folder that is its LOCAL_GIT_ROOT, every log line kept (to check that no credential is ever logged), and
 * gives the readers bound to it.
 */
export function useGitServer() {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'git-test-'));
  afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));
  const logLines: string[] = [];
  const ctx = useTestServer({
    fixture,
    dataDir: path.join(scratch, 'data'), // a folder: the server restarts, and keeps repoCacheID clones there
    env: { ALLOW_LOCAL_GIT: 'true', LOCAL_GIT_ROOT: scratch }, // the repositories of these tests are under scratch
    log: pino({ level: 'debug' }, { write: (line: string) => void logLines.push(line) }),
  });
  beforeAll(async () => {
    ok(await ctx.server.as('admin').PATCH('/v1/spaces/{spaceId}', { ...space('locked'), body: { editMode: 'locked' } }));
  });
  const db = () => ctx.server.running.ctx.store.reader;

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

  return {
    ctx,
    scratch,
    /** A path under LOCAL_GIT_ROOT where no repository is. */
    SOMEWHERE: path.join(scratch, 'repo'),
    logLines,
    idle: () => ctx.server.running.ctx.jobs.idle(),
    db,
    operationsOf: (spaceId: string) => listGitOperations(db(), spaceId),
    pagesOf,
    storedPages,
    bareRepository,
    handwrittenRepository,
  };
}
