// What the change-request tests (test/api/change-requests*.test.ts, comments-change-requests.test.ts aside) share: a
// server whose space `handbook` holds a few pages, on a data folder of the file's own (so that it can restart), and
// the helpers that make spaces and change requests and read their content back.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { findPage, type RevisionContent, type StoredPage } from '../../server/content/model.ts';
import {
  changeRequestRevision,
  commitChangeRequestContent,
  getChangeRequestRow,
} from '../../server/domain/change-requests.ts';
import { seedPages, type SeedPage } from '../../server/start/seed.ts';
import { editSpaceContent } from './content.ts';
import { ACME, standardFixture } from './fixture.ts';
import { ok } from './expect.ts';
import { useTestServer } from './server.ts';
import { inWrite } from '../../server/context/context.ts';

const HANDBOOK_PAGES: SeedPage[] = [
  { id: 'intro', title: 'Introduction', markdown: '# Introduction\n\nWelcome aboard.\n' },
  {
    id: 'setup',
    title: 'Setup',
    markdown: 'Install the tools.\n',
    pages: [{ id: 'laptop', title: 'Laptop', markdown: 'Use a **fast** laptop.\n\n- one\n- two\n\n> quoted\n' }],
  },
  {
    id: 'faq',
    title: 'FAQ',
    markdown: '| Question | Answer |\n|---|---|\n| Why? | Because. |\n\n```sh\nnpm ci\n```\n',
  },
];

const fixture = {
  ...standardFixture,
  organizations: [
    { ...standardFixture.organizations![0]!, spaces: [{ id: 'handbook', title: 'Handbook', pages: HANDBOOK_PAGES }] },
    standardFixture.organizations![1]!,
  ],
};

export const MINUTE = 60_000;

export const space = (spaceId: string) => ({ params: { path: { spaceId } } });
export const cr = (spaceId: string, changeRequestId: string | number) => ({
  params: { path: { spaceId, changeRequestId: String(changeRequestId) } },
});

export const pageIn = (content: RevisionContent, id: string): StoredPage => findPage(content, id)!.page;

type Target = { spaceId: string; changeRequestId?: string };
type PageNode = { id: string; title: string; pages?: PageNode[] };

/** Starts the file's server on the fixture above and gives the helpers bound to it. */
export function useChangeRequestServer() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'change-requests-test-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  const ctx = useTestServer({ fixture, dataDir });

  // --- Set-up helpers. Content is put into spaces and change requests directly through the revision store (as
  // the app's editor would); every assertion reads state back through the API. ---

  const app = () => ctx.server.running.ctx;

  /** Gives a space new current content: `edit` changes a copy of its current content. */
  async function editSpace(spaceId: string, edit: (content: RevisionContent) => void) {
    await editSpaceContent(app(), spaceId, edit);
  }

  /** Gives a change request new content: `edit` changes a copy of its current content. */
  async function editChangeRequest(
    spaceId: string,
    idOrNumber: string | number,
    edit: (content: RevisionContent) => void,
  ) {
    await inWrite(app(), async (scope) => {
      const row = (await getChangeRequestRow(scope.db, spaceId, String(idOrNumber)))!;
      const content = structuredClone((await changeRequestRevision(scope.db, row)).content);
      edit(content);
      await commitChangeRequestContent(scope, row, { type: 'edits', content, contributor: 'editor' });
    });
  }

  const newPage = (id: string, title: string, markdown: string): StoredPage => ({
    ...seedPages([{ id, title, markdown }], app().now())[0]!,
  });

  /** A new space of acme holding the handbook pages. */
  async function newSpace(title = 'Scratch'): Promise<string> {
    const created = ok(
      await ctx.server
        .as('admin')
        .POST('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId: ACME } }, body: { title } }),
      201,
    );
    await editSpace(created.id, (content) => {
      content.pages = seedPages(HANDBOOK_PAGES, app().now());
    });
    return created.id;
  }

  async function createChangeRequest(spaceId: string, subject = 'Proposed edits', as: 'admin' | 'editor' = 'editor') {
    return ok(
      await ctx.server.as(as).POST('/v1/spaces/{spaceId}/change-requests', { ...space(spaceId), body: { subject } }),
      201,
    );
  }

  const getSpace = async (spaceId: string) =>
    ok(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}', space(spaceId)));
  const getChangeRequest = async (spaceId: string, id: string | number) =>
    ok(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}/change-requests/{changeRequestId}', cr(spaceId, id)));

  /** The current content of a space or change request, read through the content API: `title` lines indented by depth, and each page's markdown. */
  async function contentOf(target: Target): Promise<{ outline: string[]; markdown: Record<string, string> }> {
    const client = ctx.server.as('admin');
    const { spaceId, changeRequestId } = target;
    const { pages } = ok(
      changeRequestId
        ? await client.GET(
            '/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/pages',
            cr(spaceId, changeRequestId),
          )
        : await client.GET('/v1/spaces/{spaceId}/content/pages', space(spaceId)),
    );
    const outline = (list: PageNode[], depth = 0): string[] =>
      list.flatMap((page) => [`${'  '.repeat(depth)}${page.title}`, ...outline(page.pages ?? [], depth + 1)]);
    const ids = (list: PageNode[]): string[] => list.flatMap((page) => [page.id, ...ids(page.pages ?? [])]);
    const markdown: Record<string, string> = {};
    for (const pageId of ids(pages)) {
      const query = { format: 'markdown' as const };
      const page = changeRequestId
        ? await client.GET('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}', {
            params: { path: { spaceId, changeRequestId, pageId }, query },
          })
        : await client.GET('/v1/spaces/{spaceId}/content/page/{pageId}', {
            params: { path: { spaceId, pageId }, query },
          });
      markdown[pageId] = ok(page).markdown ?? '';
    }
    return { outline: outline(pages), markdown };
  }

  async function setEditMode(spaceId: string, editMode: 'live' | 'locked') {
    ok(await ctx.server.as('admin').PATCH('/v1/spaces/{spaceId}', { ...space(spaceId), body: { editMode } }));
  }

  return {
    ctx,
    editSpace,
    editChangeRequest,
    newPage,
    newSpace,
    createChangeRequest,
    getSpace,
    getChangeRequest,
    contentOf,
    setEditMode,
  };
}
