// Storage of revisions: immutable snapshots, readable by id forever (until their space is gone).
import type { Db } from '../store/db.ts';
import { fromJson, toJson } from '../store/db.ts';
import { newId } from '../domain/ids.ts';
import type { RevisionContent, RevisionRecord, RevisionType } from './model.ts';
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
    spaceId: string;
    changeRequestId?: string;
    parents: string[];
    type: RevisionType;
    content: RevisionContent;
    createdAt: string;
  },
): RevisionRecord {
  const record: RevisionRecord = { id: newId(), ...input };
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

export function getRevision(db: Db, id: string): RevisionRecord | undefined {
  const row = db.prepare('SELECT * FROM revisions WHERE id = ?').get(id) as RevisionRow | undefined;
  if (!row) return undefined;
  return {
    id: row.id,
    spaceId: row.space_id,
    ...(row.change_request_id ? { changeRequestId: row.change_request_id } : {}),
    parents: fromJson(row.parents, []),
    type: row.type,
    createdAt: row.created_at,
    content: fromJson(row.content, { pages: [], files: [], reusableContents: [], variables: {} }),
  };
}

/** Makes `revision` the current content of its space: moves `spaces.revision_id`, touches `updatedAt`, reindexes. */
export function setCurrentRevision(db: Db, revision: RevisionRecord, updatedAt: string): void {
  db.prepare('UPDATE spaces SET revision_id = ?, updated_at = ? WHERE id = ?').run(revision.id, updatedAt, revision.spaceId);
  indexSpaceContent(db, revision.spaceId, revision.content);
}
