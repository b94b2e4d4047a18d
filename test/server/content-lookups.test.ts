// What a request looks up in a revision, or pages through in memory, costs the same however large the revision: a
// page or a file by id is found in an index made once per (frozen) content, not by walking the tree on each lookup
// (a page of 50 comments looked up 50 pages); a page of an in-memory list presents its own items only and continues
// from where its cursor says, not by hashing every item before it. The work is counted here (reads of the pages'
// ids, presentations, key computations), never timed; `npm run bench` does not cover revisions this large.
import { describe, expect, test } from 'vitest';
import { frozen } from '../../server/common/deep-freeze.ts';
import { findFile, findPage, type RevisionContent, type StoredFile, type StoredPage } from '../../server/content/model.ts';
import { Cursors, type Key } from '../../server/common/paging.ts';

/** Pages whose `id` counts its reads, in `groups` groups of `perGroup` documents, and as many files, likewise. */
function countedContent(groups: number, perGroup: number) {
  const reads = { pages: 0, files: 0 };
  const counted = <T extends object>(value: T, id: string, kind: keyof typeof reads): T =>
    Object.defineProperty(value, 'id', { enumerable: true, get: () => (reads[kind]++, id) });
  const page = (id: string, slug: string, pages: StoredPage[] = []): StoredPage =>
    counted({ title: id, slug, type: pages.length ? 'group' : 'document', createdAt: 'x', updatedAt: 'x', pages } as unknown as StoredPage, id, 'pages');
  const pages = Array.from({ length: groups }, (_, g) =>
    page(`g${g}`, `group-${g}`, Array.from({ length: perGroup }, (_, i) => page(`p${g}-${i}`, `page-${i}`))),
  );
  const files = Array.from({ length: groups * perGroup }, (_, i) =>
    counted({ name: `f${i}.png`, contentType: 'image/png', size: 1 } as unknown as StoredFile, `f${i}`, 'files'),
  );
  const content: RevisionContent = { pages, files, reusableContents: [], variables: {} };
  return { content, reads };
}

describe('a page or a file of a revision, by id', () => {
  test('is found with its path; in a frozen content, every page and file is read once for any number of lookups', () => {
    const { content, reads } = countedContent(20, 49);
    frozen(content);
    reads.pages = reads.files = 0;
    for (let i = 0; i < 49; i++) {
      const entry = findPage(content, `p19-${i}`);
      expect(entry?.page.title).toBe(`p19-${i}`);
      expect(entry?.path).toBe(`group-19/page-${i}`);
      expect(findFile(content, `f${979 - i}`)?.name).toBe(`f${979 - i}.png`);
    }
    expect(findPage(content, 'g3')?.path).toBe('group-3');
    expect(findPage(content, 'nope')).toBeUndefined();
    expect(findFile(content, 'nope')).toBeUndefined();
    // 1 000 pages and 980 files, each id read once to index them: a walk per lookup read about 49 000 of each.
    expect(reads.pages).toBe(1000);
    expect(reads.files).toBe(980);
    // The entries are shared by every lookup, so none may be changed by one.
    expect(findPage(content, 'p0-0')).toBe(findPage(content, 'p0-0'));
    expect(Object.isFrozen(findPage(content, 'p0-0'))).toBe(true);
  });

  test('is the first of two with one id, as a walk finds it', () => {
    const { content } = countedContent(2, 2);
    const twin = { ...content.pages[1]!.pages[0]!, id: 'p0-1', title: 'twin' };
    content.pages[1]!.pages.push(twin);
    content.files.push({ id: 'f0', name: 'twin.png', contentType: 'image/png', size: 1 });
    for (const state of ['being edited', 'frozen']) {
      if (state === 'frozen') frozen(content);
      expect(findPage(content, 'p0-1')?.path, state).toBe('group-0/page-1');
      expect(findFile(content, 'f0')?.name, state).toBe('f0.png');
    }
  });

  test('in a content being edited (not frozen), is found as it is now', () => {
    const { content } = countedContent(2, 2);
    expect(findPage(content, 'added')).toBeUndefined();
    content.pages[0]!.pages.push({ id: 'added', title: 'Added', slug: 'added', type: 'document', createdAt: 'x', updatedAt: 'x', pages: [] });
    content.files.push({ id: 'new-file', name: 'new.png', contentType: 'image/png', size: 1 });
    expect(findPage(content, 'added')?.path).toBe('group-0/added');
    expect(findFile(content, 'new-file')?.name).toBe('new.png');
  });
});

describe('a page of a list in memory', () => {
  const cursors = new Cursors('test secret');
  const items = Array.from({ length: 1000 }, (_, i) => ({ id: `item-${String(i).padStart(4, '0')}` }));

  /** Pages through `all` from the start (or from `page`), counting presentations and key computations per page. */
  function pages(all: readonly { id: string }[], limit: number, first?: string) {
    const seen: string[] = [];
    const work: { presented: number; keys: number }[] = [];
    let page = first;
    do {
      const counts = { presented: 0, keys: 0 };
      const result = cursors.pageOf({
        list: 'things',
        page,
        limit,
        all,
        key: (item): Key => (counts.keys++, [item.id]),
        present: (item) => (counts.presented++, item.id.toUpperCase()),
      });
      seen.push(...result.items);
      work.push(counts);
      expect(result.count).toBe(all.length);
      page = result.next?.page;
    } while (page);
    return { seen, work };
  }

  test('shows every item once, in order, presenting only the items it shows', () => {
    const { seen, work } = pages(items, 50);
    expect(seen).toEqual(items.map((item) => item.id.toUpperCase()));
    expect(work).toHaveLength(20);
    expect(work.every((counts) => counts.presented === 50)).toBe(true);
  });

  test('continues from its position: the same few keys for the last page as for the second', () => {
    const { work } = pages(items, 50);
    // The last item's key for the next cursor, and the previous page's last item checked where the cursor says.
    expect(work[1]!.keys).toBeLessThanOrEqual(3);
    expect(work.at(-1)!.keys).toBe(work[1]!.keys - 1);
  });

  test('of a list that changed, continues after the item its cursor names, found where it now is', () => {
    const first = cursors.pageOf({ list: 'things', limit: 10, all: items, key: (item) => [item.id] });
    const changed = [{ id: 'new-a' }, { id: 'new-b' }, ...items.slice(0, 5), ...items.slice(6)];
    const next = cursors.pageOf({ list: 'things', page: first.next!.page, limit: 10, all: changed, key: (item) => [item.id] });
    expect(next.items.map((item) => item.id)).toEqual(items.slice(10, 20).map((item) => item.id));
  });
});
