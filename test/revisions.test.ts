// Revisions are immutable snapshots: a revision's content is parsed once and shared by later reads, frozen so that
// no reader can change it for the others, and never outlives its row.
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { createRevision, getRevision, keepRevisionContents } from '../server/content/revisions.ts';
import type { RevisionContent } from '../server/content/model.ts';
import { Store } from '../server/store/db.ts';
import { readConfig } from '../server/config.ts';

let store: Store;
beforeEach(() => {
  store = new Store(':memory:');
  // The columns revisions.ts reads and writes (the real table adds the space's foreign key).
  store.db.exec(`CREATE TABLE revisions (id TEXT PRIMARY KEY, space_id TEXT NOT NULL, change_request_id TEXT,
    parents TEXT NOT NULL DEFAULT '[]', type TEXT NOT NULL, created_at TEXT NOT NULL, content TEXT NOT NULL)`);
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
    const first = getRevision(store.db, id)!;
    expect(first).toEqual({ id, spaceId: 's', parents: [], type: 'edits', createdAt: '2026-01-01T00:00:00.000Z', content: written });
    const second = getRevision(store.db, id)!;
    expect(second.content).toBe(first.content);
    const child = second.content.pages[0]!.pages[0]!;
    for (const value of [second.content, second.content.pages, second.content.pages[0], child, second.content.files[0], second.content.variables]) {
      expect(Object.isFrozen(value)).toBe(true);
    }
    expect(() => {
      child.title = 'Changed in place';
    }).toThrow(TypeError);
    expect(() => second.content.pages.push(child)).toThrow(TypeError);
    expect(getRevision(store.db, id)!.content).toEqual(written);
  });

  test('a revision whose row is gone is gone, though it was read before', () => {
    const id = store1(contentOf('gone'));
    expect(getRevision(store.db, id)).toBeDefined();
    store.db.prepare('DELETE FROM revisions WHERE id = ?').run(id);
    expect(getRevision(store.db, id)).toBeUndefined();
    expect(getRevision(store.db, 'never-written')).toBeUndefined();
  });

  test('past the bound of what is kept, the least recently read contents are parsed again, and stay right', () => {
    const BOUND = 1024 * 1024;
    keepRevisionContents(store.db, BOUND);
    // Five revisions of a fifth of the bound each: reading them all keeps the last four.
    const big = (n: number) => contentOf(`big-${n}`, `${n}`.repeat(Math.floor(BOUND / 5)));
    const ids = [0, 1, 2, 3, 4].map((n) => store1(big(n)));
    const firstReads = ids.map((id) => getRevision(store.db, id)!.content);
    for (const n of [4, 3, 2, 1]) expect(getRevision(store.db, ids[n]!)!.content).toBe(firstReads[n]);
    const reread = getRevision(store.db, ids[0]!)!.content;
    expect(reread).not.toBe(firstReads[0]);
    expect(reread).toEqual(big(0));
    // Reading the first again pushed out the least recently read one (the fifth), not the others.
    for (const n of [3, 2, 1]) expect(getRevision(store.db, ids[n]!)!.content).toBe(firstReads[n]);
    expect(getRevision(store.db, ids[4]!)!.content).not.toBe(firstReads[4]);
    ids.forEach((id, n) => expect(getRevision(store.db, id)!.content.pages[0]!.title).toBe(`big-${n}`));

    // A content of up to half the bound is kept (pushing out others); a larger one never is: each read parses it.
    const large = contentOf('large', 'x'.repeat(Math.floor(BOUND * 0.45)));
    const largeId = store1(large);
    expect(getRevision(store.db, largeId)!.content).toBe(getRevision(store.db, largeId)!.content);
    const huge = contentOf('huge', 'x'.repeat(Math.floor(BOUND * 0.55)));
    const hugeId = store1(huge);
    const read = getRevision(store.db, hugeId)!.content;
    expect(getRevision(store.db, hugeId)!.content).not.toBe(read);
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
    expect(getRevision(store.db, id)!.content).toBe(getRevision(store.db, id)!.content);
    keepRevisionContents(store.db, readConfig({ CONTENT_CACHE_MB: '0' }).contentCacheMb * 1024 * 1024);
    expect(getRevision(store.db, id)!.content).not.toBe(getRevision(store.db, id)!.content);
  });
});
