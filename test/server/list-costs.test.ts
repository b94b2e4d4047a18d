// What keeps a request's cost from growing with the data around it, checked on the schema and on the rules the lists
// rely on: every foreign key's column leads an index, a member views all of an organization's collections and spaces
// or none, and a member carries its user's display name.
// Why each matters, and where the costs are measured: test/README.md, "What keeps a request's cost flat".
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { type Membership, ROLES } from '../../server/auth/roles.ts';
import { collectionPermissions, contentRole, viewsAllContent } from '../../server/domain/collections.ts';
import Database from 'better-sqlite3';
import { type Connection, migrate, readMigrations, SqliteStore } from '../../server/store/sqlite/store.ts';
import { repoRoot } from '../support/repo.ts';

const store = new SqliteStore(':memory:');
afterAll(() => store.close());
const db = store.connection;

/** Tables whose rows the server never deletes: no operation deletes them, and no foreign key of theirs cascades. */
const NEVER_DELETED = ['users', 'organizations', 'file_blobs'];

const names = (sql: string, ...values: unknown[]) => (db.prepare(sql).all(...values) as { name: string }[]).map((row) => row.name);

describe('foreign keys', () => {
  test("every foreign key's columns lead an index of the referring table, but those to rows never deleted", () => {
    const unindexed: string[] = [];
    for (const table of names(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`)) {
      const keys = new Map<number, { parent: string; columns: string[] }>();
      for (const row of db.prepare('SELECT id, seq, "table" AS parent, "from" AS col FROM pragma_foreign_key_list(?) ORDER BY id, seq').all(table) as {
        id: number;
        parent: string;
        col: string;
      }[]) {
        const key = keys.get(row.id) ?? { parent: row.parent, columns: [] };
        key.columns.push(row.col);
        keys.set(row.id, key);
      }
      const indexes = names('SELECT name FROM pragma_index_list(?)', table).map((index) =>
        names('SELECT name FROM pragma_index_info(?) ORDER BY seqno', index),
      );
      for (const { parent, columns } of keys.values()) {
        if (NEVER_DELETED.includes(parent)) continue;
        const led = indexes.some((indexed) => columns.every((column, at) => indexed[at] === column));
        if (!led) unindexed.push(`${table} (${columns.join(', ')}) -> ${parent}`);
      }
    }
    expect(unindexed).toEqual([]);
  });

  test('the server deletes no row of the tables left out above, and nothing cascades into them', () => {
    const sources: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const file = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(file);
        else if (/\.(ts|sql)$/.test(entry.name)) sources.push(file);
      }
    };
    walk(path.join(repoRoot, 'server'));
    expect(sources.length).toBeGreaterThan(50);
    const deletes = new RegExp(`DELETE\\s+FROM\\s+(${NEVER_DELETED.join('|')})\\b`, 'i');
    expect(sources.filter((file) => deletes.test(readFileSync(file, 'utf8')))).toEqual([]);
    for (const table of NEVER_DELETED) {
      expect(names('SELECT name FROM sqlite_master WHERE type = ? AND name = ?', 'table', table)).toEqual([table]);
      expect(db.prepare('SELECT * FROM pragma_foreign_key_list(?)').all(table)).toEqual([]);
    }
  });
});

describe('viewsAllContent', () => {
  const memberships: (Membership | undefined)[] = [
    undefined,
    { organizationId: 'o', role: null, disabled: false },
    ...ROLES.map((role) => ({ organizationId: 'o', role, disabled: false })),
  ];

  test('is whether the member may view content of every default level, as contentRole decides it', () => {
    for (const membership of memberships) {
      for (const level of [null, ...ROLES]) {
        expect([membership?.role, level, collectionPermissions(contentRole(membership, level)).view]).toEqual([
          membership?.role,
          level,
          viewsAllContent(membership),
        ]);
      }
    }
    expect(memberships.filter(viewsAllContent)).toHaveLength(ROLES.length);
  });
});

describe("members' display names", () => {
  const at = '2026-01-01T00:00:00.000Z';
  const memberNames = (connection: Connection) =>
    connection.prepare('SELECT organization_id, user_id, user_display_name FROM members ORDER BY organization_id, user_id').all();

  test("follow their users' display names, whatever writes users or members", () => {
    db.prepare('INSERT INTO users (id, display_name, created_at) VALUES (?, ?, ?), (?, ?, ?)').run('ada', 'Ada', at, 'bob', 'Bob', at);
    db.prepare(`INSERT INTO organizations (id, title, created_at, type) VALUES (?, ?, ?, 'business'), (?, ?, ?, 'business')`).run('o1', 'O1', at, 'o2', 'O2', at);
    const join = db.prepare('INSERT INTO members (organization_id, user_id, role, joined_at) VALUES (?, ?, ?, ?)');
    join.run('o1', 'ada', 'admin', at);
    join.run('o2', 'ada', 'read', at);
    join.run('o1', 'bob', 'read', at);
    expect(memberNames(db)).toEqual([
      { organization_id: 'o1', user_id: 'ada', user_display_name: 'Ada' },
      { organization_id: 'o1', user_id: 'bob', user_display_name: 'Bob' },
      { organization_id: 'o2', user_id: 'ada', user_display_name: 'Ada' },
    ]);
    db.prepare('UPDATE users SET display_name = ? WHERE id = ?').run('Ada Lovelace', 'ada');
    db.prepare('INSERT INTO users (id, display_name, created_at) VALUES (?, ?, ?)').run('cy', 'Cy', at);
    db.prepare('UPDATE members SET user_id = ? WHERE organization_id = ? AND user_id = ?').run('cy', 'o2', 'ada');
    expect(memberNames(db)).toEqual([
      { organization_id: 'o1', user_id: 'ada', user_display_name: 'Ada Lovelace' },
      { organization_id: 'o1', user_id: 'bob', user_display_name: 'Bob' },
      { organization_id: 'o2', user_id: 'cy', user_display_name: 'Cy' },
    ]);
  });

  test("the migration gives the members of an existing database their users' names", () => {
    const older = new Database(':memory:');
    older.pragma('foreign_keys = ON');
    try {
      const migrations = readMigrations();
      migrate(older, migrations.filter((migration) => migration.version < 160));
      older.prepare('INSERT INTO users (id, display_name, created_at) VALUES (?, ?, ?), (?, ?, ?)').run('ada', 'Ada', at, 'bob', 'Bob', at);
      older.prepare(`INSERT INTO organizations (id, title, created_at, type) VALUES (?, ?, ?, 'business')`).run('o1', 'O1', at);
      older.prepare('INSERT INTO members (organization_id, user_id, role, joined_at) VALUES (?, ?, ?, ?), (?, ?, ?, ?)').run('o1', 'ada', 'admin', at, 'o1', 'bob', null, at);
      expect(migrate(older, migrations)).toContain('160_member_display_names.sql');
      expect(memberNames(older)).toEqual([
        { organization_id: 'o1', user_id: 'ada', user_display_name: 'Ada' },
        { organization_id: 'o1', user_id: 'bob', user_display_name: 'Bob' },
      ]);
    } finally {
      older.close();
    }
  });
});
