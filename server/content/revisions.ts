// Storage of revisions: immutable snapshots, readable by id forever (until their space is gone).
import type { Db } from '../store/db.ts';
import { fromJson, toJson } from '../store/db.ts';
import { newId } from '../domain/ids.ts';
import { RecentlyUsed } from '../domain/recently-used.ts';
import { emptyContent, frozen, type RevisionContent, type RevisionRecord, type RevisionType } from './model.ts';
import { indexSpaceContent } from './search.ts';

type RevisionRow = {
  id: string;
  space_id: string;
  change_request_id: string | null;
  parents: string;
  type: RevisionType;
  created_at: string;
  content: string;
};

export function createRevision(
  db: Db,
  input: {
    /** Chosen beforehand when a row must name the revision before it exists (a new space's `revision_id`). */
    id?: string;
    spaceId: string;
    changeRequestId?: string;
    parents: string[];
    type: RevisionType;
    content: RevisionContent;
    createdAt: string;
  },
): RevisionRecord {
  const { id = newId(), ...rest } = input;
  const record: RevisionRecord = { id, ...rest };
  db.prepare(
    `INSERT INTO revisions (id, space_id, change_request_id, parents, type, created_at, content)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    record.id,
    record.spaceId,
    record.changeRequestId ?? null,
    toJson(record.parents),
    record.type,
    record.createdAt,
    toJson(record.content),
  );
  return record;
}

/**
 * Parsed contents of revisions, by connection. A revision never changes once written, yet reading one parsed its
 * whole JSON (every page's markdown) on every request that looked at a space's content or at the page of a comment:
 * 5 to 8% of the CPU of a GET of a 30-page space's content or a POST of a comment, and more as the space grows. The
 * most recently read contents are kept, up to a bound in characters of their JSON text (about as many bytes of heap
 * once parsed): the server's is CONTENT_CACHE_MB (`keepRevisionContents`), REVISION_CACHE_CHARS elsewhere. One content
 * is kept when it is at most half the bound, so that reading it does not push out all the others; a larger one is
 * parsed on every read (with a bound of 8 MiB and a quarter of it, a space of 1 000 pages of 2 KB was: 8 ms for every
 * request on its content, 35 to 80 ms at 5 000 pages). The row is still read (but not its content) on every call, so
 * a revision gone with its space is gone here too. What is handed out is frozen, all the way down: code that changed
 * a snapshot in place would throw (a TypeError) instead of changing it for every later reader; content is changed by
 * building a new RevisionContent (see content/model.ts).
 */
const parsedContents = new WeakMap<Db, RecentlyUsed<string, RevisionContent>>();
export const REVISION_CACHE_CHARS = 32 * 1024 * 1024;

/** Bounds the parsed contents kept for `db` to `chars` characters of JSON (what was kept is dropped). */
export function keepRevisionContents(db: Db, chars: number): void {
  parsedContents.set(db, new RecentlyUsed(chars, chars / 2));
}

type RevisionMetaRow = Omit<RevisionRow, 'content'>;

/**
 * The revision `id` of the space `spaceId`: a revision is readable by its id as long as its space exists, whichever
 * space asks for a written one (a change request's base, a duplicate's source); an unwritten first revision (below)
 * only through its own space.
 */
export function getRevision(db: Db, id: string, spaceId: string): RevisionRecord | undefined {
  const row = db
    .prepare('SELECT id, space_id, change_request_id, parents, type, created_at FROM revisions WHERE id = ?')
    .get(id) as RevisionMetaRow | undefined;
  if (!row) return unwrittenRevision(db, id, spaceId);
  return {
    id: row.id,
    spaceId: row.space_id,
    ...(row.change_request_id ? { changeRequestId: row.change_request_id } : {}),
    parents: fromJson(row.parents, []),
    type: row.type,
    createdAt: row.created_at,
    content: revisionContent(db, id),
  };
}

/**
 * Unwritten first revisions. A space created empty (createSpace, a site's new space) has a first revision like any
 * other, with an id of its own (the space's `revision`), but no row: `spaces.unwritten_revision_id` names it, and it
 * reads as an empty revision of edits made with the space, until the space goes. Writing its row was most of what a
 * create of a space cost: a revision's id and its space are random keys, so the row's two index entries each wrote
 * a leaf of its own to SQLite's log, and again at the checkpoint (POST a space, alternating builds: 112.5 -> 77.5 us
 * of CPU). The row is written when something must refer to it by key (the link index, `writeRevisionRow`); the
 * content that replaces it names it as a parent, as before (a JSON list, not a key).
 */
const unwritten = new WeakSet<RevisionRecord>();
const EMPTY_CONTENT = frozen(emptyContent());

function unwrittenRevision(db: Db, id: string, spaceId: string): RevisionRecord | undefined {
  const space = db
    .prepare('SELECT created_at FROM spaces WHERE id = ? AND unwritten_revision_id = ?')
    .get(spaceId, id) as { created_at: string } | undefined;
  if (!space) return undefined;
  const revision: RevisionRecord = { id, spaceId, parents: [], type: 'edits', createdAt: space.created_at, content: EMPTY_CONTENT };
  unwritten.add(revision);
  return revision;
}

/**
 * Writes the row of `revision` when it is an unwritten first revision (see above), so that rows may refer to it: once,
 * by whichever write first takes its name off its space.
 */
export function writeRevisionRow(db: Db, revision: RevisionRecord): void {
  if (!unwritten.delete(revision)) return;
  const named = db
    .prepare('UPDATE spaces SET unwritten_revision_id = NULL WHERE id = ? AND unwritten_revision_id = ?')
    .run(revision.spaceId, revision.id);
  if (named.changes === 1) createRevision(db, revision);
}

/** The content of an existing revision, parsed once and frozen (see `parsedContents`). */
function revisionContent(db: Db, id: string): RevisionContent {
  if (!parsedContents.has(db)) keepRevisionContents(db, REVISION_CACHE_CHARS);
  const cache = parsedContents.get(db)!;
  const kept = cache.get(id);
  if (kept) return kept;
  const { content: text } = db.prepare('SELECT content FROM revisions WHERE id = ?').get(id) as Pick<RevisionRow, 'content'>;
  const content = frozen(fromJson<RevisionContent>(text, { pages: [], files: [], reusableContents: [], variables: {} }));
  cache.set(id, content, text?.length ?? 0);
  return content;
}

/** Makes `revision` the current content of its space: moves `spaces.revision_id`, touches `updatedAt`, reindexes. */
export function setCurrentRevision(db: Db, revision: RevisionRecord, updatedAt: string): void {
  db.prepare('UPDATE spaces SET revision_id = ?, updated_at = ? WHERE id = ?').run(revision.id, updatedAt, revision.spaceId);
  indexSpaceContent(db, revision.spaceId, revision.id, revision.content, (id) => getRevision(db, id, revision.spaceId)?.content);
}

/** Makes `content` a space's main content: a new revision of edits on top of `parents`, made current at `now`. */
export function commitSpaceContent(db: Db, spaceId: string, parents: string[], content: RevisionContent, now: string): RevisionRecord {
  const revision = createRevision(db, { spaceId, parents, type: 'edits', content, createdAt: now });
  setCurrentRevision(db, revision, now);
  return revision;
}
