// Three-way merge of content, page by page: `ours` and `theirs` both descend from `base`. Pages (and files,
// reusable contents, variables) are matched by id. What one side changed and the other left as in the base takes
// the changed side; what both sides changed the same way is kept; what both sides changed differently (a page's
// content, title or any other field, its parent, or its place among its siblings; a deletion against a change) is
// a conflict, and the merge produces nothing.
import type { RevisionContent, StoredFile, StoredPage, StoredReusableContent } from './model.ts';

export interface MergeConflict {
  kind: 'page' | 'file' | 'reusable content' | 'variable';
  id: string;
  /** Title of a page or reusable content, name of a file or variable. */
  title: string;
  reason: string;
}

export type MergeResult = { content: RevisionContent; conflicts?: undefined } | { conflicts: MergeConflict[] };

/** JSON with object keys sorted, so that equal values compare equal whatever order their keys were written in. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );
}

/** The three-way choice for one value (undefined: absent on that side): the merged value, or a conflict. */
function choose<T>(
  base: T | undefined,
  ours: T | undefined,
  theirs: T | undefined,
): { value: T | undefined } | 'conflict' {
  const [b, o, t] = [base, ours, theirs].map((value) => (value === undefined ? undefined : canonical(value)));
  if (o === t || t === b) return { value: ours };
  if (o === b) return { value: theirs };
  return 'conflict';
}

const reasonOf = (ours: unknown, theirs: unknown) =>
  ours === undefined || theirs === undefined
    ? 'deleted on one side and changed on the other'
    : 'changed differently on both sides';

/** Records matched by id: merged in the order of `ours`, then the records only `theirs` has. */
function mergeRecords<T extends { id: string }>(
  kind: MergeConflict['kind'],
  titleOf: (record: T) => string,
  base: T[],
  ours: T[],
  theirs: T[],
  conflicts: MergeConflict[],
): T[] {
  const index = (records: T[]) => new Map(records.map((record) => [record.id, record]));
  const [b, o, t] = [index(base), index(ours), index(theirs)];
  const merged: T[] = [];
  for (const id of new Set([...o.keys(), ...t.keys(), ...b.keys()])) {
    const choice = choose(b.get(id), o.get(id), t.get(id));
    if (choice === 'conflict') {
      const record = (t.get(id) ?? o.get(id))!;
      conflicts.push({ kind, id, title: titleOf(record), reason: reasonOf(o.get(id), t.get(id)) });
    } else if (choice.value !== undefined) merged.push(choice.value);
  }
  return merged;
}

function mergeVariables(
  base: Record<string, string>,
  ours: Record<string, string>,
  theirs: Record<string, string>,
  conflicts: MergeConflict[],
): Record<string, string> {
  const merged: Record<string, string> = {};
  for (const name of new Set([...Object.keys(ours), ...Object.keys(theirs), ...Object.keys(base)])) {
    const choice = choose(base[name], ours[name], theirs[name]);
    if (choice === 'conflict') {
      conflicts.push({ kind: 'variable', id: name, title: name, reason: reasonOf(ours[name], theirs[name]) });
    } else if (choice.value !== undefined) merged[name] = choice.value;
  }
  return merged;
}

type PageFields = Omit<StoredPage, 'pages'>;

/** A page tree flattened: each page's own fields and parent, and each parent's children in order. */
interface FlatTree {
  pages: Map<string, { fields: PageFields; parent: string | null }>;
  children: Map<string | null, string[]>;
}

function flatten(pages: StoredPage[]): FlatTree {
  const tree: FlatTree = { pages: new Map(), children: new Map() };
  const visit = (list: StoredPage[], parent: string | null) => {
    tree.children.set(
      parent,
      list.map((page) => page.id),
    );
    for (const { pages: nested, ...fields } of list) {
      tree.pages.set(fields.id, { fields, parent });
      visit(nested, fields.id);
    }
  };
  visit(pages, null);
  return tree;
}

const childrenOf = (tree: FlatTree, parent: string | null) => tree.children.get(parent) ?? [];

function mergePages(
  base: StoredPage[],
  ours: StoredPage[],
  theirs: StoredPage[],
  conflicts: MergeConflict[],
): StoredPage[] {
  const [b, o, t] = [flatten(base), flatten(ours), flatten(theirs)];
  const titleOf = (id: string) => (t.pages.get(id) ?? o.pages.get(id) ?? b.pages.get(id))!.fields.title;
  const conflict = (id: string, reason: string) => conflicts.push({ kind: 'page', id, title: titleOf(id), reason });

  // Each page's fields and parent, three-way.
  const merged = new Map<string, { fields: PageFields; parent: string | null }>();
  for (const id of new Set([...o.pages.keys(), ...t.pages.keys(), ...b.pages.keys()])) {
    const choice = choose(b.pages.get(id), o.pages.get(id), t.pages.get(id));
    if (choice === 'conflict') conflict(id, reasonOf(o.pages.get(id), t.pages.get(id)));
    else if (choice.value) merged.set(id, choice.value);
  }
  for (const [id, { parent }] of merged) {
    if (parent !== null && !merged.has(parent) && !conflicts.some((item) => item.id === parent)) {
      conflict(id, `its parent page "${titleOf(parent)}" (${parent}) was deleted on the other side`);
    }
  }

  // Each parent's children, in order: the order of the pages all three sides have there, three-way; then the
  // pages that arrived there (added or moved in), after the sibling they follow on the side that put them there.
  const ordered = (parent: string | null): string[] => {
    const arrived = [...merged].filter(([, page]) => page.parent === parent).map(([id]) => id);
    const stays = (id: string) => [b, o, t].every((tree) => tree.pages.get(id)?.parent === parent);
    const stable = (tree: FlatTree) => childrenOf(tree, parent).filter((id) => merged.has(id) && stays(id));
    const [sb, so, st] = [stable(b), stable(o), stable(t)];
    const choice = choose(sb, so, st);
    let order: string[];
    if (choice === 'conflict') {
      so.forEach((id, at) => st[at] !== id && conflict(id, 'moved differently among its siblings on both sides'));
      order = so;
    } else order = choice.value!;
    for (const side of [o, t]) {
      const list = childrenOf(side, parent);
      list.forEach((id, at) => {
        if (order.includes(id) || !arrived.includes(id)) return;
        const previous = list
          .slice(0, at)
          .reverse()
          .find((sibling) => order.includes(sibling));
        order.splice(previous === undefined ? 0 : order.indexOf(previous) + 1, 0, id);
      });
    }
    return order;
  };

  const placed = new Set<string>();
  const build = (parent: string | null): StoredPage[] =>
    ordered(parent).map((id) => {
      placed.add(id);
      return { ...merged.get(id)!.fields, pages: build(id) };
    });
  const tree = build(null);
  // Pages moved under each other on the two sides form a cycle that no root reaches: name the pages on it (the
  // pages under them, and under a deleted parent, are not reached either, but are not the cause).
  const named = new Set(conflicts.map((item) => item.id));
  for (const id of merged.keys()) {
    if (placed.has(id)) continue;
    const seen = new Set<string>();
    let at: string | null = id;
    while (at !== null && merged.has(at) && !named.has(at) && !seen.has(at)) {
      seen.add(at);
      at = merged.get(at)!.parent;
    }
    if (at === id) conflict(id, 'moved under each other on both sides');
  }
  return tree;
}

export function mergeContent(base: RevisionContent, ours: RevisionContent, theirs: RevisionContent): MergeResult {
  const conflicts: MergeConflict[] = [];
  const content: RevisionContent = {
    pages: mergePages(base.pages, ours.pages, theirs.pages, conflicts),
    files: mergeRecords<StoredFile>('file', (file) => file.name, base.files, ours.files, theirs.files, conflicts),
    reusableContents: mergeRecords<StoredReusableContent>(
      'reusable content',
      (item) => item.title,
      base.reusableContents,
      ours.reusableContents,
      theirs.reusableContents,
      conflicts,
    ),
    variables: mergeVariables(base.variables, ours.variables, theirs.variables, conflicts),
  };
  return conflicts.length > 0 ? { conflicts } : { content };
}

/** `page "Setup" (id a1b2): changed differently on both sides; file "logo.png" (id f9): ...` */
export function describeConflicts(conflicts: MergeConflict[]): string {
  return conflicts.map((item) => `${item.kind} "${item.title}" (${item.id}): ${item.reason}`).join('; ');
}
