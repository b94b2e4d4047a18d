// File contents: the bytes of files, stored once per distinct content (file_blobs, by SHA-256), and the content of
// each file of a revision by file id (file_contents).
import type { Db } from './db.ts';

/** Stores a file's bytes (once per content) and names them as the content of file `fileId`. */
export async function insert(db: Db, file: { fileId: string; sha256: string; bytes: Buffer; contentType: string; createdAt: string }): Promise<void> {
  await db.send(
    db.q.insertInto('file_blobs').values({ sha256: file.sha256, size: file.bytes.length, bytes: file.bytes, created_at: file.createdAt })
      .onConflict((oc) => oc.column('sha256').doNothing()),
  );
  await db.send(db.q.insertInto('file_contents').values({ file_id: file.fileId, sha256: file.sha256, content_type: file.contentType }));
}

/** The SHA-256 of the content of each of these files that has one. */
export async function digests(db: Db, fileIds: readonly string[]): Promise<Map<string, string>> {
  if (fileIds.length === 0) return new Map();
  const rows = await db.all(db.q.selectFrom('file_contents').select(['file_id', 'sha256']).where(db.specific.among('file_id', fileIds)));
  return new Map(rows.map((row) => [row.fileId, row.sha256]));
}

/** The stored bytes of a file and their content type, when it has any. */
export function content(db: Db, fileId: string): Promise<{ bytes: Buffer; contentType: string } | undefined> {
  return db.first(
    db.q.selectFrom('file_contents').innerJoin('file_blobs', 'file_blobs.sha256', 'file_contents.sha256')
      .select(['file_blobs.bytes as bytes', 'file_contents.content_type as contentType']).where('file_contents.file_id', '=', fileId),
  );
}
