// Generated PDFs of change requests: stored with an unguessable id, served at their own address (no token needed:
// the address is the secret, as for a download link) for one hour, then removed.
import { newRandomId } from '../common/ids.ts';
import type { Db } from '../store/db.ts';
import * as changeRequests from '../store/change-requests.ts';

/** How long the address of a generated PDF answers. */
export const PDF_RETENTION_MS = 60 * 60 * 1000;

/** Path of a stored PDF, outside `/v1`. */
export const pdfPath = (id: string) => `/pdf/change-requests/${id}.pdf`;

/** Stores a PDF and removes the expired ones; returns the new PDF's id. Runs in a write transaction. */
export async function storePdf(
  db: Db,
  input: { changeRequestId: string; fileName: string; content: Buffer; now: Date },
): Promise<string> {
  const id = newRandomId();
  await changeRequests.storePdf(db, {
    id,
    changeRequestId: input.changeRequestId,
    fileName: input.fileName,
    content: input.content,
    createdAt: input.now.toISOString(),
    expiresAt: new Date(input.now.getTime() + PDF_RETENTION_MS).toISOString(),
  });
  return id;
}

/** The PDF with this id, unless it has expired. */
export async function findPdf(db: Db, id: string, now: Date): Promise<{ fileName: string; content: Buffer } | undefined> {
  const row = await changeRequests.findPdf(db, id, now.toISOString());
  return row && { fileName: row.fileName, content: row.content };
}
