// The full-text index cannot look its rows up by space (FTS5 keeps space_id unindexed), so content_search_spaces
// (migrations 120 and 190) records the space and page of every row, and a space's rows are removed through it.
// After every kind of write that indexes or removes a space's content, it lists exactly the index's rows, search
// answers as before, and the migrations' backfill of an existing database gives the same. A new revision indexes
// again only the pages that differ from the revision the index holds, and the index then holds what indexing the
// whole content gives.
import { describe, expect, test } from 'vitest';
import type { RevisionContent } from '../server/content/model.ts';
import { commitSpaceContent, getRevision } from '../server/content/revisions.ts';
import { indexSpaceContent, removeSpaceFromIndex } from '../server/content/search.ts';
import { getSpaceRow } from '../server/domain/spaces.ts';
import { readMigrations } from '../server/store/db.ts';
import { ACME, extendFixture, storedPage } from './support/fixture.ts';
import { expectError, ok } from './support/expect.ts';
import { useTestServer } from './support/server.ts';

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

/** The index's rows with their spaces, as the index holds them and as content_search_spaces records them. */
function recorded() {
  const db = ctx.server.running.ctx.db;
  return {
    index: db.prepare('SELECT rowid AS row, space_id AS space, page_id AS page FROM content_search ORDER BY rowid').all(),
    recorded: db
      .prepare('SELECT search_rowid AS row, space_id AS space, page_id AS page FROM content_search_spaces ORDER BY search_rowid')
      .all(),
  };
}

function expectRecorded() {
  const { index, recorded: rows } = recorded();
  expect(rows).toEqual(index);
  return index.length;
}

/** The pages of a space that a search for `text` finds. */
const found = async (spaceId: string, text: string) =>
  ok(await bridge().GET('/v1/spaces/{spaceId}/search', { params: { path: { spaceId }, query: { query: text } } })).items.map((page) => page.id);

describe('the spaces of the full-text index', () => {
  test('follow every write that indexes a space or removes it from the index', async () => {
    const rows = expectRecorded();
    expect(rows).toBeGreaterThanOrEqual(5);
    expect(await found('kitchen', 'vinegar')).toEqual(['kettle']);
    expect(await found('garden', 'water')).toEqual(['hose']);

    // New content: the space's rows are replaced, the other spaces' kept.
    ok(await bridge().POST('/v1/spaces/{spaceId}/content/template', { ...space('kitchen'), body: { id: 'changelog' } }));
    expect(expectRecorded()).toBeGreaterThan(rows);
    expect(await found('kitchen', 'vinegar')).toEqual(['kettle']);
    expect(await found('garden', 'water')).toEqual(['hose']);

    // A new space, then deleted: gone from the index; restored: back.
    const created = ok(await bridge().POST('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId: ACME } }, body: { title: 'Shed' } }), 201);
    expectRecorded();
    expect((await bridge().DELETE('/v1/spaces/{spaceId}', space('garden'))).response.status).toBe(204);
    expectRecorded();
    const db = ctx.server.running.ctx.db;
    expect(db.prepare(`SELECT COUNT(*) AS n FROM content_search WHERE space_id = 'garden'`).get()).toEqual({ n: 0 });
    ok(await bridge().POST('/v1/spaces/{spaceId}/restore', space('garden')), 200);
    expectRecorded();
    expect(await found('garden', 'water')).toEqual(['hose']);
    expect(await found('kitchen', 'water')).toEqual(['kettle']);
    expect((await bridge().DELETE('/v1/spaces/{spaceId}', space(created.id))).response.status).toBe(204);
    expectRecorded();
    expectError(await bridge().GET('/v1/spaces/{spaceId}/search', { params: { path: { spaceId: 'nope' }, query: { query: 'water' } } }), 404);
  });

  test("the migration's backfill of an existing database records every row of the index", async () => {
    const db = ctx.server.running.ctx.db;
    const before = recorded().index;
    expect(before.length).toBeGreaterThan(0);
    const migrations = readMigrations().filter((entry) => ['120_content_search_spaces.sql', '190_content_search_pages.sql'].includes(entry.name));
    expect(migrations).toHaveLength(2);
    db.transaction(() => {
      db.exec('DROP TABLE content_search_spaces; ALTER TABLE spaces DROP COLUMN search_revision_id');
      for (const migration of migrations) db.exec(migration.sql);
    })();
    expect(expectRecorded()).toBe(before.length);
    expect(await found('kitchen', 'vinegar')).toEqual(['kettle']);
    ok(await bridge().POST('/v1/spaces/{spaceId}/content/template', { ...space('garden'), body: { id: 'changelog' } }));
    expectRecorded();
  });
});

describe('a new revision of a space', () => {
  /** The index's rows of a space, as sets of their columns (rowids left out), sorted. */
  const rowsOf = (spaceId: string) =>
    (
      ctx.server.running.ctx.db
        .prepare('SELECT title, body, page_title, page_id, page_path, section_id FROM content_search WHERE space_id = ?')
        .all(spaceId) as Record<string, string>[]
    )
      .map((row) => JSON.stringify(row))
      .sort();
  const rowids = (spaceId: string, pageId: string) =>
    (
      ctx.server.running.ctx.db
        .prepare('SELECT rowid AS row FROM content_search WHERE space_id = ? AND page_id = ? ORDER BY rowid')
        .all(spaceId, pageId) as { row: number }[]
    ).map((row) => row.row);

  /** Commits `edit` of the space's current content as its new revision, the way every content write ends. */
  async function commit(spaceId: string, edit: (content: RevisionContent) => void) {
    const app = ctx.server.running.ctx;
    await app.store.write(() => {
      const row = getSpaceRow(app.db, spaceId)!;
      const content = structuredClone(getRevision(app.db, row.revision_id, spaceId)!.content);
      edit(content);
      commitSpaceContent(app.db, spaceId, [row.revision_id], content, app.now());
    });
  }

  /** The space's rows as indexing its whole current content gives them (the index is left so). */
  async function indexedWhole(spaceId: string) {
    const app = ctx.server.running.ctx;
    await app.store.write(() => {
      const revision = getRevision(app.db, getSpaceRow(app.db, spaceId)!.revision_id, spaceId)!;
      removeSpaceFromIndex(app.db, spaceId);
      indexSpaceContent(app.db, spaceId, revision.id, revision.content);
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
    expect(rowsOf('kitchen')).toEqual(await indexedWhole('kitchen'));
    // Rows indexed, counted as they are recorded.
    const db = ctx.server.running.ctx.db;
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
        const before = rowsOf('kitchen');
        const fridge = rowids('kitchen', 'fridge');
        const counted = indexedRows();
        await commit('kitchen', edit);
        const after = rowsOf('kitchen');
        // The pages whose rows differ, all their rows indexed again; no other row.
        const changed = new Set([...before.filter((row) => !after.includes(row)), ...after.filter((row) => !before.includes(row))].map((row) => JSON.parse(row).page_id));
        expect(indexedRows() - counted, what).toBe(after.filter((row) => changed.has(JSON.parse(row).page_id)).length);
        expect(rowids('kitchen', 'fridge'), what).toEqual(fridge);
        expect(after, what).toEqual(await indexedWhole('kitchen'));
      }
    } finally {
      db.exec('DROP TRIGGER temp.count_indexed; DROP TABLE temp.indexed');
    }
    expect(expectRecorded()).toBeGreaterThan(0);
    expect(await found('kitchen', 'cream')).toEqual(['mixer']);
    expect(await found('kitchen', 'toast')).toEqual([]);
    expect(await found('kitchen', 'again')).toEqual(['kettle-2']);
  });

  test('of a new space, created or duplicated, is what indexing its content whole gives, and is named on its row', async () => {
    const db = ctx.server.running.ctx.db;
    const created = ok(await bridge().POST('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId: ACME } }, body: { title: 'Attic' } }), 201);
    const copy = ok(await bridge().POST('/v1/spaces/{spaceId}/duplicate', space('kitchen')), 201);
    expect(rowsOf(copy.id).length).toBeGreaterThan(0);
    expect(rowsOf(copy.id)).toEqual(rowsOf('kitchen'));
    for (const id of [created.id, copy.id]) {
      const row = getSpaceRow(db, id)!;
      expect(db.prepare('SELECT search_revision_id AS id FROM spaces WHERE id = ?').get(id)).toEqual({ id: row.revision_id });
      expect(rowsOf(id)).toEqual(await indexedWhole(id));
    }
    expectRecorded();
    expect(await found(copy.id, 'cream')).toEqual(await found('kitchen', 'cream'));
  });

  test('of a space whose rows were removed (deleted, then restored) is indexed whole', async () => {
    expect((await bridge().DELETE('/v1/spaces/{spaceId}', space('kitchen'))).response.status).toBe(204);
    const db = ctx.server.running.ctx.db;
    expect(db.prepare(`SELECT search_revision_id AS id FROM spaces WHERE id = 'kitchen'`).get()).toEqual({ id: null });
    ok(await bridge().POST('/v1/spaces/{spaceId}/restore', space('kitchen')), 200);
    expect(await found('kitchen', 'cream')).toEqual(['mixer']);
    expect(rowsOf('kitchen')).toEqual(await indexedWhole('kitchen'));
    expectRecorded();
  });
});
