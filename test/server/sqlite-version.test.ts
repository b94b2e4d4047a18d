// The SQLite that better-sqlite3 bundles, pinned: SQLite 3.54.1 (better-sqlite3 13.1 and 13.2) prepares a statement
// again on every run when one of its bound parameters is in a join, which doubled the server's CPU for GET a space
// (docs/performance.md, "What the speed rests on"). An upgrade of better-sqlite3 that changes SQLite fails here, so
// that it is benched (`BENCH_PARTS=store`) before this line moves.
import Database from 'better-sqlite3';
import { expect, test } from 'vitest';

test('better-sqlite3 bundles SQLite 3.53', () => {
  const db = new Database(':memory:');
  try {
    const { version } = db.prepare('SELECT sqlite_version() AS version').get() as { version: string };
    expect(version, 'a new SQLite: bench it (docs/performance.md) before moving this pin').toMatch(/^3\.53\./);
  } finally {
    db.close();
  }
});
