// Revisions are immutable snapshots: a revision's content is parsed once and shared by later reads, frozen so that
// no reader can change it for the others, and never outlives its row.
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { createRevision, getRevision, keepRevisionContents, writeRevisionRow } from '../server/content/revisions.ts';
import type { RevisionContent } from '../server/content/model.ts';
import { Store } from '../server/store/db.ts';
import { readConfig } from '../server/config.ts';

let store: Store;
beforeEach(() => {
  store = new Store(':memory:');
  // The columns revisions.ts reads and writes (the real table adds the space's foreign key).
  store.db.exec(`CREATE TABLE revisions (id TEXT PRIMARY KEY, space_id TEXT NOT NULL, change_request_id TEXT,
    parents TEXT NOT NULL DEFAULT '[]', type TEXT NOT NULL, created_at TEXT NOT NULL, content TEXT NOT NULL)`);
  // And those of a space's row it reads for an unwritten first revision.
  store.db.exec('CREATE TABLE spaces (id TEXT PRIMARY KEY, created_at TEXT NOT NULL, unwritten_revision_id TEXT)');
});
afterEach(() => store.close());

const contentOf = (title: string, markdown = 'Some text.\n'): RevisionContent => ({
  pages: [
    {
      id: `${title}-id`,
      title,
      slug: title,
      type: 'document',
      markdown,
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
      pages: [{ id: 'child', title: 'Child', slug: 'child', type: 'group', createdAt: 'x', updatedAt: 'x', pages: [] }],
    },
  ],
  files: [{ id: 'f', name: 'logo.png', contentType: 'image/png', size: 3 }],
  reusableContents: [],
  variables: { product: 'Kettle' },
});

const store1 = (content: RevisionContent) =>
  createRevision(store.db, { spaceId: 's', parents: [], type: 'edits', content, createdAt: '2026-01-01T00:00:00.000Z' }).id;

describe('reading a revision', () => {
  test('gives the content as written; a second read shares the first one, frozen all the way down', () => {
    const written = contentOf('home');
    const id = store1(written);
    const first = getRevision(store.db, id, 's')!;
    expect(first).toEqual({ id, spaceId: 's', parents: [], type: 'edits', createdAt: '2026-01-01T00:00:00.000Z', content: written });
    const second = getRevision(store.db, id, 's')!;
    expect(second.content).toBe(first.content);
    const child = second.content.pages[0]!.pages[0]!;
    for (const value of [second.content, second.content.pages, second.content.pages[0], child, second.content.files[0], second.content.variables]) {
      expect(Object.isFrozen(value)).toBe(true);
    }
    expect(() => {
      child.title = 'Changed in place';
    }).toThrow(TypeError);
    expect(() => second.content.pages.push(child)).toThrow(TypeError);
    expect(getRevision(store.db, id, 's')!.content).toEqual(written);
  });

  test('a revision whose row is gone is gone, though it was read before', () => {
    const id = store1(contentOf('gone'));
    expect(getRevision(store.db, id, 's')).toBeDefined();
    store.db.prepare('DELETE FROM revisions WHERE id = ?').run(id);
    expect(getRevision(store.db, id, 's')).toBeUndefined();
    expect(getRevision(store.db, 'never-written', 's')).toBeUndefined();
  });

  test('past the bound of what is kept, the least recently read contents are parsed again, and stay right', () => {
    const BOUND = 1024 * 1024;
    keepRevisionContents(store.db, BOUND);
    // Five revisions of a fifth of the bound each: reading them all keeps the last four.
    const big = (n: number) => contentOf(`big-${n}`, `${n}`.repeat(Math.floor(BOUND / 5)));
    const ids = [0, 1, 2, 3, 4].map((n) => store1(big(n)));
    const firstReads = ids.map((id) => getRevision(store.db, id, 's')!.content);
    for (const n of [4, 3, 2, 1]) expect(getRevision(store.db, ids[n]!, 's')!.content).toBe(firstReads[n]);
    const reread = getRevision(store.db, ids[0]!, 's')!.content;
    expect(reread).not.toBe(firstReads[0]);
    expect(reread).toEqual(big(0));
    // Reading the first again pushed out the least recently read one (the fifth), not the others.
    for (const n of [3, 2, 1]) expect(getRevision(store.db, ids[n]!, 's')!.content).toBe(firstReads[n]);
    expect(getRevision(store.db, ids[4]!, 's')!.content).not.toBe(firstReads[4]);
    ids.forEach((id, n) => expect(getRevision(store.db, id, 's')!.content.pages[0]!.title).toBe(`big-${n}`));

    // A content of up to half the bound is kept (pushing out others); a larger one never is: each read parses it.
    const large = contentOf('large', 'x'.repeat(Math.floor(BOUND * 0.45)));
    const largeId = store1(large);
    expect(getRevision(store.db, largeId, 's')!.content).toBe(getRevision(store.db, largeId, 's')!.content);
    const huge = contentOf('huge', 'x'.repeat(Math.floor(BOUND * 0.55)));
    const hugeId = store1(huge);
    const read = getRevision(store.db, hugeId, 's')!.content;
    expect(getRevision(store.db, hugeId, 's')!.content).not.toBe(read);
    expect(read).toEqual(huge);
    expect(Object.isFrozen(read.pages[0])).toBe(true);
  });

  test('the server keeps CONTENT_CACHE_MB of contents: a space of 1 000 pages of 2 KB (2 MB of JSON) by default', () => {
    const pages = Array.from({ length: 1000 }, (_, i) => ({
      ...contentOf(`page-${i}`, 'Lorem ipsum dolor sit amet. '.repeat(73)).pages[0]!,
      id: `page-${i}`,
      pages: [],
    }));
    const id = store1({ ...contentOf('space'), pages });
    keepRevisionContents(store.db, readConfig({}).contentCacheMb * 1024 * 1024);
    expect(getRevision(store.db, id, 's')!.content).toBe(getRevision(store.db, id, 's')!.content);
    keepRevisionContents(store.db, readConfig({ CONTENT_CACHE_MB: '0' }).contentCacheMb * 1024 * 1024);
    expect(getRevision(store.db, id, 's')!.content).not.toBe(getRevision(store.db, id, 's')!.content);
  });
});

describe('an unwritten first revision', () => {
  const CREATED = '2026-02-03T04:05:06.000Z';
  const EMPTY = { pages: [], files: [], reusableContents: [], variables: {} };
  beforeEach(() => {
    store.db.prepare("INSERT INTO spaces (id, created_at, unwritten_revision_id) VALUES ('s', ?, 'first')").run(CREATED);
  });
  const rows = () => store.db.prepare('SELECT * FROM revisions').all();
  const named = () => store.db.prepare("SELECT unwritten_revision_id AS id FROM spaces WHERE id = 's'").pluck().get();

  test('reads, through its own space only, as an empty revision of edits made with the space; frozen; no row', () => {
    const read = getRevision(store.db, 'first', 's')!;
    expect(read).toEqual({ id: 'first', spaceId: 's', parents: [], type: 'edits', createdAt: CREATED, content: EMPTY });
    expect(Object.isFrozen(read.content) && Object.isFrozen(read.content.pages)).toBe(true);
    expect(getRevision(store.db, 'first', 'other')).toBeUndefined();
    expect(getRevision(store.db, 'second', 's')).toBeUndefined();
    expect(rows()).toEqual([]);
  });

  test('gets its row when something must refer to it: the same revision, read from the row; the space names it no more', () => {
    const read = getRevision(store.db, 'first', 's')!;
    writeRevisionRow(store.db, read);
    expect(rows()).toEqual([
      { id: 'first', space_id: 's', change_request_id: null, parents: '[]', type: 'edits', created_at: CREATED, content: JSON.stringify(EMPTY) },
    ]);
    expect(named()).toBeNull();
    expect(getRevision(store.db, 'first', 's')).toEqual(read);
    // Through any space, as every written revision.
    expect(getRevision(store.db, 'first', 'other')).toEqual(read);
    // A record read before the row was written, written again, and a written revision, change nothing.
    writeRevisionRow(store.db, read);
    writeRevisionRow(store.db, getRevision(store.db, 'first', 's')!);
    expect(rows()).toHaveLength(1);
  });

  test('two reads of it written one after the other make one row', () => {
    const [a, b] = [getRevision(store.db, 'first', 's')!, getRevision(store.db, 'first', 's')!];
    writeRevisionRow(store.db, a);
    writeRevisionRow(store.db, b);
    expect(rows()).toHaveLength(1);
  });

  test('goes with its space', () => {
    store.db.prepare("DELETE FROM spaces WHERE id = 's'").run();
    expect(getRevision(store.db, 'first', 's')).toBeUndefined();
  });
});
