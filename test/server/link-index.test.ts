// A revision's links are indexed the first time they are asked for. Parsing markdown is what that costs, so the pages
// a revision shares with its nearest indexed ancestor (same id, same markdown) take their links from that revision's
// rows, and only the others are parsed; every link is resolved against the new revision all the same. Checked edit
// after edit: the index holds exactly what parsing the whole revision gives, and the pages parsed are the pages
// changed.
import { describe, expect, test } from 'vitest';
import { ensureLinkIndex, extractLinks, LINK_ANCESTRY_DEPTH, pagesParsedForLinks, revisionLinks } from '../../server/content/links.ts';
import type { RevisionContent, StoredPage } from '../../server/content/model.ts';
import { commitSpaceContent, getRevision } from '../../server/content/revisions.ts';
import { type AppContext, reading } from '../../server/context/context.ts';
import { getSpaceRow } from '../../server/domain/spaces.ts';
import { extendFixture, storedPage } from '../support/fixture.ts';
import { ok } from '../support/expect.ts';
import { useTestServer } from '../support/server.ts';

const APP_URL = 'https://app.links.test';

const fixture = extendFixture({
  acme: {
    spaces: [
      {
        id: 'handbook',
        title: 'Handbook',
        pages: [
          {
            id: 'home',
            title: 'Home',
            markdown: `Start with [setup](guides/setup), then [usage](/guides/usage.md).\n\n- [Example](https://example.com)\n- [In the app](${APP_URL}/s/x)\n- [Top](#top)\n`,
          },
          {
            id: 'guides',
            title: 'Guides',
            pages: [
              { id: 'setup', title: 'Setup', markdown: 'Back [home](../home). ![Logo](logo.png)\n\nSee [usage](usage).\n' },
              { id: 'usage', title: 'Usage', markdown: 'After [setup](setup), read [the FAQ](../faq).\n' },
            ],
          },
        ],
      },
    ],
  },
});

const ctx = useTestServer({ fixture, env: { APP_URL } });
const app = () => ctx.server.running.ctx;

const document = (id: string, markdown: string) => storedPage(id, id, markdown);

/** The space's current revision, as the server reads it. */
async function current() {
  const db = app().store.reader;
  const row = (await getSpaceRow(db, 'handbook'))!;
  return (await getRevision(db, row.revisionId, 'handbook'))!;
}

/** The indexed links of `revision` as `context` (the server's, or another app address's) reads them. */
const linksOf = (revision: Awaited<ReturnType<typeof current>>, context: AppContext = app()) => revisionLinks(reading(context), revision);

/** Commits `edit` of the space's current content as its new revision (its parent: the current one). */
async function commit(edit: (content: RevisionContent) => void) {
  await app().store.write(async (db) => {
    const row = (await getSpaceRow(db, 'handbook'))!;
    const content = structuredClone((await getRevision(db, row.revisionId, 'handbook'))!.content);
    edit(content);
    await commitSpaceContent(db, 'handbook', [row.revisionId], content, app().now());
  });
  return current();
}

/** The pages of a content whose markdown differs from the parent's page of the same id (or that it has not). */
function changedPages(content: RevisionContent, parent: RevisionContent): number {
  const before = new Map<string, string | undefined>();
  const walk = (pages: StoredPage[], visit: (page: StoredPage) => void) =>
    pages.forEach((page) => (visit(page), walk(page.pages, visit)));
  walk(parent.pages, (page) => before.set(page.id, page.markdown ?? ''));
  let changed = 0;
  walk(content.pages, (page) => {
    if (page.type !== 'link' && before.get(page.id) !== (page.markdown ?? '')) changed++;
  });
  return changed;
}

describe('the link index of a new revision', () => {
  test('parses only the pages changed since its indexed parent, and holds what parsing every page gives', async () => {
    const space = { params: { path: { spaceId: 'handbook' } } };
    ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/links', space)); // indexes the seeded revision
    const edits: [string, (content: RevisionContent) => void][] = [
      ['one text changed', (content) => void (content.pages[0]!.markdown += '\nAlso [the FAQ](faq).\n')],
      ['the FAQ added: links to it in unchanged pages resolve now', (content) => content.pages.push(document('faq', 'Ask [home](home).\n'))],
      [
        'a page moved: its relative links resolve from its new place',
        (content) => content.pages.push(content.pages[1]!.pages.splice(0, 1)[0]!),
      ],
      ['a folder renamed: links into it break, its pages keep their text', (content) => void (content.pages[1]!.slug = 'manuals')],
      ['the logo added as a file', (content) => content.files.push({ id: 'logo', name: 'logo.png', contentType: 'image/png', size: 3 })],
      ['nothing changed', () => {}],
    ];
    for (const [what, edit] of edits) {
      const parent = await current();
      const revision = await commit(edit);
      const parsed = pagesParsedForLinks();
      const links = await linksOf(revision);
      expect(pagesParsedForLinks() - parsed, what).toBe(changedPages(revision.content, parent.content));
      expect(links, what).toEqual(extractLinks(revision.content, APP_URL));
      ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/links', space));
    }
    // The edits above did change where links point: the moved and renamed pages broke some, the FAQ fixed others.
    const last = await linksOf(await current());
    expect(last.filter((link) => link.status === 'broken').map((link) => link.href)).toContain('guides/setup');
    expect(last.find((link) => link.href === '../faq')).toMatchObject({ status: 'ok', target: { kind: 'page', id: 'faq' } });
  });

  test('without an indexed parent, parses only the pages changed since its nearest indexed ancestor', async () => {
    const indexed = await current();
    await linksOf(indexed);
    // Three writes, no read of links between them: the parent and grandparent of the last are not indexed.
    await commit((content) => void (content.pages[0]!.markdown += '\nMore.\n'));
    await commit((content) => content.pages.push(document('news', 'See [home](home).\n')));
    const last = await commit((content) => void (content.pages[1]!.pages[0]!.markdown += '\nAnd [news](../news).\n'));
    const parsed = pagesParsedForLinks();
    const links = await linksOf(last);
    expect(pagesParsedForLinks() - parsed).toBe(changedPages(last.content, indexed.content));
    expect(changedPages(last.content, indexed.content)).toBe(3);
    expect(links).toEqual(extractLinks(last.content, APP_URL));
  });

  test(`without an indexed ancestor within ${LINK_ANCESTRY_DEPTH} generations, parses every page`, async () => {
    const every = (content: RevisionContent) => changedPages(content, { ...content, pages: [] });
    const nearest = await current();
    await linksOf(nearest);
    for (let generation = 0; generation < LINK_ANCESTRY_DEPTH - 1; generation++) await commit(() => {});
    const within = await commit((content) => void (content.pages[0]!.markdown += '\nOne more.\n'));
    let parsed = pagesParsedForLinks();
    const withinLinks = await linksOf(within);
    expect(pagesParsedForLinks() - parsed).toBe(1);
    expect(withinLinks).toEqual(extractLinks(within.content, APP_URL));

    for (let generation = 0; generation < LINK_ANCESTRY_DEPTH; generation++) await commit(() => {});
    const beyond = await commit((content) => void (content.pages[0]!.markdown += '\nAnd one more.\n'));
    parsed = pagesParsedForLinks();
    const beyondLinks = await linksOf(beyond);
    expect(pagesParsedForLinks() - parsed).toBe(every(beyond.content));
    expect(beyondLinks).toEqual(extractLinks(beyond.content, APP_URL));
    expect(every(beyond.content)).toBeGreaterThan(1);
  });

  test('indexed again for another app address, reads its own rows and resolves them anew', async () => {
    const revision = await current();
    await linksOf(revision);
    const other: AppContext = { ...app(), config: { ...app().config, appUrl: 'https://other.test' } };
    const parsed = pagesParsedForLinks();
    await ensureLinkIndex(reading(other), revision);
    expect(pagesParsedForLinks() - parsed).toBe(0);
    const again = await linksOf(revision, other);
    expect(again).toEqual(extractLinks(revision.content, 'https://other.test'));
    // The link into the first app address is an outside link for the other.
    expect(again.find((link) => link.href === `${APP_URL}/s/x`)?.status).toBe('ok');
    expect(extractLinks(revision.content, APP_URL).find((link) => link.href === `${APP_URL}/s/x`)?.status).toBe('in-app');
    await linksOf(revision); // back to the server's own address for whatever runs next
  });
});
