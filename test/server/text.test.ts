// Text both engines store alike (server/common/text.ts): what is refused in requests (a NUL, an unpaired surrogate), and what
// the store does with such text when it reaches it by another way: written as U+FFFD on both engines, where
// PostgreSQL refused the statement and SQLite kept the NUL.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Store } from '../../server/store/db.ts';
import { PostgresStore } from '../../server/store/postgres/store.ts';
import { SqliteStore } from '../../server/store/sqlite/store.ts';
import { storableText, textProblem } from '../../server/common/text.ts';
import { createTestDatabase, postgresRuns, type TestDatabase } from '../support/databases.ts';

describe('text both engines store alike', () => {
  test('a NUL or an unpaired surrogate is a problem; whole characters, emoji and other controls are not', () => {
    for (const good of ['', 'plain', 'tab\tand\nnew line', 'emoji 😀', '\u0001\u001f\u007f', '\uFFFD', '\uD83D\uDE00']) expect(textProblem(good), good).toBeUndefined();
    expect(textProblem('a\u0000b')).toBe('must not contain the character U+0000 (NUL)');
    for (const lone of ['\uD800', 'a\uDBFFb', '\uDC00', 'x\uDE00\uD83D']) expect(textProblem(lone), JSON.stringify(lone)).toMatch(/unpaired surrogate/);
  });

  test('storable text replaces each of them by U+FFFD, and leaves any other string as it is (the same string)', () => {
    const plain = 'nothing to replace 😀';
    expect(storableText(plain)).toBe(plain);
    expect(storableText('a\u0000b\u0000')).toBe('a\uFFFDb\uFFFD');
    expect(storableText('a\uD800b\uDC00c\uD83D\uDE00')).toBe('a\uFFFDb\uFFFDc\uD83D\uDE00');
  });

  describe('in the store, on both engines', () => {
    let database: TestDatabase | undefined;
    const stores: [string, Store][] = [];
    beforeAll(async () => {
      stores.push(['sqlite', new SqliteStore(':memory:')]);
      if (!postgresRuns()) return;
      database = await createTestDatabase();
      stores.push(['postgres', await PostgresStore.open({ url: database.url })]);
    }, 60_000);
    afterAll(async () => {
      await Promise.all(stores.map(([, store]) => store.close()));
      await database?.drop();
    });

    test('a string bound to a statement, alone or in a list, is stored with U+FFFD for each NUL and unpaired surrogate', async () => {
      for (const [engine, store] of stores) {
        await store.write((db) =>
          db.run(sql`INSERT INTO organizations (id, title, created_at, type) VALUES (${'text-\u0000'}, ${'a\u0000b\uD800'}, ${'2026-01-01T00:00:00.000Z'}, 'business')`),
        );
        const row = await store.reader.first(sql<{ id: string; title: string }>`SELECT id, title FROM organizations WHERE id = ${'text-\u0000'}`);
        expect(row, engine).toEqual({ id: 'text-\uFFFD', title: 'a\uFFFDb\uFFFD' });
        const listed = await store.reader.all(
          sql<{ id: string }>`SELECT id FROM organizations WHERE ${store.reader.specific.among('id', ['text-\u0000', 'none\u0000'])}`,
        );
        expect(listed, engine).toEqual([{ id: 'text-\uFFFD' }]);
      }
    });
  });
});
