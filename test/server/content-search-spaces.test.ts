// content_search_spaces, the full-text index's rows by space and page: after every kind of write that indexes or
// removes a space's content it lists exactly the index's rows, search answers as before, and the migrations' backfill
// gives the same; a new revision indexes again only the pages that differ, and the index then holds what indexing the
// whole content gives.
// Why the table exists: test/README.md, "The search index by space".
import { sql } from 'kysely';
import { describe, expect, test } from 'vitest';
import type { RevisionContent } from '../../server/content/model.ts';
import { commitSpaceContent, getRevision } from '../../server/content/revisions.ts';
import { indexSpaceContent, removeSpaceFromIndex } from '../../server/content/search.ts';
import { getSpaceRow } from '../../server/domain/spaces.ts';
import { readMigrations, SqliteStore } from '../../server/store/sqlite/store.ts';
import { ACME, extendFixture, storedPage } from '../support/fixture.ts';
import { expectError, ok } from '../support/expect.ts';
import { useTestServer } from '../support/server.ts';

const fixture = extendFixture({
  bridge: true,
  acme: {
    spaces: [
      {
        id: 'kitchen',
        title: 'Kitchen',
        pages: [
          { id: 'kettle', title: 'Kettle', markdown: 'Boil water.\n\n## Descaling\n\nUse vinegar.\n\n## Safety\n\nMind the steam.\n' },
          { id: 'toaster', title: 'Toaster', markdown: 'Bread goes in.\n' },
        ],
      },
      { id: 'garden', title: 'Garden', pages: [{ id: 'hose', title: 'Hose', markdown: 'Water the plants with the hose.\n' }] },
    ],
  },
});
const ctx = useTestServer({ fixture });
const bridge = () => ctx.server.as('bridge');
const space = (spaceId: string) => ({ params: { path: { spaceId } } });
const app = () => ctx.server.running.ctx;
const reader = () => app().store.reader;

/** The server's SQLite connection: this file is about SQLite's full-text index (FTS5) and its migrations. */
function connection() {
  const store = app().store;
  if (!(store instanceof SqliteStore)) throw new Error('content_search_spaces is SQLite\'s: run this file on SQLite');
  return store.connection;
}

type Recorded = { row: number; space: string; page: string };

/** The index's rows with their spaces, as the index holds them and as content_search_spaces records them. */
async function recorded() {
  return {
    index: await reader().all<Recorded>(sql`SELECT rowid AS row, space_id AS space, page_id AS page FROM content_search ORDER BY rowid`),
    recorded: await reader().all<Recorded>(
      sql`SELECT search_rowid AS row, space_id AS space, page_id AS page FROM content_search_spaces ORDER BY search_rowid`,
    ),
  };
}

async function expectRecorded() {
  const { index, recorded: rows } = await recorded();
  expect(rows).toEqual(index);
  return index.length;
}

/** The pages of a space that a search for `text` finds. */
const found = async (spaceId: string, text: string) =>
  ok(await bridge().GET('/v1/spaces/{spaceId}/search', { params: { path: { spaceId }, query: { query: text } } })).items.map((page) => page.id);

describe('the spaces of the full-text index', () => {
  test('follow every write that indexes a space or removes it from the index', async () => {
    const rows = await expectRecorded();
    expect(rows).toBeGreaterThanOrEqual(5);
    expect(await found('kitchen', 'vinegar')).toEqual(['kettle']);
    expect(await found('garden', 'water')).toEqual(['hose']);

    // New content: the space's rows are replaced, the other spaces' kept.
    ok(await bridge().POST('/v1/spaces/{spaceId}/content/template', { ...space('kitchen'), body: { id: 'changelog' } }));
    expect(await expectRecorded()).toBeGreaterThan(rows);
    expect(await found('kitchen', 'vinegar')).toEqual(['kettle']);
    expect(await found('garden', 'water')).toEqual(['hose']);

    // A new space, then deleted: gone from the index; restored: back.
    const created = ok(await bridge().POST('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId: ACME } }, body: { title: 'Shed' } }), 201);
    await expectRecorded();
    expect((await bridge().DELETE('/v1/spaces/{spaceId}', space('garden'))).response.status).toBe(204);
    await expectRecorded();
    expect(await reader().first(sql`SELECT COUNT(*) AS n FROM content_search WHERE space_id = ${'garden'}`)).toEqual({ n: 0 });
    ok(await bridge().POST('/v1/spaces/{spaceId}/restore', space('garden')), 200);
    await expectRecorded();
    expect(await found('garden', 'water')).toEqual(['hose']);
    expect(await found('kitchen', 'water')).toEqual(['kettle']);
    expect((await bridge().DELETE('/v1/spaces/{spaceId}', space(created.id))).response.status).toBe(204);
    await expectRecorded();
    expectError(await bridge().GET('/v1/spaces/{spaceId}/search', { params: { path: { spaceId: 'nope' }, query: { query: 'water' } } }), 404);
  });

  test("the migration's backfill of an existing database records every row of the index", async () => {
    const before = (await recorded()).index;
    expect(before.length).toBeGreaterThan(0);
    const migrations = readMigrations().filter((entry) => ['120_content_search_spaces.sql', '190_content_search_pages.sql'].includes(entry.name));
    expect(migrations).toHaveLength(2);
    const db = connection();
    db.transaction(() => {
      db.exec('DROP TABLE content_search_spaces; ALTER TABLE spaces DROP COLUMN search_revision_id');
      for (const migration of migrations) db.exec(migration.sql);
    })();
    expect(await expectRecorded()).toBe(before.length);
    expect(await found('kitchen', 'vinegar')).toEqual(['kettle']);
    ok(await bridge().POST('/v1/spaces/{spaceId}/content/template', { ...space('garden'), body: { id: 'changelog' } }));
    await expectRecorded();
  });
});

describe('a new revision of a space', () => {
  /** The index's rows of a space, as sets of their columns (rowids left out), sorted. */
  const rowsOf = async (spaceId: string) =>
    (
      await reader().all<Record<string, string>>(
        sql`SELECT title, body, page_title, page_id, page_path, section_id FROM content_search WHERE space_id = ${spaceId}`,
      )
    )
      .map((row) => JSON.stringify(row))
      .sort();
  const rowids = async (spaceId: string, pageId: string) =>
    (
      await reader().all<{ row: number }>(
        sql`SELECT rowid AS row FROM content_search WHERE space_id = ${spaceId} AND page_id = ${pageId} ORDER BY rowid`,
      )
    ).map((row) => row.row);

  /** Commits `edit` of the space's current content as its new revision, the way every content write ends. */
  async function commit(spaceId: string, edit: (content: RevisionContent) => void) {
    await app().store.write(async (db) => {
      const row = (await getSpaceRow(db, spaceId))!;
      const content = structuredClone((await getRevision(db, row.revisionId, spaceId))!.content);
      edit(content);
      await commitSpaceContent(db, spaceId, [row.revisionId], content, app().now());
    });
  }

  /** The space's rows as indexing its whole current content gives them (the index is left so). */
  async function indexedWhole(spaceId: string) {
    await app().store.write(async (db) => {
      const revision = (await getRevision(db, (await getSpaceRow(db, spaceId))!.revisionId, spaceId))!;
      await removeSpaceFromIndex(db, spaceId);
      await indexSpaceContent(db, spaceId, revision.id, revision.content);
    });
    return rowsOf(spaceId);
  }

  const page = storedPage;

  test('indexes again the pages it changes, adds or removes, and leaves the others, as indexing it whole would', async () => {
    await commit('kitchen', (content) => {
      content.pages = [
        page('mixer', 'Mixer', 'Whisk the eggs.\n\n## Cleaning\n\nRinse the whisk.\n'),
        page('oven', 'Oven', 'Preheat.\n', [page('grill', 'Grill', 'Toast the bread.\n')]),
        page('fridge', 'Fridge', 'Keep it cold.\n'),
        page('sink', 'Sink', 'Wash up.\n'),
      ];
    });
    expect(await rowsOf('kitchen')).toEqual(await indexedWhole('kitchen'));
    // Rows indexed, counted as they are recorded.
    const db = connection();
    db.exec(`CREATE TEMP TABLE indexed (n INTEGER NOT NULL); INSERT INTO indexed VALUES (0);
      CREATE TEMP TRIGGER count_indexed AFTER INSERT ON content_search_spaces BEGIN UPDATE indexed SET n = n + 1; END`);
    const indexedRows = () => (db.prepare('SELECT n FROM indexed').get() as { n: number }).n;

    const edits: [string, (content: RevisionContent) => void][] = [
      ['a text changed', (content) => void (content.pages[0]!.markdown = 'Whisk the cream.\n\n## Storing\n\nIn a jar.\n')],
      ['a title changed', (content) => void (content.pages[3]!.title = 'Basin')],
      ['a page moved, its path with it', (content) => content.pages[0]!.pages.push(content.pages.splice(3, 1)[0]!)],
      ['a parent renamed: its child keeps its id, title and text, not its path', (content) => void (content.pages[1]!.slug = 'stove')],
      ['a page added', (content) => content.pages.push(page('kettle-2', 'Kettle', 'Boil water again.\n'))],
      ['a page removed', (content) => void content.pages.splice(1, 1)],
      ['nothing changed', () => {}],
    ];
    try {
      for (const [what, edit] of edits) {
        const before = await rowsOf('kitchen');
        const fridge = await rowids('kitchen', 'fridge');
        const counted = indexedRows();
        await commit('kitchen', edit);
        const after = await rowsOf('kitchen');
        // The pages whose rows differ, all their rows indexed again; no other row.
        const changed = new Set([...before.filter((row) => !after.includes(row)), ...after.filter((row) => !before.includes(row))].map((row) => JSON.parse(row).pageId));
        expect(indexedRows() - counted, what).toBe(after.filter((row) => changed.has(JSON.parse(row).pageId)).length);
        expect(await rowids('kitchen', 'fridge'), what).toEqual(fridge);
        expect(after, what).toEqual(await indexedWhole('kitchen'));
      }
    } finally {
      db.exec('DROP TRIGGER temp.count_indexed; DROP TABLE temp.indexed');
    }
    expect(await expectRecorded()).toBeGreaterThan(0);
    expect(await found('kitchen', 'cream')).toEqual(['mixer']);
    expect(await found('kitchen', 'toast')).toEqual([]);
    expect(await found('kitchen', 'again')).toEqual(['kettle-2']);
  });

  test('of a new space, created or duplicated, is what indexing its content whole gives, and is named on its row', async () => {
    const created = ok(await bridge().POST('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId: ACME } }, body: { title: 'Attic' } }), 201);
    const copy = ok(await bridge().POST('/v1/spaces/{spaceId}/duplicate', space('kitchen')), 201);
    expect((await rowsOf(copy.id)).length).toBeGreaterThan(0);
    expect(await rowsOf(copy.id)).toEqual(await rowsOf('kitchen'));
    for (const id of [created.id, copy.id]) {
      const row = (await getSpaceRow(reader(), id))!;
      expect(await reader().first(sql`SELECT search_revision_id AS id FROM spaces WHERE id = ${id}`)).toEqual({ id: row.revisionId });
      expect(await rowsOf(id)).toEqual(await indexedWhole(id));
    }
    await expectRecorded();
    expect(await found(copy.id, 'cream')).toEqual(await found('kitchen', 'cream'));
  });

  test('of a space whose rows were removed (deleted, then restored) is indexed whole', async () => {
    expect((await bridge().DELETE('/v1/spaces/{spaceId}', space('kitchen'))).response.status).toBe(204);
    expect(await reader().first(sql`SELECT search_revision_id AS id FROM spaces WHERE id = ${'kitchen'}`)).toEqual({ id: null });
    ok(await bridge().POST('/v1/spaces/{spaceId}/restore', space('kitchen')), 200);
    expect(await found('kitchen', 'cream')).toEqual(['mixer']);
    expect(await rowsOf('kitchen')).toEqual(await indexedWhole('kitchen'));
    await expectRecorded();
  });
});
