// Generated PDFs of change requests: stored with an unguessable id, served at their own address (no token needed:
// the address is the secret, as for a download link) for one hour, then removed.
import { newRandomId } from './ids.ts';
import type { Db } from '../store/db.ts';

/** How long the address of a generated PDF answers. */
export const PDF_RETENTION_MS = 60 * 60 * 1000;

/** Path of a stored PDF, outside `/v1`. */
export const pdfPath = (id: string) => `/pdf/change-requests/${id}.pdf`;

/** Stores a PDF and removes the expired ones; returns the new PDF's id. Runs in a write transaction. */
export function storePdf(
  db: Db,
  input: { changeRequestId: string; fileName: string; content: Buffer; now: Date },
): string {
  const id = newRandomId();
  const created = input.now.toISOString();
  db.prepare('DELETE FROM change_request_pdfs WHERE expires_at <= ?').run(created);
  db.prepare(
    `INSERT INTO change_request_pdfs (id, change_request_id, file_name, content, created_at, expires_at)
     VALUES (?, ?, ?, ?, ?, ?)`,
  ).run(
    id,
    input.changeRequestId,
    input.fileName,
    input.content,
    created,
    new Date(input.now.getTime() + PDF_RETENTION_MS).toISOString(),
  );
  return id;
}

/** The PDF with this id, unless it has expired. */
export function findPdf(db: Db, id: string, now: Date): { fileName: string; content: Buffer } | undefined {
  const row = db
    .prepare('SELECT file_name, content FROM change_request_pdfs WHERE id = ? AND expires_at > ?')
    .get(id, now.toISOString()) as { file_name: string; content: Buffer } | undefined;
  return row && { fileName: row.file_name, content: row.content };
}
