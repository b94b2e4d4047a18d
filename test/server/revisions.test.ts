// Revisions are immutable snapshots: a revision's content is parsed once and shared by later reads, frozen so that
// no reader can change it for the others, and never outlives its row.
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { createRevision, getRevision, keepRevisionContents, writeRevisionRow } from '../../server/content/revisions.ts';
import type { RevisionContent } from '../../server/content/model.ts';
import { SqliteStore } from '../../server/store/sqlite/store.ts';
import { readConfig } from '../../server/common/config.ts';

let store: SqliteStore;
beforeEach(() => {
  store = new SqliteStore(':memory:');
  // A space 's' for the revisions to belong to.
  store.connection.exec(`INSERT INTO organizations (id, title, created_at, type) VALUES ('o', 'O', '2026-01-01T00:00:00.000Z', 'business');
    INSERT INTO spaces (id, organization_id, title, revision_id, share_key, position, created_at, updated_at)
    VALUES ('s', 'o', 'S', 'none', 'k', 1, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z');`);
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

const store1 = async (content: RevisionContent) =>
  (await store.write((db) => createRevision(db, { spaceId: 's', parents: [], type: 'edits', content, createdAt: '2026-01-01T00:00:00.000Z' }))).id;

describe('reading a revision', () => {
  test('gives the content as written; a second read shares the first one, frozen all the way down', async () => {
    const written = contentOf('home');
    const id = await store1(written);
    const first = (await getRevision(store.reader, id, 's'))!;
    expect(first).toEqual({ id, spaceId: 's', parents: [], type: 'edits', createdAt: '2026-01-01T00:00:00.000Z', content: written });
    const second = (await getRevision(store.reader, id, 's'))!;
    expect(second.content).toBe(first.content);
    const child = second.content.pages[0]!.pages[0]!;
    for (const value of [second.content, second.content.pages, second.content.pages[0], child, second.content.files[0], second.content.variables]) {
      expect(Object.isFrozen(value)).toBe(true);
    }
    expect(() => {
      child.title = 'Changed in place';
    }).toThrow(TypeError);
    expect(() => second.content.pages.push(child)).toThrow(TypeError);
    expect((await getRevision(store.reader, id, 's'))!.content).toEqual(written);
  });

  test('a revision whose row is gone is gone, though it was read before', async () => {
    const id = await store1(contentOf('gone'));
    expect((await getRevision(store.reader, id, 's'))).toBeDefined();
    store.connection.prepare('DELETE FROM revisions WHERE id = ?').run(id);
    expect((await getRevision(store.reader, id, 's'))).toBeUndefined();
    expect((await getRevision(store.reader, 'never-written', 's'))).toBeUndefined();
  });

  test('past the bound of what is kept, the least recently read contents are parsed again, and stay right', async () => {
    const BOUND = 1024 * 1024;
    keepRevisionContents(store, BOUND);
    // Five revisions of a fifth of the bound each: reading them all keeps the last four.
    const big = (n: number) => contentOf(`big-${n}`, `${n}`.repeat(Math.floor(BOUND / 5)));
    const ids: string[] = [];
    for (const n of [0, 1, 2, 3, 4]) ids.push(await store1(big(n)));
    const firstReads: RevisionContent[] = [];
    for (const id of ids) firstReads.push((await getRevision(store.reader, id, 's'))!.content);
    for (const n of [4, 3, 2, 1]) expect((await getRevision(store.reader, ids[n]!, 's'))!.content).toBe(firstReads[n]);
    const reread = (await getRevision(store.reader, ids[0]!, 's'))!.content;
    expect(reread).not.toBe(firstReads[0]);
    expect(reread).toEqual(big(0));
    // Reading the first again pushed out the least recently read one (the fifth), not the others.
    for (const n of [3, 2, 1]) expect((await getRevision(store.reader, ids[n]!, 's'))!.content).toBe(firstReads[n]);
    expect((await getRevision(store.reader, ids[4]!, 's'))!.content).not.toBe(firstReads[4]);
    for (const [n, id] of ids.entries()) expect((await getRevision(store.reader, id, 's'))!.content.pages[0]!.title).toBe(`big-${n}`);

    // A content of up to half the bound is kept (pushing out others); a larger one never is: each read parses it.
    const large = contentOf('large', 'x'.repeat(Math.floor(BOUND * 0.45)));
    const largeId = await store1(large);
    expect((await getRevision(store.reader, largeId, 's'))!.content).toBe((await getRevision(store.reader, largeId, 's'))!.content);
    const huge = contentOf('huge', 'x'.repeat(Math.floor(BOUND * 0.55)));
    const hugeId = await store1(huge);
    const read = (await getRevision(store.reader, hugeId, 's'))!.content;
    expect((await getRevision(store.reader, hugeId, 's'))!.content).not.toBe(read);
    expect(read).toEqual(huge);
    expect(Object.isFrozen(read.pages[0])).toBe(true);
  });

  test('the server keeps CONTENT_CACHE_MB of contents: a space of 1 000 pages of 2 KB (2 MB of JSON) by default', async () => {
    const pages = Array.from({ length: 1000 }, (_, i) => ({
      ...contentOf(`page-${i}`, 'Lorem ipsum dolor sit amet. '.repeat(73)).pages[0]!,
      id: `page-${i}`,
      pages: [],
    }));
    const id = await store1({ ...contentOf('space'), pages });
    keepRevisionContents(store, readConfig({}).contentCacheMb * 1024 * 1024);
    expect((await getRevision(store.reader, id, 's'))!.content).toBe((await getRevision(store.reader, id, 's'))!.content);
    keepRevisionContents(store, readConfig({ CONTENT_CACHE_MB: '0' }).contentCacheMb * 1024 * 1024);
    expect((await getRevision(store.reader, id, 's'))!.content).not.toBe((await getRevision(store.reader, id, 's'))!.content);
  });
});

describe('an unwritten first revision', () => {
  const CREATED = '2026-02-03T04:05:06.000Z';
  const EMPTY = { pages: [], files: [], reusableContents: [], variables: {} };
  beforeEach(() => {
    store.connection.prepare("UPDATE spaces SET created_at = ?, unwritten_revision_id = 'first' WHERE id = 's'").run(CREATED);
  });
  const rows = () => store.connection.prepare('SELECT * FROM revisions').all();
  const named = () => store.connection.prepare("SELECT unwritten_revision_id AS id FROM spaces WHERE id = 's'").pluck().get();

  test('reads, through its own space only, as an empty revision of edits made with the space; frozen; no row', async () => {
    const read = (await getRevision(store.reader, 'first', 's'))!;
    expect(read).toEqual({ id: 'first', spaceId: 's', parents: [], type: 'edits', createdAt: CREATED, content: EMPTY });
    expect(Object.isFrozen(read.content) && Object.isFrozen(read.content.pages)).toBe(true);
    expect((await getRevision(store.reader, 'first', 'other'))).toBeUndefined();
    expect((await getRevision(store.reader, 'second', 's'))).toBeUndefined();
    expect(rows()).toEqual([]);
  });

  test('gets its row when something must refer to it: the same revision, read from the row; the space names it no more', async () => {
    const read = (await getRevision(store.reader, 'first', 's'))!;
    await store.write((db) => writeRevisionRow(db, read));
    expect(rows()).toEqual([
      { id: 'first', space_id: 's', change_request_id: null, parents: '[]', type: 'edits', created_at: CREATED, content: JSON.stringify(EMPTY) },
    ]);
    expect(named()).toBeNull();
    expect((await getRevision(store.reader, 'first', 's'))).toEqual(read);
    // Through any space, as every written revision.
    expect((await getRevision(store.reader, 'first', 'other'))).toEqual(read);
    // A record read before the row was written, written again, and a written revision, change nothing.
    await store.write((db) => writeRevisionRow(db, read));
    const again = (await getRevision(store.reader, 'first', 's'))!;
    await store.write((db) => writeRevisionRow(db, again));
    expect(rows()).toHaveLength(1);
  });

  test('two reads of it written one after the other make one row', async () => {
    const a = (await getRevision(store.reader, 'first', 's'))!;
    const b = (await getRevision(store.reader, 'first', 's'))!;
    await store.write((db) => writeRevisionRow(db, a));
    await store.write((db) => writeRevisionRow(db, b));
    expect(rows()).toHaveLength(1);
  });

  test('goes with its space', async () => {
    store.connection.prepare("DELETE FROM spaces WHERE id = 's'").run();
    expect((await getRevision(store.reader, 'first', 's'))).toBeUndefined();
  });
});
