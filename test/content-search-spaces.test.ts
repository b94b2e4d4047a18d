// The full-text index cannot look its rows up by space (FTS5 keeps space_id unindexed), so content_search_spaces
// (migration 120) records the space of every row, and a space's rows are removed through it. After every kind of
// write that indexes or removes a space's content, it lists exactly the index's rows, search answers as before, and
// the migration's backfill of an existing database gives the same.
import { describe, expect, test } from 'vitest';
import { readMigrations } from '../server/store/db.ts';
import { ACME, extendFixture } from './support/fixture.ts';
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
    index: db.prepare('SELECT rowid AS row, space_id AS space FROM content_search ORDER BY rowid').all(),
    recorded: db.prepare('SELECT search_rowid AS row, space_id AS space FROM content_search_spaces ORDER BY search_rowid').all(),
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
    const migration = readMigrations().find((entry) => entry.name === '120_content_search_spaces.sql')!;
    db.transaction(() => {
      db.exec('DROP TABLE content_search_spaces');
      db.exec(migration.sql);
    })();
    expect(expectRecorded()).toBe(before.length);
    expect(await found('kitchen', 'vinegar')).toEqual(['kettle']);
    ok(await bridge().POST('/v1/spaces/{spaceId}/content/template', { ...space('garden'), body: { id: 'changelog' } }));
    expectRecorded();
  });
});
