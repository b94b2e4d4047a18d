// Random, opaque identifiers and secrets.
import { createHash, randomBytes, randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

/**
 * Random bytes for identifiers and secrets, drawn from the system's CSPRNG 4 KiB at a time and each used once: a
 * call to randomBytes for each of the few ids a create makes was 4% of the CPU of POST /v1/orgs/{id}/spaces, and the
 * one for a space's share key another 4%.
 */
const pool = Buffer.alloc(4096);
let used = pool.length;
function randomByte(): number {
  if (used === pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  return pool[used++]!;
}

/** A random identifier of `length` alphanumeric characters (20 gives 119 bits). */
export function newId(length = 20): string {
  let id = '';
  while (id.length < length) {
    const byte = randomByte();
    // 248 = 4 * 62: rejecting larger bytes keeps every character equally likely.
    if (byte < 248) id += ALPHABET[byte % 62];
  }
  return id;
}

/** A random secret, such as an access token. */
export function newSecret(bytes = 32): string {
  if (bytes > pool.length) return randomBytes(bytes).toString('base64url');
  if (used + bytes > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  used += bytes;
  return pool.toString('base64url', used - bytes, used);
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
