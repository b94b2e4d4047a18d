// Storage of revisions: immutable snapshots, readable by id forever (until their space is gone).
import type { Db, Store } from '../store/db.ts';
import { fromJson, toJson } from '../store/db.ts';
import * as revisions from '../store/revisions.ts';
import { newId } from '../common/ids.ts';
import { RecentlyUsed } from '../common/recently-used.ts';
import { frozen } from '../common/deep-freeze.ts';
import { emptyContent, type RevisionContent, type RevisionRecord, type RevisionType } from './model.ts';
import { indexSpaceContent } from './search.ts';

export async function createRevision(
  db: Db,
  input: {
    /** Chosen beforehand when a row must name the revision before it exists (a new space's `revisionId`). */
    id?: string;
    spaceId: string;
    changeRequestId?: string;
    parents: string[];
    type: RevisionType;
    content: RevisionContent;
    createdAt: string;
  },
): Promise<RevisionRecord> {
  const { id = newId(), ...rest } = input;
  const record: RevisionRecord = { id, ...rest };
  await revisions.insert(db, {
    id: record.id,
    spaceId: record.spaceId,
    changeRequestId: record.changeRequestId ?? null,
    parents: toJson(record.parents),
    type: record.type,
    createdAt: record.createdAt,
    content: toJson(record.content),
  });
  return record;
}

/**
 * Parsed revisions, by store. A revision never changes once written, yet reading one parsed its whole JSON (every
 * page's markdown) on every request that looked at a space's content or at the page of a comment: a share of the CPU
 * of a GET of a space's content or a POST of a comment that grew with the space. The most recently read revisions are
 * kept, up to a bound in characters of their content's JSON text (about as many bytes of heap once parsed): the
 * server's is CONTENT_CACHE_MB (`keepRevisionContents`), REVISION_CACHE_CHARS elsewhere. One revision is kept when
 * its content is at most half the bound, so that reading it does not push out all the others; a larger one is parsed
 * on every read, every request on its content paying for the whole parse (which is why the bound is set for the
 * largest spaces, not the common ones). `getRevision` still reads the row (but not its content) on every call, so a
 * revision gone with its space is gone there too; `currentRevision`, whose caller has just read the space, reads
 * nothing for a kept revision (a statement, and a round trip on PostgreSQL, per request on a space's content). What is
 * handed out is frozen, all the way down: code that changed a snapshot in place would throw (a TypeError) instead of
 * changing it for every later reader; content is changed by building a new RevisionContent (see content/model.ts).
 */
const keptRevisions = new WeakMap<Store, RecentlyUsed<string, RevisionRecord>>();
export const REVISION_CACHE_CHARS = 32 * 1024 * 1024;

/** Bounds the parsed revisions kept for `store` to `chars` characters of their contents' JSON (what was kept is dropped). */
export function keepRevisionContents(store: Store, chars: number): void {
  keptRevisions.set(store, new RecentlyUsed(chars, chars / 2));
}

function keptOf(store: Store): RecentlyUsed<string, RevisionRecord> {
  if (!keptRevisions.has(store)) keepRevisionContents(store, REVISION_CACHE_CHARS);
  return keptRevisions.get(store)!;
}

/**
 * The revision `id` of the space `spaceId`: a revision is readable by its id as long as its space exists, whichever
 * space asks for a written one (a change request's base, a duplicate's source); an unwritten first revision (below)
 * only through its own space.
 */
export async function getRevision(db: Db, id: string, spaceId: string): Promise<RevisionRecord | undefined> {
  // Kept parsed: its row is read to know it is still there; otherwise its row and its content in one statement.
  const kept = keptOf(db.store).get(id);
  const row = kept === undefined ? await revisions.withContent(db, id) : await revisions.meta(db, id);
  if (!row) return unwrittenRevision(db, id, spaceId);
  if (kept) return kept;
  const text = (row as { content?: string }).content;
  const revision: RevisionRecord = frozen({
    id: row.id,
    spaceId: row.spaceId,
    ...(row.changeRequestId ? { changeRequestId: row.changeRequestId } : {}),
    parents: fromJson<string[]>(row.parents, []),
    type: row.type as RevisionType,
    createdAt: row.createdAt,
    content: fromJson<RevisionContent>(text, { pages: [], files: [], reusableContents: [], variables: {} }),
  });
  keptOf(db.store).set(id, revision, text?.length ?? 0);
  return revision;
}

/** The current content of a space (its main content, not a change request's): its revision must exist. */
export const currentRevision = (db: Db, space: { id: string; revisionId: string }): Promise<RevisionRecord> =>
  revisionNamed(db, space.revisionId, space.id, `space ${space.id}`);

/**
 * The revision `revisionId` of space `spaceId` that a row the caller read names (a space's current one, a change
 * request's): it exists while that row does (revisions go with their space and change request), so one kept parsed is
 * not read again. `holder` names that row in the error of a revision that does not exist.
 */
export async function revisionNamed(db: Db, revisionId: string, spaceId: string, holder: string): Promise<RevisionRecord> {
  const revision = keptOf(db.store).get(revisionId) ?? (await getRevision(db, revisionId, spaceId));
  if (!revision) throw new Error(`revision ${revisionId} of ${holder} does not exist`);
  return revision;
}

/**
 * Unwritten first revisions. A space created empty (createSpace, a site's new space) has a first revision like any
 * other, with an id of its own (the space's `revision`), but no row: `spaces.unwritten_revision_id` names it, and it
 * reads as an empty revision of edits made with the space, until the space goes. Writing its row was most of what a
 * create of a space cost: a revision's id and its space are random keys, so the row's two index entries each wrote
 * a leaf of its own to SQLite's log, and again at the checkpoint (docs/performance.md, "Work kept by triggers and
 * written once"). The row is written when something must refer to it by key (the link index, `writeRevisionRow`); the
 * content that replaces it names it as a parent, as before (a JSON list, not a key).
 */
const unwritten = new WeakSet<RevisionRecord>();
const EMPTY_CONTENT = frozen(emptyContent());

async function unwrittenRevision(db: Db, id: string, spaceId: string): Promise<RevisionRecord | undefined> {
  const createdAt = await revisions.unwrittenFirst(db, spaceId, id);
  if (createdAt === undefined) return undefined;
  const revision: RevisionRecord = { id, spaceId, parents: [], type: 'edits', createdAt, content: EMPTY_CONTENT };
  unwritten.add(revision);
  return revision;
}

/**
 * Writes the row of `revision` when it is an unwritten first revision (see above), so that rows may refer to it: once,
 * by whichever write first takes its name off its space.
 */
export async function writeRevisionRow(db: Db, revision: RevisionRecord): Promise<void> {
  if (!unwritten.has(revision)) return;
  // The record is forgotten as unwritten once its row is committed: a write that is undone, or run again after a
  // conflict (PostgreSQL), writes the row again. Within one transaction the database says it is written.
  if (await revisions.clearUnwritten(db, revision.spaceId, revision.id)) await createRevision(db, revision);
  db.afterCommit(() => unwritten.delete(revision));
}

/** Makes `revision` the current content of its space: moves `spaces.revision_id`, touches `updatedAt`, reindexes. */
export async function setCurrentRevision(db: Db, revision: RevisionRecord, updatedAt: string): Promise<void> {
  await revisions.makeCurrent(db, revision.spaceId, revision.id, updatedAt);
  await indexSpaceContent(db, revision.spaceId, revision.id, revision.content, async (id) => (await getRevision(db, id, revision.spaceId))?.content);
}

/** Makes `content` a space's main content: a new revision of edits on top of `parents`, made current at `now`. */
export async function commitSpaceContent(db: Db, spaceId: string, parents: string[], content: RevisionContent, now: string): Promise<RevisionRecord> {
  const revision = await createRevision(db, { spaceId, parents, type: 'edits', content, createdAt: now });
  await setCurrentRevision(db, revision, now);
  return revision;
}
