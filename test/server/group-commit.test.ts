// The SQLite store's group commit (SqliteStore.write, server/store/sqlite/store.ts) and the end of a turn it commits at (server/common/turn-end.ts): the writes
// of one turn of the event loop share one transaction, committed before any of the turn's answers leave; each write
// still succeeds or fails alone; a commit that fails fails every write of its group, and none is reported as done.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { SqliteStore } from '../../server/store/sqlite/store.ts';
import { atTurnEnd } from '../../server/common/turn-end.ts';
import { extendFixture } from '../support/fixture.ts';
import { ok } from '../support/expect.ts';
import { useTestServer } from '../support/server.ts';
import { checkPhase } from '../support/turns.ts';

let store: SqliteStore;
beforeEach(() => {
  store = new SqliteStore(':memory:');
  store.connection.exec('CREATE TABLE t (name TEXT PRIMARY KEY)');
});
afterEach(() => store.close());

const names = () => (store.connection.prepare('SELECT name FROM t ORDER BY name').all() as { name: string }[]).map((row) => row.name);
const insert = (name: string) => store.connection.prepare('INSERT INTO t (name) VALUES (?)').run(name);

/** What each write's promise came to, in the order they were started. */
const outcomes = (writes: Promise<unknown>[]) =>
  Promise.all(writes.map((write) => write.then((value) => ({ value }), (error: Error) => ({ error: error.message }))));

describe('SqliteStore.write: group commit', () => {
  test('the writes of one turn share one transaction, committed at the end of the turn; a write of a later turn commits on its own', async () => {
    const seen: { name: string; inTransaction: boolean; earlierSettled: boolean }[] = [];
    const settled = new Set<string>();
    const write = (name: string) =>
      store
        .write(async () => {
          // Inside each write: is the transaction the one an earlier write of the turn left open?
          seen.push({ name, inTransaction: store.connection.inTransaction, earlierSettled: settled.size > 0 });
          insert(name);
          return name;
        })
        .then((value) => (settled.add(value), value));
    const turn = [write('a'), write('b'), write('c')];
    // The three have run (their work is synchronous), and none is committed: the transaction is still open.
    await Promise.resolve().then(() => undefined);
    for (let index = 0; index < 10 && seen.length < 3; index++) await Promise.resolve();
    expect(seen.map((entry) => entry.name)).toEqual(['a', 'b', 'c']);
    expect(store.connection.inTransaction).toBe(true);
    expect(settled.size).toBe(0);
    expect(await Promise.all(turn)).toEqual(['a', 'b', 'c']);
    expect(store.connection.inTransaction).toBe(false);
    expect(seen.every((entry) => !entry.earlierSettled)).toBe(true);
    // A write in a turn of its own finds the earlier group committed and settled.
    expect(await write('d')).toBe('d');
    expect(seen.at(-1)).toEqual({ name: 'd', inTransaction: true, earlierSettled: true });
    expect(names()).toEqual(['a', 'b', 'c', 'd']);
  });

  test('a write that fails in a group undoes its own changes only: the others of its turn commit', async () => {
    const results = await outcomes([
      store.write(async () => insert('a')).then(() => 'a'),
      store.write(async () => {
        insert('b');
        throw new Error('b failed after writing');
      }),
      store.write(async () => insert('a')), // a constraint error: 'a' is taken, by the first write of the turn
      store.write(async () => insert('c')).then(() => 'c'),
    ]);
    expect(results).toEqual([
      { value: 'a' },
      { error: 'b failed after writing' },
      { error: 'UNIQUE constraint failed: t.name' },
      { value: 'c' },
    ]);
    expect(names()).toEqual(['a', 'c']);
    expect(store.connection.inTransaction).toBe(false);
  });

  test("effects registered with Db.afterCommit run once the group commits, before its writes resolve, and only for the writes that committed", async () => {
    const happened: string[] = [];
    const effect = (name: string) => () => happened.push(`${name} ran, ${store.connection.inTransaction ? 'in the transaction' : 'committed'}`);
    const results = await outcomes([
      store
        .write(async (db) => {
          insert('a');
          db.afterCommit(effect('a'));
        })
        .then(() => happened.push('a resolved')),
      store.write(async (db) => {
        db.afterCommit(effect('b'));
        insert('b');
        throw new Error('b failed after writing');
      }),
      store
        .write(async (db) => {
          db.afterCommit(effect('c'));
          db.afterCommit(effect('c again'));
          insert('c');
        })
        .then(() => happened.push('c resolved')),
    ]);
    expect(results.map((result) => 'error' in result)).toEqual([false, true, false]);
    expect(happened).toEqual(['a ran, committed', 'c ran, committed', 'c again ran, committed', 'a resolved', 'c resolved']);
    // A group whose commit fails runs none of its effects; a reader's effect runs at once.
    store.connection.exec('CREATE TABLE child (parent TEXT REFERENCES t (name) DEFERRABLE INITIALLY DEFERRED)');
    store.connection.pragma('foreign_keys = ON');
    happened.length = 0;
    const failed = await outcomes([
      store.write(async (db) => {
        db.afterCommit(effect('d'));
        insert('d');
      }),
      store.write(async (db) => {
        db.afterCommit(effect('orphan'));
        store.connection.prepare('INSERT INTO child (parent) VALUES (?)').run('nobody');
      }),
    ]);
    expect(failed.every((result) => 'error' in result)).toBe(true);
    store.reader.afterCommit(effect('reader'));
    expect(happened).toEqual(['reader ran, committed']);
  });
});

describe('SqliteStore.write: group commit, when a write or the commit fails, a write spans turns, and on close', () => {
  test('the first write of a turn failing undoes its changes, and the writes after it still commit', async () => {
    const results = await outcomes([
      store.write(async () => {
        insert('a');
        throw new Error('a failed after writing');
      }),
      store.write(async () => insert('b')).then(() => 'b'),
      store.write(async () => insert('c')).then(() => 'c'),
    ]);
    expect(results).toEqual([{ error: 'a failed after writing' }, { value: 'b' }, { value: 'c' }]);
    expect(names()).toEqual(['b', 'c']);
  });

  test('a commit that fails fails every write of its group, and leaves nothing of them', async () => {
    // A deferred foreign key is checked at COMMIT: one write breaking it makes the group's commit fail (the schema
    // has none; a full disk would fail a commit the same way).
    store.connection.exec('CREATE TABLE child (parent TEXT REFERENCES t (name) DEFERRABLE INITIALLY DEFERRED)');
    store.connection.pragma('foreign_keys = ON');
    const results = await outcomes([
      store.write(async () => insert('a')).then(() => 'a'),
      store.write(async () => store.connection.prepare('INSERT INTO child (parent) VALUES (?)').run('nobody')).then(() => 'child'),
      store.write(async () => insert('b')).then(() => 'b'),
    ]);
    expect(results).toEqual([
      { error: 'FOREIGN KEY constraint failed' },
      { error: 'FOREIGN KEY constraint failed' },
      { error: 'FOREIGN KEY constraint failed' },
    ]);
    expect(names()).toEqual([]);
    expect(store.connection.inTransaction).toBe(false);
    // The store goes on: the next turn's writes commit.
    expect(await store.write(async () => insert('d')).then(() => 'd')).toBe('d');
    expect(names()).toEqual(['d']);
  });

  test('a write that awaits across turns holds the commit until it is done; the writes queued behind it join its group', async () => {
    let release!: () => void;
    const slow = store.write(async () => {
      insert('a');
      await new Promise<void>((resolve) => (release = resolve));
      insert('b');
      return 'slow';
    });
    const queued = store.write(async () => insert('c')).then(() => 'queued');
    for (let turn = 0; turn < 3; turn++) await checkPhase();
    // Turns went by: the transaction stays open while the write is under way, and nothing is committed.
    expect(store.connection.inTransaction).toBe(true);
    release();
    expect(await Promise.all([slow, queued])).toEqual(['slow', 'queued']);
    expect(store.connection.inTransaction).toBe(false);
    expect(names()).toEqual(['a', 'b', 'c']);
  });

  test('a write whose transaction cannot be opened rejects, and the writes after it go on', async () => {
    store.connection.exec('BEGIN'); // a transaction the store did not open: its BEGIN IMMEDIATE fails
    await expect(store.write(async () => insert('a'))).rejects.toThrow(/within a transaction/);
    store.connection.exec('ROLLBACK');
    expect(await store.write(async () => insert('b')).then(() => 'b')).toBe('b');
    expect(names()).toEqual(['b']);
  });

  test('close() commits the writes of its turn before it closes the database', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'group-commit-'));
    try {
      const file = path.join(dir, 'data.sqlite');
      const first = new SqliteStore(file);
      first.connection.exec('CREATE TABLE t (name TEXT PRIMARY KEY)');
      const written = first.write(async () => first.connection.prepare('INSERT INTO t (name) VALUES (?)').run('kept'));
      await first.close();
      await written;
      const again = new SqliteStore(file);
      expect(again.connection.prepare('SELECT name FROM t').all()).toEqual([{ name: 'kept' }]);
      await again.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the end of a turn (turn-end.ts)', () => {
  test('commits run before answers, whichever was asked for first in the turn; what the commits start leaves in the same turn', async () => {
    // From a timer: this turn's check phase is still to come, with no stage of it run yet.
    await new Promise((resolve) => setTimeout(resolve, 1));
    const order: string[] = [];
    atTurnEnd('answer', () => order.push('answer 1'));
    atTurnEnd('commit', () => {
      order.push('commit');
      // As a route awaiting its write does: answers after the commit resolves, in a promise continuation.
      void Promise.resolve().then(() => atTurnEnd('answer', () => order.push('answer after commit')));
    });
    atTurnEnd('answer', () => order.push('answer 2'));
    setImmediate(() => order.push('an immediate queued after them'));
    expect(order).toEqual([]);
    // Queued after both stages and the immediate above: it runs once they have, in this same check phase.
    await checkPhase();
    expect(order).toEqual(['commit', 'answer 1', 'answer 2', 'answer after commit', 'an immediate queued after them']);
  });

  test('a commit asked for after the commit stage still runs before the answers; one asked for by an answer runs in the next turn, an answer in the same stage', async () => {
    await new Promise((resolve) => setTimeout(resolve, 1));
    const order: string[] = [];
    atTurnEnd('commit', () => {
      order.push('commit');
      // Between the two stages, as a promise continuation of a commit: a commit, then an answer, asked for.
      void Promise.resolve().then(() => {
        atTurnEnd('answer', () => {
          order.push('answer');
          atTurnEnd('commit', () => order.push('commit asked for by the answer'));
          // As a connection whose write completed at once hands over its next buffered chunk: in the same stage.
          atTurnEnd('answer', () => order.push('answer asked for by the answer'));
        });
        atTurnEnd('commit', () => order.push('late commit'));
      });
    });
    // Not a timer: under load one can fire before the next check phase. The first wait ends in this turn's check
    // phase, after both stages; the second in the next turn's, after the stages the answer asked for.
    await checkPhase();
    expect(order).toEqual(['commit', 'late commit', 'answer', 'answer asked for by the answer']);
    await checkPhase();
    expect(order).toEqual(['commit', 'late commit', 'answer', 'answer asked for by the answer', 'commit asked for by the answer']);
  });
});

describe('group commit through the server', () => {
  const fixture = extendFixture({
    acme: { spaces: [{ id: 'grouped', title: 'Grouped', pages: [{ id: 'grouped-intro', title: 'Intro', markdown: 'Hello.\n' }] }] },
  });
  const server = useTestServer({ fixture });
  const grouped = { params: { path: { spaceId: 'grouped' } } };
  const comment = (markdown: string, page = 'grouped-intro') =>
    server.server.as('admin').POST('/v1/spaces/{spaceId}/comments', { ...grouped, body: { page, body: { markdown } } });
  const stored = async () => {
    const list = ok(await server.server.as('admin').GET('/v1/spaces/{spaceId}/comments', { ...grouped, params: { ...grouped.params, query: { limit: 100 } } }), 200);
    return list.items.map((item) => item.body.markdown).sort();
  };

  test('requests sent together are each answered as alone: the valid ones created, the invalid ones refused with nothing kept', async () => {
    const before = await stored();
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, index) => (index % 4 === 3 ? comment(`refused ${index}`, 'no-such-page') : comment(`together ${index}`))),
    );
    expect(answers.map((answer) => answer.response.status)).toEqual(Array.from({ length: 12 }, (_, index) => (index % 4 === 3 ? 400 : 201)));
    const created = answers.filter((answer) => answer.response.status === 201).map((answer) => answer.data!.body.markdown);
    expect((await stored()).filter((markdown) => !before.includes(markdown))).toEqual(created.sort());
  });

  test('writes whose commit fails are answered with an error, and none of them is kept', async () => {
    const db = (server.server.running.ctx.store as SqliteStore).connection;
    const before = await stored();
    // Every comment now breaks a deferred foreign key, which SQLite checks at COMMIT only.
    db.exec(`CREATE TABLE commit_target (id TEXT PRIMARY KEY);
      CREATE TABLE commit_guard (ref TEXT REFERENCES commit_target (id) DEFERRABLE INITIALLY DEFERRED);
      CREATE TRIGGER commit_fails AFTER INSERT ON comments BEGIN INSERT INTO commit_guard (ref) VALUES ('missing'); END;`);
    try {
      const answers = await Promise.all(Array.from({ length: 5 }, (_, index) => comment(`lost ${index}`)));
      expect(answers.map((answer) => answer.response.status)).toEqual([500, 500, 500, 500, 500]);
    } finally {
      db.exec('DROP TRIGGER commit_fails; DROP TABLE commit_guard; DROP TABLE commit_target;');
    }
    expect(await stored()).toEqual(before);
    ok(await comment('after'), 201);
    expect(await stored()).toEqual([...before, 'after'].sort());
  });
});
