// The number of live spaces of an organization (the `count` of the first page of its spaces) is kept by triggers
// (migration 110_organization_space_counts) instead of counted on every read. After every kind of write that moves
// it (create, delete, restore, transfer of a space or of a collection holding spaces, delete of a collection, and
// removals no operation makes, through the database), the API shows exactly what counting the rows gives, and the
// migration's backfill of an existing database gives the same.
import { describe, expect, test } from 'vitest';
import { readMigrations, SqliteStore } from '../../server/store/sqlite/store.ts';
import { ACME, extendFixture, GLOBEX } from '../support/fixture.ts';
import { ok } from '../support/expect.ts';
import { useTestServer } from '../support/server.ts';
import { sql } from 'kysely';
import { testEngine } from '../support/databases.ts';

const fixture = extendFixture({
  bridge: true,
  acme: {
    collections: [
      { id: 'shelf', title: 'Shelf' },
      { id: 'bin', title: 'Bin' },
    ],
    spaces: [
      { id: 'on-shelf', title: 'On the shelf', parent: 'shelf' },
      { id: 'also-on-shelf', title: 'Also on the shelf', parent: 'shelf' },
      { id: 'in-bin', title: 'In the bin', parent: 'bin' },
    ],
  },
});
const ctx = useTestServer({ fixture });
const bridge = () => ctx.server.as('bridge');

/** The number by its definition: counting the rows. */
async function counted(organizationId: string): Promise<number> {
  const db = ctx.server.running.ctx.store.reader;
  const row = await db.first<{ n: number }>(sql`SELECT COUNT(*) AS n FROM spaces WHERE organization_id = ${organizationId} AND deleted_at IS NULL`);
  return Number(row!.n);
}

/** The `count` of the first page of the organization's spaces, after checking it is what counting gives. */
async function shown(organizationId: string): Promise<number> {
  const page = ok(await bridge().GET('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId }, query: { limit: 1 } } }), 200);
  expect(page.count, organizationId).toBe(await counted(organizationId));
  return page.count;
}

const both = async () => [await shown(ACME), await shown(GLOBEX)];

describe('live space counts of organizations', () => {
  test('follow every write that creates, removes, restores or moves a space', async () => {
    const [acme, globex] = await both();
    expect(acme).toBeGreaterThanOrEqual(3);

    const created = await Promise.all(
      ['One', 'Two', 'Three'].map(async (title) =>
        ok(await bridge().POST('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId: ACME } }, body: { title } }), 201),
      ),
    );
    expect(await both()).toEqual([acme + 3, globex]);

    const space = (spaceId: string) => ({ params: { path: { spaceId } } });
    expect((await bridge().DELETE('/v1/spaces/{spaceId}', space(created[0]!.id))).response.status).toBe(204);
    expect(await both()).toEqual([acme + 2, globex]);
    // Deleting it again changes nothing.
    expect((await bridge().DELETE('/v1/spaces/{spaceId}', space(created[0]!.id))).response.status).toBe(204);
    expect(await both()).toEqual([acme + 2, globex]);
    ok(await bridge().POST('/v1/spaces/{spaceId}/restore', space(created[0]!.id)), 200);
    expect(await both()).toEqual([acme + 3, globex]);

    ok(await bridge().POST('/v1/spaces/{spaceId}/transfer', { ...space(created[1]!.id), body: { organization: GLOBEX } }), 200);
    expect(await both()).toEqual([acme + 2, globex + 1]);
    // A deleted space moved to another organization counts in neither.
    expect((await bridge().DELETE('/v1/spaces/{spaceId}', space(created[1]!.id))).response.status).toBe(204);
    expect(await both()).toEqual([acme + 2, globex]);

    // A collection moves its spaces with it.
    ok(await bridge().POST('/v1/collections/{collectionId}/transfer', { params: { path: { collectionId: 'shelf' } }, body: { organization: GLOBEX } }), 200);
    expect(await both()).toEqual([acme, globex + 2]);
    // Deleting a collection removes what it holds.
    expect((await bridge().DELETE('/v1/collections/{collectionId}', { params: { path: { collectionId: 'bin' } } })).response.status).toBe(204);
    expect(await shown(ACME)).toBe(await counted(ACME));

    // Removals no operation makes: a space removed outright, an organization removed with its spaces.
    const { store } = ctx.server.running.ctx;
    const before = await shown(ACME);
    await store.write((db) => db.run(sql`DELETE FROM spaces WHERE id = ${created[2]!.id}`));
    expect(await shown(ACME)).toBe(before - 1);
    await store.write((db) => db.run(sql`DELETE FROM organizations WHERE id = ${GLOBEX}`));
    expect(await counted(GLOBEX)).toBe(0);
    expect(await store.reader.all(sql`SELECT organization_id FROM organization_space_counts WHERE organization_id = ${GLOBEX}`)).toEqual([]);
  });

  test.skipIf(testEngine() !== 'sqlite')("the SQLite migration's backfill of an existing database counts what is there", async () => {
    const db = (ctx.server.running.ctx.store as SqliteStore).connection;
    const before = await shown(ACME);
    expect(before).toBeGreaterThan(0);
    const migration = readMigrations().find((entry) => entry.name === '110_organization_space_counts.sql')!;
    const triggers = (
      db.prepare(`SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'organization_space_counts_%'`).all() as { name: string }[]
    ).map((row) => row.name);
    expect(triggers.length).toBe(4);
    db.transaction(() => {
      for (const name of triggers) db.exec(`DROP TRIGGER ${name}`);
      db.exec('DROP TABLE organization_space_counts');
      db.exec(migration.sql);
    })();
    expect(await shown(ACME)).toBe(before);
  });
});
