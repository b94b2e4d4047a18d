// File contents: the bytes of the files of revisions, stored once per distinct content (by SHA-256), and the
// addresses they are downloaded from. A revision lists its files (model.ts's StoredFile); their bytes live here,
// by file id, so that every revision carrying a file (and every copy of a space) serves the same bytes.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { AppContext } from '../context/context.ts';
import { newId } from '../common/ids.ts';
import type { Db } from '../store/db.ts';
import * as files from '../store/files.ts';
import type { StoredFile } from './model.ts';

/**
 * Stores `bytes` as the content of a new file and returns the file, to be added to a revision being built
 * (`content.files.push(file)`). Call it inside the write transaction that creates the revision; `createdAt` is that
 * write's time (`ctx.now()`), so that the manual clock of tests governs it too.
 */
export async function storeFile(
  db: Db,
  bytes: Buffer,
  file: { name: string; contentType: string; git?: StoredFile['git'] },
  createdAt: string,
): Promise<StoredFile> {
  const id = newId();
  await files.insert(db, { fileId: id, sha256: sha256Of(bytes), bytes, contentType: file.contentType, createdAt });
  const dimensions = imageDimensions(bytes);
  return {
    id,
    name: file.name,
    contentType: file.contentType,
    size: bytes.length,
    ...(dimensions ? { dimensions } : {}),
    ...(file.git ? { git: file.git } : {}),
  };
}

const sha256Of = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** The file of `files` with this name and these bytes, if any: adding the same file again reuses it. */
export async function sameStoredFile(db: Db, stored: StoredFile[], name: string, bytes: Buffer): Promise<StoredFile | undefined> {
  const named = stored.filter((file) => file.name === name);
  if (named.length === 0) return undefined;
  const sha256 = sha256Of(bytes);
  const digests = await files.digests(db, named.map((file) => file.id));
  return named.find((file) => digests.get(file.id) === sha256);
}

/** The stored bytes of a file, when it has any (files can come without content, for example from a seed). */
export const readFileContent = (db: Db, fileId: string): Promise<{ bytes: Buffer; contentType: string } | undefined> =>
  files.content(db, fileId);

/** The key signing download addresses: the server's (context.ts, kept in the database). */
const signature = (ctx: AppContext, spaceId: string, fileId: string) =>
  createHmac('sha256', ctx.secrets.fileUrls).update(`${spaceId}/${fileId}`).digest('base64url').slice(0, 32);

/**
 * Where a file is downloaded: `/files/{spaceId}/{fileId}?sig=…`, outside `/v1`. The signature makes the address
 * a capability: whoever was given it (a reader of the content) can fetch the bytes without a token, as an
 * `<img src>` must; nobody can forge one.
 */
export function fileDownloadUrl(ctx: AppContext, spaceId: string, fileId: string): string {
  return `${ctx.urls.api(`/files/${spaceId}/${fileId}`)}?sig=${signature(ctx, spaceId, fileId)}`;
}

export function verifyFileSignature(ctx: AppContext, spaceId: string, fileId: string, given: unknown): boolean {
  if (typeof given !== 'string') return false;
  const expected = Buffer.from(signature(ctx, spaceId, fileId));
  const actual = Buffer.from(given);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** Width and height of a PNG, GIF or JPEG image, read from its header; undefined for anything else. */
export function imageDimensions(bytes: Buffer): { width: number; height: number } | undefined {
  if (bytes.length >= 24 && bytes.readUInt32BE(0) === 0x89504e47 && bytes.toString('ascii', 12, 16) === 'IHDR') {
    return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  }
  if (bytes.length >= 10 && bytes.toString('ascii', 0, 3) === 'GIF') {
    return { width: bytes.readUInt16LE(6), height: bytes.readUInt16LE(8) };
  }
  if (bytes.length >= 4 && bytes[0] === 0xff && bytes[1] === 0xd8) {
    // Walk the JPEG segments up to a start-of-frame marker (SOF0..SOF15 except DHT, JPG and DAC).
    let offset = 2;
    while (offset + 9 < bytes.length && bytes[offset] === 0xff) {
      const marker = bytes[offset + 1]!;
      const length = bytes.readUInt16BE(offset + 2);
      if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker)) {
        return { width: bytes.readUInt16BE(offset + 7), height: bytes.readUInt16BE(offset + 5) };
      }
      offset += 2 + length;
    }
  }
  return undefined;
}
