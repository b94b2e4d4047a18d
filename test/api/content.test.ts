import { sql } from 'kysely';
import { describe, expect, test } from 'vitest';
import { reading } from '../../server/context/context.ts';
import type { RevisionContent } from '../../server/content/model.ts';
import { linkGroups } from '../../server/content/links.ts';
import { getRevision } from '../../server/content/revisions.ts';
import { searchSections, sectionBodies, snippet, snippetsMade } from '../../server/content/search.ts';
import { readMigrations, SqliteStore } from '../../server/store/sqlite/store.ts';
import { immutableBodyChecks } from '../../server/http/immutable-bodies.ts';
import { speedupsOff } from '../../server/common/config.ts';
import type { SeedPage } from '../../server/start/seed.ts';
import { editSpaceContent } from '../support/content.ts';
import { ACME, standardFixture } from '../support/fixture.ts';
import { expectError, ok } from '../support/expect.ts';
import { testEngine } from '../support/databases.ts';
import { useTestServer } from '../support/server.ts';

const APP_URL = 'https://app.acme.test';

const MANUAL_PAGES: SeedPage[] = [
  {
    id: 'home',
    title: 'Home',
    markdown: [
      'Welcome to the manual.',
      '',
      '## Links',
      '',
      '- [Install](guides/install)',
      '- [Configure](/guides/configure.md)',
      '- [Nowhere](guides/nowhere)',
      '- [Specification](openapi.yaml)',
      '- [Example](https://example.com/docs)',
      `- [Elsewhere in the app](${APP_URL}/s/other/page)`,
      '- [Back to the top](#links)',
      '',
    ].join('\n'),
  },
  {
    id: 'guides',
    title: 'Guides',
    pages: [
      {
        id: 'install',
        title: 'Install',
        markdown: 'Go back [home](../home).\n\n![Diagram](diagram.png)\n\n## Requirements\n\nA kettle and a teapot.\n',
      },
      { id: 'configure', title: 'Configure', markdown: 'Read [the install guide][install] first.\n\n[install]: install\n' },
    ],
  },
];

const fixture = {
  ...standardFixture,
  organizations: [
    {
      ...standardFixture.organizations![0]!,
      spaces: [
        { id: 'manual', title: 'Manual', pages: MANUAL_PAGES },
        { id: 'blank', title: 'Blank' },
        { id: 'frozen', title: 'Frozen', pages: [{ id: 'ice', title: 'Ice', markdown: 'Cold.\n' }] },
        { id: 'synced', title: 'Synced', pages: [{ id: 'readme', title: 'Readme', markdown: 'Synced from Git.\n' }] },
        {
          id: 'kitchen',
          title: 'Kitchen',
          pages: [
            { id: 'pantry', title: 'Pantry', markdown: `## Shelves\n\n${'Flour, rice, oats, beans, lentils and jars of jam line the shelves. '.repeat(12)}The kettle is elsewhere.\n` },
            { id: 'kettles', title: 'Kettles', markdown: '## Choosing a kettle\n\nA kettle boils water: an electric kettle, a stovetop kettle.\n' },
            { id: 'cups', title: 'Cups', markdown: '## Cups\n\nA cup for the tea the kettle made, and a saucer.\n' },
          ],
        },
      ],
    },
    standardFixture.organizations![1]!,
  ],
};

const ctx = useTestServer({ fixture, env: { APP_URL } });
const app = () => ctx.server.running.ctx;
/** The server's SQLite store, for the assertions about SQLite itself (query plans, its migrations). */
function sqliteStore(): SqliteStore {
  const store = app().store;
  if (!(store instanceof SqliteStore)) throw new Error('this assertion is about SQLite: run it on SQLite');
  return store;
}

const space = (spaceId: string) => ({ params: { path: { spaceId } } });
const page = (spaceId: string, pageId: string, query: Record<string, unknown> = {}) => ({
  params: { path: { spaceId, pageId }, query },
});
const cr = (spaceId: string, changeRequestId: string | number, query: Record<string, unknown> = {}) => ({
  params: { path: { spaceId, changeRequestId: String(changeRequestId) }, query },
});
const crPage = (spaceId: string, changeRequestId: string | number, pageId: string, query: Record<string, unknown> = {}) => ({
  params: { path: { spaceId, changeRequestId: String(changeRequestId), pageId }, query },
});

const revisionOf = async (spaceId: string) => ok(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}', space(spaceId))).revision;

async function createChangeRequest(spaceId: string, subject: string) {
  return ok(
    await ctx.server.as('editor').POST('/v1/spaces/{spaceId}/change-requests', { ...space(spaceId), body: { subject } }),
    201,
  );
}

/** Gives a space new content directly through the revision store, as the editor of the app (or a Git sync) would. */
async function editSpace(spaceId: string, edit: (content: RevisionContent) => void) {
  await editSpaceContent(app(), spaceId, edit);
}

/** The callers every operation refuses, with the status they get. */
async function expectRefusals(call: (user: 'outsider' | 'anonymous' | 'guest') => Promise<{ response: Response; error?: unknown }>) {
  expectError(await call('outsider'), 404);
  expectError(await call('guest'), 404);
  expectError(await call('anonymous'), 401);
}

describe('GET /v1/spaces/{spaceId}/content', () => {
  test('returns the current revision: nested pages without content, files, variables', async () => {
    const revision = ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content', space('manual')));
    expect(revision).toMatchObject({
      object: 'revision',
      id: await revisionOf('manual'),
      parents: [],
      files: [],
      reusableContents: [],
      variables: {},
      type: 'edits',
    });
    expect(revision.pages.map((p) => p.path)).toEqual(['home', 'guides']);
    expect(revision.pages[1]).toMatchObject({ type: 'group', slug: 'guides', path: 'guides' });
    expect(revision.pages[1]!.pages.map((p) => [p.id, p.path])).toEqual([
      ['install', 'guides/install'],
      ['configure', 'guides/configure'],
    ]);
    expect(revision.pages[0]!.markdown).toBeUndefined();
    expect(revision.pages[0]!.urls.app).toBe(`${APP_URL}/s/manual/home`);
    expect(revision.urls.app).toBe(`${APP_URL}/s/manual/~/revisions/${revision.id}`);
  });

  test('metadata=false leaves out the Git metadata of the revision, pages and files', async () => {
    await editSpace('synced', (content) => {
      content.git = { oid: 'abc123', message: 'Sync', createdByService: false, ref: 'refs/heads/main' };
      content.pages[0]!.git = { oid: 'def456', path: 'README.md' };
    });
    const full = ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content', space('synced')));
    expect(full.git).toMatchObject({ oid: 'abc123', message: 'Sync' });
    expect(full.pages[0]!.git).toEqual({ oid: 'def456', path: 'README.md' });
    const bare = ok(
      await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content', { params: { path: { spaceId: 'synced' }, query: { metadata: false } } }),
    );
    expect(bare.git).toBeUndefined();
    expect(bare.pages[0]!.git).toBeUndefined();
    expect(bare.id).toBe(full.id);
  });

  test('rejects a malformed flag with 400 naming it', async () => {
    expectError(
      await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content', {
        params: { path: { spaceId: 'manual' }, query: { metadata: 'maybe' as never } },
      }),
      400,
      'metadata',
    );
  });

  test('answers 404 for an unknown space, a guest or another organization, and 401 without a token', async () => {
    expectError(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}/content', space('nope')), 404);
    await expectRefusals(async (user) => ctx.server.as(user).GET('/v1/spaces/{spaceId}/content', space('manual')));
  });
});

describe('GET /v1/spaces/{spaceId}/content/pages', () => {
  test('lists the pages, nested, with their paths and app addresses', async () => {
    const { pages } = ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content/pages', space('manual')));
    expect(pages.map((p) => p.id)).toEqual(['home', 'guides']);
    expect(pages[1]!.pages[0]).toMatchObject({
      id: 'install',
      title: 'Install',
      slug: 'install',
      path: 'guides/install',
      type: 'document',
      urls: { app: `${APP_URL}/s/manual/guides/install` },
      pages: [],
    });
  });

  test('rejects a malformed flag with 400, answers 404 for unknown spaces and strangers, 401 without a token', async () => {
    expectError(
      await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content/pages', {
        params: { path: { spaceId: 'manual' }, query: { computed: 'yes' as never } },
      }),
      400,
      'computed',
    );
    expectError(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}/content/pages', space('nope')), 404);
    await expectRefusals(async (user) => ctx.server.as(user).GET('/v1/spaces/{spaceId}/content/pages', space('manual')));
  });
});

describe('GET /v1/spaces/{spaceId}/content/page/{pageId}', () => {
  test('returns a page with its content as markdown by default', async () => {
    const install = ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content/page/{pageId}', page('manual', 'install')));
    expect(install).toMatchObject({ id: 'install', title: 'Install', path: 'guides/install', type: 'document' });
    expect(install.markdown).toContain('## Requirements');
    expect(install.document).toBeUndefined();
  });

  test('format=document returns the content as a Document instead', async () => {
    const install = ok(
      await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content/page/{pageId}', page('manual', 'install', { format: 'document' })),
    );
    expect(install.markdown).toBeUndefined();
    expect(install.document!.object).toBe('document');
    const types = install.document!.nodes.map((node) => node.type);
    expect(types).toContain('heading-2');
    expect(types).toContain('paragraph');
    const again = ok(
      await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content/page/{pageId}', page('manual', 'install', { format: 'document' })),
    );
    expect(again.document).toEqual(install.document);
  });

  test('a group page has empty content and its children', async () => {
    const guides = ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content/page/{pageId}', page('manual', 'guides')));
    expect(guides.type).toBe('group');
    expect(guides.pages.map((p) => p.id)).toEqual(['install', 'configure']);
  });

  test('a builtin:openapi page shows the latest processed version of its specification', async () => {
    const text = [
      'openapi: 3.1.0',
      'info: {title: Pets, version: "1.0", description: The pet store.}',
      'paths:',
      '  /pets: {get: {summary: List the pets, responses: {"200": {description: OK}}}}',
      'components:',
      '  schemas: {Pet: {description: A pet., properties: {name: {description: Its name.}}}}',
    ].join('\n');
    ok(
      await ctx.server.as('admin').POST('/v1/orgs/{organizationId}/openapi', {
        params: { path: { organizationId: ACME } },
        body: { slug: 'pets', source: { text } },
      }),
      201,
    );
    await app().jobs.idle();
    const computed = (id: string, doc?: string) => ({
      id,
      title: id,
      slug: id,
      type: 'computed' as const,
      markdown: 'Stored.\n',
      computed: { type: 'builtin:openapi', dependencies: { spec: { ref: { kind: 'openapi', spec: 'pets' } } }, props: doc ? { doc } : {} },
      createdAt: app().now(),
      updatedAt: app().now(),
      pages: [],
    });
    await editSpace('synced', (content) => content.pages.push(computed('operations'), computed('models', 'models')));
    const operations = ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content/page/{pageId}', page('synced', 'operations')));
    expect(operations.markdown).toBe('The pet store.\n\n## GET /pets\n\nList the pets\n');
    const models = ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content/page/{pageId}', page('synced', 'models')));
    expect(models.markdown).toBe('The pet store.\n\n## Pet\n\nA pet.\n\n- `name`: Its name.\n');
    const stored = ok(
      await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content/page/{pageId}', page('synced', 'operations', { computed: false })),
    );
    expect(stored.markdown).toBe('Stored.\n');

    // A new version of the specification shows on the next read, though the space's revision is the same: such a
    // page is made for each read, never kept with its revision (domain/content-presenters.ts, `presentPageRead`).
    const before = immutableBodyChecks();
    ok(
      await ctx.server.as('admin').PUT('/v1/orgs/{organizationId}/openapi/{specSlug}', {
        params: { path: { organizationId: ACME, specSlug: 'pets' } },
        body: { source: { text: text.replace('The pet store.', 'The new pet store.') } },
      }),
    );
    await app().jobs.idle();
    const again = ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content/page/{pageId}', page('synced', 'operations')));
    expect(again.markdown).toBe('The new pet store.\n\n## GET /pets\n\nList the pets\n');
    expect(immutableBodyChecks().remembered).toBe(before.remembered);
    // Its stored markdown (computed=false) is the revision's alone, and is kept with it.
    const storedAgain = ok(
      await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content/page/{pageId}', page('synced', 'operations', { computed: false })),
    );
    expect(storedAgain).toEqual(stored);
    // The validator wrapper remembers a kept answer it accepted (server/http/immutable-bodies.ts); without it, nothing is.
    expect(immutableBodyChecks().remembered).toBe(before.remembered + (speedupsOff().includes('validator-wrapper') ? 0 : 1));
  });

  test('rejects an unknown format with 400, answers 404 for an unknown page', async () => {
    expectError(
      await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content/page/{pageId}', page('manual', 'install', { format: 'pdf' })),
      400,
      'format',
    );
    expectError(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content/page/{pageId}', page('manual', 'nope')), 404, 'page nope');
    expectError(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content/page/{pageId}', page('nope', 'install')), 404);
    await expectRefusals(async (user) => ctx.server.as(user).GET('/v1/spaces/{spaceId}/content/page/{pageId}', page('manual', 'install')));
  });
});

describe('GET /v1/spaces/{spaceId}/links', () => {
  test('lists every distinct link of the content, classified, with where it appears and counts', async () => {
    const links = ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/links', space('manual')));
    const revision = await revisionOf('manual');
    const at = (pageId: string) => ({
      kind: 'page',
      organization: ACME,
      space: 'manual',
      versionContext: { type: 'revision', revision },
      page: pageId,
    });
    expect(links.count).toBe(8);
    expect(links.stats).toEqual({ total: 8, broken: { total: 3, changeRequest: 0 } });
    expect(links.items).toEqual([
      { status: 'ok', relation: 'reference', targetReference: at('install'), locationReferences: [at('home'), at('configure')] },
      { status: 'ok', relation: 'reference', targetReference: at('configure'), locationReferences: [at('home')] },
      {
        status: 'broken',
        relation: 'reference',
        targetReference: { kind: 'page', organization: ACME, space: 'manual', versionContext: { type: 'revision', revision }, url: 'guides/nowhere' },
        locationReferences: [at('home')],
      },
      {
        status: 'broken',
        relation: 'reference',
        targetReference: { kind: 'file', organization: ACME, space: 'manual', versionContext: { type: 'revision', revision }, url: 'openapi.yaml' },
        locationReferences: [at('home')],
      },
      { status: 'ok', relation: 'reference', targetReference: { kind: 'url', url: 'https://example.com/docs' }, locationReferences: [at('home')] },
      {
        status: 'in-app',
        relation: 'reference',
        targetReference: { kind: 'url', url: `${APP_URL}/s/other/page` },
        locationReferences: [at('home')],
      },
      { status: 'ok', relation: 'reference', targetReference: at('home'), locationReferences: [at('install')] },
      {
        status: 'broken',
        relation: 'embed',
        targetReference: { kind: 'file', organization: ACME, space: 'manual', versionContext: { type: 'revision', revision }, url: 'diagram.png' },
        locationReferences: [at('install')],
      },
    ]);
  });

  test('pages through the links with a cursor, keeping the counts', async () => {
    const first = ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/links', { params: { path: { spaceId: 'manual' }, query: { limit: 5 } } }));
    expect(first.items).toHaveLength(5);
    const second = ok(
      await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/links', {
        params: { path: { spaceId: 'manual' }, query: { limit: 5, page: first.next!.page } },
      }),
    );
    expect(second.items).toHaveLength(3);
    expect(second.next).toBeUndefined();
    expect(second.stats).toEqual(first.stats);
  });

  test("are grouped once per revision: later reads share the groups, frozen (the list follows the content: see 'content of a change request')", async () => {
    const scope = reading(app());
    const revision = (await getRevision(scope.db, await revisionOf('manual'), 'manual'))!;
    const groups = await linkGroups(scope, revision);
    expect(groups.map((group) => group.status)).toEqual(['ok', 'ok', 'broken', 'broken', 'ok', 'in-app', 'ok', 'broken']);
    expect(await linkGroups(scope, (await getRevision(scope.db, revision.id, 'manual'))!)).toBe(groups);
    expect(Object.isFrozen(groups) && Object.isFrozen(groups[0]!.pageIds) && Object.isFrozen(groups[0]!.target)).toBe(true);
  });

  test('rejects an invalid limit or cursor with 400; 404 for unknown spaces and strangers; 401 without a token', async () => {
    expectError(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/links', { params: { path: { spaceId: 'manual' }, query: { limit: 0 } } }), 400, 'limit');
    expectError(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/links', { params: { path: { spaceId: 'manual' }, query: { page: 'forged.cursor' } } }), 400, 'page');
    expectError(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/links', space('nope')), 404);
    await expectRefusals(async (user) => ctx.server.as(user).GET('/v1/spaces/{spaceId}/links', space('manual')));
  });
});

describe('GET /v1/spaces/{spaceId}/content/page/{pageId}/links', () => {
  test('lists the links of one page', async () => {
    const links = ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content/page/{pageId}/links', page('manual', 'home')));
    expect(links.stats).toEqual({ total: 6, broken: { total: 2, changeRequest: 0 } });
    expect(links.items.map((link) => link.status)).toEqual(['ok', 'ok', 'broken', 'broken', 'ok', 'in-app']);
    expect(links.items.every((link) => link.locationReferences.length === 1 && link.locationReferences[0]!.page === 'home')).toBe(true);
  });

  test('rejects an invalid limit with 400, answers 404 for an unknown page and strangers', async () => {
    expectError(
      await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content/page/{pageId}/links', page('manual', 'home', { limit: 1001 })),
      400,
      'limit',
    );
    expectError(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content/page/{pageId}/links', page('manual', 'nope')), 404);
    await expectRefusals(async (user) => ctx.server.as(user).GET('/v1/spaces/{spaceId}/content/page/{pageId}/links', page('manual', 'home')));
  });
});

describe('GET /v1/spaces/{spaceId}/content/page/{pageId}/backlinks', () => {
  test('lists the pages linking to a page, in the current revision', async () => {
    const backlinks = ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content/page/{pageId}/backlinks', page('manual', 'install')));
    expect(backlinks.count).toBe(2);
    expect(backlinks.items).toEqual([
      { kind: 'page', organization: ACME, space: 'manual', versionContext: { type: 'revision', revision: await revisionOf('manual') }, page: 'home' },
      expect.objectContaining({ page: 'configure' }),
    ]);
    const none = ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content/page/{pageId}/backlinks', page('manual', 'guides')));
    expect(none).toEqual({ count: 0, items: [] });
  });

  // A query plan is SQLite's: the statements the store runs are seen through its statement cache.
  test.skipIf(testEngine() !== 'sqlite')("reads the links to the page through the index of links by target, not every link of the revision", async () => {
    const store = sqliteStore();
    const statement = store.statement;
    const texts: string[] = [];
    store.statement = (text: string) => (texts.push(text), statement.call(store, text));
    try {
      ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content/page/{pageId}/backlinks', page('manual', 'install')));
    } finally {
      store.statement = statement;
    }
    const byTarget = texts.filter((text) => /FROM content_links\b[\s\S]*\btarget_id"? = \?/.test(text));
    expect(byTarget).toHaveLength(1);
    const plan = (store.connection.prepare(`EXPLAIN QUERY PLAN ${byTarget[0]}`).all('r', 'page', 'p') as { detail: string }[]).map((row) => row.detail);
    expect(plan[0]).toMatch(/^SEARCH content_links USING INDEX content_links_target \(revision_id=\? AND target_kind=\? AND target_id=\?\)/);
  });

  test('rejects an invalid limit with 400, answers 404 for an unknown page and strangers', async () => {
    expectError(
      await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content/page/{pageId}/backlinks', page('manual', 'home', { limit: -1 })),
      400,
      'limit',
    );
    expectError(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content/page/{pageId}/backlinks', page('manual', 'nope')), 404);
    await expectRefusals(async (user) =>
      ctx.server.as(user).GET('/v1/spaces/{spaceId}/content/page/{pageId}/backlinks', page('manual', 'home')),
    );
  });
});

describe('GET /v1/spaces/{spaceId}/search', () => {
  const byKey = (a: { page: string; section: string }, b: { page: string; section: string }) =>
    `${a.page}#${a.section}`.localeCompare(`${b.page}#${b.section}`);
  const search = (query: string, limit?: number, cursor?: string) => ({
    params: { path: { spaceId: 'manual' }, query: { query, ...(limit ? { limit } : {}), ...(cursor ? { page: cursor } : {}) } },
  });

  test('finds pages by their content, with the matching sections', async () => {
    const results = ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/search', search('teapot')));
    expect(results.count).toBe(1);
    expect(results.items[0]).toMatchObject({ id: 'install', title: 'Install', path: 'guides/install', urls: { app: `${APP_URL}/s/manual/guides/install` } });
    expect(results.items[0]!.sections).toEqual([
      {
        id: 'requirements',
        title: 'Requirements',
        path: 'guides/install#requirements',
        body: expect.stringContaining('teapot'),
        urls: { app: `${APP_URL}/s/manual/guides/install#requirements` },
      },
    ]);
  });

  test('finds pages by their title, and pages through the results', async () => {
    const first = ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/search', search('install', 1)));
    expect(first.count).toBe(3);
    const rest = ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/search', search('install', 5, first.next!.page)));
    expect(new Set([...first.items, ...rest.items].map((item) => item.id))).toEqual(new Set(['install', 'home', 'configure']));
  });

  test("makes the text shown of sections for the page of results only, as a search of every result would", async () => {
    const seen: { id: string; sections: { id: string; body: string }[] }[] = [];
    let cursor: string | undefined;
    do {
      const made = snippetsMade();
      const page = ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/search', search('install', 1, cursor)));
      expect(page.items).toHaveLength(1);
      expect(snippetsMade() - made).toBe(page.items[0]!.sections.length);
      seen.push(...page.items);
      cursor = page.next?.page;
    } while (cursor);
    const shown = seen.flatMap((page) => page.sections.map((section) => ({ page: page.id, section: section.id, body: section.body }))).sort(byKey);
    // The same text as one query making every matching section's text together.
    const { db } = reading(app());
    const hits = await searchSections(db, { spaceId: 'manual' }, 'install');
    const bodies = await sectionBodies(db, 'install', hits.map((hit) => hit.row));
    const all = hits.map((hit) => ({ page: hit.pageId, section: hit.sectionId, body: bodies.get(hit.row) }));
    expect(shown).toEqual(all.sort(byKey));
    expect(seen.length).toBeGreaterThan(1);
  });

  test('shows a section whole up to 32 words, else 32 words from just before the first match, cut with …', () => {
    expect(snippet('  A short section about Installing.  ', ['install'])).toBe('A short section about Installing.');
    const words = Array.from({ length: 100 }, (_, i) => `w${i}`);
    words[50] = 'Ínstallation';
    expect(snippet(`${words.join(' ')}.`, ['install'])).toBe(`…${words.slice(46, 78).join(' ')}…`);
    // No word matches (a title match): the start of the text.
    expect(snippet(`${words.join(' ')}.`, ['zzz'])).toBe(`${words.slice(0, 32).join(' ')}…`);
    // Near the end: the last 32 words, to the end of the text.
    words[50] = 'w50';
    words[98] = 'install';
    expect(snippet(`${words.join(' ')}.`, ['install'])).toBe(`…${words.slice(68).join(' ')}.`);
  });

  test('gives the best match first: the page about it before the pages that mention it, the shortest mention before the longest', async () => {
    // Each engine ranks by its own relevance (server/docs/behaviour-content-change-requests-comments.md); a page
    // titled with the word and saying it three times, a short page saying it once, and a long one saying it once
    // are in that order on both.
    const results = ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/search', { params: { path: { spaceId: 'kitchen' }, query: { query: 'kettle' } } }));
    expect(results.items.map((item) => item.id)).toEqual(['kettles', 'cups', 'pantry']);
  });

  test('searches only the space it is asked about', async () => {
    expect(ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/search', { params: { path: { spaceId: 'frozen' }, query: { query: 'teapot' } } })).count).toBe(0);
  });

  test('rejects a missing or too long query with 400; 404 for unknown spaces and strangers; 401 without a token', async () => {
    expectError(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/search', space('manual') as never), 400, 'query');
    expectError(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/search', search('x'.repeat(513))), 400, 'query');
    expectError(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/search', { params: { path: { spaceId: 'nope' }, query: { query: 'x' } } }), 404);
    await expectRefusals(async (user) => ctx.server.as(user).GET('/v1/spaces/{spaceId}/search', search('teapot')));
  });
});

describe('POST /v1/spaces/{spaceId}/content/template', () => {
  const apply = (spaceId: string, body: unknown, user: Parameters<typeof ctx.server.as>[0] = 'editor') =>
    ctx.server.as(user).POST('/v1/spaces/{spaceId}/content/template', { ...space(spaceId), body: body as never });

  test('getting-started adds linked pages in a new revision, and the product variable', async () => {
    const before = await revisionOf('blank');
    const answer = await apply('blank', { id: 'getting-started' });
    expect(answer.response.status).toBe(204);
    const revision = ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content', space('blank')));
    expect(revision.id).not.toBe(before);
    expect(revision.parents).toEqual([before]);
    expect(revision.variables).toEqual({ product: 'Blank' });
    const [group] = revision.pages;
    expect(group).toMatchObject({ title: 'Getting started', slug: 'getting-started', type: 'group' });
    expect(group!.pages.map((p) => p.path)).toEqual([
      'getting-started/introduction',
      'getting-started/quickstart',
      'getting-started/faq',
    ]);
    const introduction = group!.pages[0]!.id;
    const links = ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content/page/{pageId}/links', page('blank', introduction)));
    expect(links.stats.broken.total).toBe(0);
    expect(links.items.map((link) => link.targetReference.page)).toEqual(group!.pages.slice(1).map((p) => p.id));
  });

  test('evaluated=true substitutes variables in the content', async () => {
    const { pages } = ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content/pages', space('blank')));
    const introduction = pages[0]!.pages[0]!.id;
    const raw = ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content/page/{pageId}', page('blank', introduction)));
    expect(raw.markdown).toContain('Welcome to {{ variables.product }}.');
    const evaluated = ok(
      await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content/page/{pageId}', page('blank', introduction, { evaluated: true })),
    );
    expect(evaluated.markdown).toContain('Welcome to Blank.');
  });

  test('applying a template again adds its pages under a new slug', async () => {
    expect((await apply('blank', { id: 'getting-started' })).response.status).toBe(204);
    const { pages } = ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content/pages', space('blank')));
    expect(pages.map((p) => p.slug)).toEqual(['getting-started', 'getting-started-2']);
  });

  test('knowledge-base adds a computed page whose content lists its pages', async () => {
    expect((await apply('blank', { id: 'knowledge-base' })).response.status).toBe(204);
    const { pages } = ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content/pages', space('blank')));
    const base = pages.find((p) => p.slug === 'knowledge-base')!;
    expect(base).toMatchObject({ type: 'computed', computed: { type: 'builtin:toc' } });
    const computed = ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content/page/{pageId}', page('blank', base.id)));
    expect(computed.markdown).toBe('- [How-to guides](/knowledge-base/how-to-guides)\n- [Troubleshooting](/knowledge-base/troubleshooting)\n');
    const stored = ok(
      await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content/page/{pageId}', page('blank', base.id, { computed: false })),
    );
    expect(stored.markdown).toBe('');
  });

  test('rejects an unknown template or content reference with 400 naming the field, and changes nothing', async () => {
    const before = await revisionOf('blank');
    expectError(await apply('blank', { id: 'no-such-template' }), 400, 'id', 'getting-started');
    expectError(await apply('blank', { id: 'changelog', params: { contentRefs: { logo: { kind: 'file', file: 'x' } } } }), 400, 'params.contentRefs.logo');
    expectError(
      await apply('blank', { id: 'getting-started', params: { contentRefs: { logo: { kind: 'file', file: 'missing' } } } }),
      400,
      'params.contentRefs.logo.file',
      'missing',
    );
    expectError(await apply('blank', { params: {} }), 400, 'id');
    expectError(await apply('blank', { id: 'changelog', extra: true }), 400, 'extra');
    expect(await revisionOf('blank')).toBe(before);
  });

  test('a locked space refuses it with 403, and so does a role below edit', async () => {
    ok(await ctx.server.as('admin').PATCH('/v1/spaces/{spaceId}', { ...space('frozen'), body: { editMode: 'locked' } }));
    const before = await revisionOf('frozen');
    expectError(await apply('frozen', { id: 'changelog' }, 'admin'), 403, 'locked');
    expectError(await apply('blank', { id: 'changelog' }, 'commenter'), 403, 'edit');
    expect(await revisionOf('frozen')).toBe(before);
  });

  test('answers 404 for an unknown space, a guest or another organization, and 401 without a token', async () => {
    expectError(await apply('nope', { id: 'changelog' }), 404);
    expectError(await apply('blank', { id: 'changelog' }, 'outsider'), 404);
    expectError(await apply('blank', { id: 'changelog' }, 'guest'), 404);
    expectError(await apply('blank', { id: 'changelog' }, 'anonymous'), 401);
  });
});

describe('content of a change request', () => {
  test('reads the change request revision, by id or number, apart from the main content', async () => {
    const changeRequest = await createChangeRequest('manual', 'Rework the manual');
    await editSpace('manual', (content) => {
      content.pages = content.pages.filter((p) => p.id !== 'guides');
    });
    const main = ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content', space('manual')));
    expect(main.pages.map((p) => p.id)).toEqual(['home']);

    for (const id of [changeRequest.id, changeRequest.number]) {
      const content = ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content', cr('manual', id)));
      expect(content.id).toBe(changeRequest.revision);
      expect(content.pages.map((p) => p.id)).toEqual(['home', 'guides']);
    }
    const { pages } = ok(
      await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/pages', cr('manual', changeRequest.number)),
    );
    expect(pages[1]!.pages[0]!.urls.app).toBe(`${APP_URL}/s/manual/~/changes/${changeRequest.number}/guides/install`);
    const install = ok(
      await ctx.server.as('reader').GET(
        '/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}',
        crPage('manual', changeRequest.number, 'install', { format: 'document' }),
      ),
    );
    expect(install.document!.nodes.length).toBeGreaterThan(0);
    expectError(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content/page/{pageId}', page('manual', 'install')), 404);
  });

  test('links of the main content break where a page was removed; the change request still has it', async () => {
    const number = 1;
    const home = ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content/page/{pageId}/links', page('manual', 'home')));
    expect(home.items.filter((link) => link.status === 'broken').map((link) => link.targetReference.url)).toEqual([
      'guides/install',
      '/guides/configure.md',
      'guides/nowhere',
      'openapi.yaml',
    ]);
    // The open change request still has the two links that were broken before the removal.
    expect(home.stats).toEqual({ total: 6, broken: { total: 4, changeRequest: 2 } });
    const all = ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/links', space('manual')));
    expect(all.stats).toEqual({ total: 6, broken: { total: 4, changeRequest: 3 } });

    const inChangeRequest = ok(
      await ctx.server.as('reader').GET(
        '/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}/links',
        crPage('manual', number, 'home'),
      ),
    );
    expect(inChangeRequest.stats).toEqual({ total: 6, broken: { total: 2, changeRequest: 2 } });
    expect(inChangeRequest.items[0]!.targetReference).toMatchObject({ kind: 'page', page: 'install' });
    expectError(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content/page/{pageId}/backlinks', page('manual', 'install')), 404);
  });
});

describe('content of a change request: its broken links, and who may read it', () => {
  test("counts each open or draft change request's broken links, two on the same revision twice, archived ones not", async () => {
    const stats = async () => ({
      home: ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content/page/{pageId}/links', page('manual', 'home'))).stats.broken,
      all: ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/links', space('manual'))).stats.broken,
    });
    const before = await stats();
    // New change requests start from the main content: each has its broken links (4 in home, 4 in all).
    const opened = [await createChangeRequest('manual', 'Same revision A'), await createChangeRequest('manual', 'Same revision B')];
    expect(opened[0]!.revision).toBe(opened[1]!.revision);
    const after = await stats();
    expect(after.home).toEqual({ total: before.home.total, changeRequest: before.home.changeRequest + 2 * before.home.total });
    expect(after.all).toEqual({ total: before.all.total, changeRequest: before.all.changeRequest + 2 * before.all.total });
    for (const changeRequest of opened) {
      ok(
        await ctx.server.as('editor').PATCH('/v1/spaces/{spaceId}/change-requests/{changeRequestId}', {
          params: { path: { spaceId: 'manual', changeRequestId: changeRequest.id } },
          body: { status: 'archived' },
        }),
      );
    }
    expect(await stats()).toEqual(before);
  });

  test('a closed change request no longer counts in the broken links of the space', async () => {
    const other = await createChangeRequest('manual', 'Abandoned');
    expect(ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/links', space('manual'))).stats.broken.changeRequest).toBe(7);
    ok(
      await ctx.server.as('editor').PATCH('/v1/spaces/{spaceId}/change-requests/{changeRequestId}', {
        params: { path: { spaceId: 'manual', changeRequestId: other.id } },
        body: { status: 'archived' },
      }),
    );
    expect(ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/links', space('manual'))).stats.broken.changeRequest).toBe(3);
  });

  test("a revision's broken count is kept with its link index, made as the API groups links, and the migration's backfill makes the same", async () => {
    const scope = reading(app());
    const kept = () =>
      scope.db.all<{ id: string; spaceId: string; broken: number }>(
        sql`SELECT revision_id AS id, space_id AS "spaceId", broken FROM content_link_index JOIN revisions ON revisions.id = revision_id
            ORDER BY revision_id`,
      );
    const indexed = await kept();
    expect(indexed.length).toBeGreaterThan(2);
    for (const { id, spaceId, broken } of indexed) {
      const groups = await linkGroups(scope, (await getRevision(scope.db, id, spaceId))!);
      expect(broken, id).toBe(groups.filter((group) => group.status === 'broken').length);
    }
    expect(indexed.some((row) => row.broken > 0)).toBe(true);
    // What follows is about SQLite itself: its query plan, and its migration 200 (PostgreSQL starts from a baseline).
    if (app().store.engine !== 'sqlite') return;
    const { connection } = sqliteStore();
    // The space's sum reads the kept counts, one row a change request, never the links themselves.
    const plan = connection
      .prepare(
        `EXPLAIN QUERY PLAN SELECT COALESCE(SUM(content_link_index.broken), 0) AS n FROM change_requests
         JOIN content_link_index ON content_link_index.revision_id = change_requests.revision_id
         WHERE change_requests.space_id = ? AND change_requests.status IN ('open', 'draft')`,
      )
      .all('manual') as { detail: string }[];
    expect(plan.map((row) => row.detail).join('\n')).not.toMatch(/content_links\b/);

    const migration = readMigrations().find((entry) => entry.name === '200_link_index_broken_counts.sql')!;
    connection.transaction(() => {
      connection.exec('ALTER TABLE content_link_index DROP COLUMN broken');
      connection.exec(migration.sql);
    })();
    expect(await kept()).toEqual(indexed);
  });

  test('every change-request content read answers 404 for an unknown change request, page, strangers; 401 without a token', async () => {
    type Read = (user: Parameters<typeof ctx.server.as>[0], id: string) => Promise<{ response: Response; error?: unknown }>;
    const reads: Read[] = [
      (user, id) =>
        ctx.server.as(user).GET('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content', cr('manual', id)),
      (user, id) =>
        ctx.server.as(user).GET('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/pages', cr('manual', id)),
      (user, id) =>
        ctx.server.as(user).GET('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}', crPage('manual', id, 'home')),
      (user, id) =>
        ctx.server.as(user).GET('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}/links', crPage('manual', id, 'home')),
    ];
    for (const read of reads) {
      expect((await read('reader', '1')).response.status).toBe(200);
      expectError(await read('reader', '99'), 404, 'change request 99');
      expectError(await read('outsider', '1'), 404);
      expectError(await read('guest', '1'), 404);
      expectError(await read('anonymous', '1'), 401);
    }
    expectError(
      await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}', crPage('manual', 1, 'nope')),
      404,
      'page nope',
    );
    expectError(
      await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}/links', crPage('manual', 1, 'nope')),
      404,
    );
    expectError(
      await ctx.server.as('reader').GET(
        '/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}',
        crPage('manual', 1, 'home', { format: 'html' }),
      ),
      400,
      'format',
    );
    expectError(
      await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content', cr('manual', 1, { metadata: 'no' })),
      400,
      'metadata',
    );
    expectError(
      await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/pages', cr('manual', 1, { computed: 'no' })),
      400,
      'computed',
    );
    expectError(
      await ctx.server.as('reader').GET(
        '/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}/links',
        crPage('manual', 1, 'home', { limit: 0 }),
      ),
      400,
      'limit',
    );
  });
});
