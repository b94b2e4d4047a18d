// better-sqlite3's addon is built by scripts/build-sqlite.ts, with its Node 20 row making changed (see the script): the
// installed addon is that build, the change applies once and refuses sources it does not know, and rows read through
// the changed code hold what SQLite holds, in every mode that reaches it.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import Database from 'better-sqlite3';
import { SOURCE_CHANGES, SQLITE_PACKAGE, STAMP, addonIsBuilt, applySourceChanges, stampOf } from '../scripts/build-sqlite.ts';

const scratch = mkdtempSync(path.join(tmpdir(), 'sqlite-build-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A copy of the files the change reads and writes, with better-sqlite3's own text in place of the change. */
function shippedSources(name: string): string {
  const dir = path.join(scratch, name);
  cpSync(path.join(SQLITE_PACKAGE, 'package.json'), path.join(dir, 'package.json'));
  for (const change of SOURCE_CHANGES) {
    cpSync(path.join(SQLITE_PACKAGE, change.file), path.join(dir, change.file));
    const file = path.join(dir, change.file);
    writeFileSync(file, readFileSync(file, 'utf8').replace(change.after, () => change.before));
  }
  return dir;
}

describe('the build of better-sqlite3', () => {
  test('the installed addon is the one build-sqlite made from the changed sources, for this Node', () => {
    for (const change of SOURCE_CHANGES) {
      const text = readFileSync(path.join(SQLITE_PACKAGE, change.file), 'utf8');
      expect(text.split(change.after), change.file).toHaveLength(2);
      expect(text.includes(change.before), change.file).toBe(false);
    }
    // The stamp holds the addon's digest: an addon built or copied there by anything else does not match it.
    expect(addonIsBuilt()).toBe(true);
    expect(JSON.parse(readFileSync(STAMP, 'utf8'))).toMatchObject({ modules: process.versions.modules, addon: expect.any(String) });
  });

  test('the change applies to the sources as shipped, once, and the stamp follows the sources', () => {
    const dir = shippedSources('shipped');
    const before = stampOf(dir);
    expect(applySourceChanges(dir)).toEqual({ changed: SOURCE_CHANGES.map((change) => change.file) });
    for (const change of SOURCE_CHANGES) {
      expect(readFileSync(path.join(dir, change.file), 'utf8')).toBe(readFileSync(path.join(SQLITE_PACKAGE, change.file), 'utf8'));
    }
    expect(stampOf(dir)).toEqual(stampOf(SQLITE_PACKAGE));
    expect(stampOf(dir)).not.toEqual(before);
    expect(applySourceChanges(dir)).toEqual({ changed: [] });
  });

  test('sources that hold neither the shipped code nor the change, or the shipped code twice, stop the build', () => {
    const [first] = SOURCE_CHANGES;
    const unknown = shippedSources('unknown');
    writeFileSync(path.join(unknown, first!.file), '// another version\n');
    expect(() => applySourceChanges(unknown)).toThrow(`${first!.file} of better-sqlite3 does not hold the code`);
    const twice = shippedSources('twice');
    writeFileSync(path.join(twice, first!.file), `${first!.before}\n${first!.before}\n`);
    expect(() => applySourceChanges(twice)).toThrow(first!.file);
  });
});

describe('rows read through the changed code', () => {
  const db = new Database(':memory:');
  afterAll(() => db.close());
  // 20 columns: more than the 16 better-sqlite3 keeps on the stack in its Node 22 code; each SQLite storage class.
  const columns = Array.from({ length: 20 }, (_, index) => `c${index}`);
  db.exec(`CREATE TABLE wide (${columns.join(', ')})`);
  const valuesOf = (row: number) => [
    row,
    row + 0.5,
    `text ${row} é ✓`,
    Buffer.from([row % 256, 0, 255]),
    null,
    ...Array.from({ length: 15 }, (_, index) => (index % 2 ? `v${row}.${index}` : row * 100 + index)),
  ];
  const insert = db.prepare(`INSERT INTO wide VALUES (${columns.map(() => '?').join(', ')})`);
  const count = 1_000;
  db.transaction(() => {
    for (let row = 0; row < count; row++) insert.run(...valuesOf(row));
  })();
  const select = `SELECT * FROM wide WHERE c0 < ? ORDER BY c0`;
  const expected = (rows: number) => Array.from({ length: rows }, (_, row) => valuesOf(row));
  const asObject = (values: unknown[]) => Object.fromEntries(columns.map((column, index) => [column, values[index]]));

  test('all() raw: every row, each value as stored, none for an empty result', () => {
    const statement = db.prepare(select).raw(true);
    expect(statement.all(count)).toEqual(expected(count));
    expect(statement.all(1)).toEqual(expected(1));
    expect(statement.all(0)).toEqual([]);
    const rows = statement.all(3) as unknown[][];
    expect(rows.every((row) => Array.isArray(row) && row.length === columns.length)).toBe(true);
  });

  test('get() and iterate() raw, all() as objects, plucked and expanded', () => {
    expect(db.prepare(select).raw(true).get(count)).toEqual(valuesOf(0));
    expect([...db.prepare(select).raw(true).iterate(4)]).toEqual(expected(4));
    expect(db.prepare(select).all(5)).toEqual(expected(5).map(asObject));
    expect(db.prepare('SELECT c2 FROM wide WHERE c0 < ? ORDER BY c0').pluck().all(3)).toEqual(expected(3).map((row) => row[2]));
    expect(db.prepare('SELECT c0, c19 FROM wide WHERE c0 < ? ORDER BY c0').expand().all(2)).toEqual(
      expected(2).map((row) => ({ wide: { c0: row[0], c19: row[19] } })),
    );
  });

  test('safe integers come as BigInt; an error while stepping still throws', () => {
    db.exec('CREATE TABLE big (n INTEGER)');
    db.prepare('INSERT INTO big VALUES (?)').run(2n ** 62n);
    expect(db.prepare('SELECT n, n + 1 FROM big').raw(true).safeIntegers(true).all()).toEqual([[2n ** 62n, 2n ** 62n + 1n]]);
    // Integer overflow in SQL: SQLite fails the step after the rows before it were read.
    db.exec('INSERT INTO big VALUES (1), (9223372036854775807)');
    expect(() => db.prepare('SELECT abs(-n - 1) FROM big ORDER BY n').raw(true).all()).toThrow(/integer overflow/);
  });
});
