// Random, opaque identifiers and secrets.
import { createHash, randomBytes, randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

/**
 * Random bytes for identifiers and secrets, drawn from the system's CSPRNG 4 KiB at a time and each used once: a
 * call to randomBytes for each of the few ids a create makes was 4% of the CPU of POST /v1/orgs/{id}/spaces.
 */
const pool = Buffer.alloc(4096);
let used = pool.length;

/** Where `count` unused bytes of the pool start (at most its size), refilling it when fewer are left. */
function take(count: number): number {
  if (used + count > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  used += count;
  return used - count;
}

/** A random identifier of `length` alphanumeric characters (20 gives 119 bits). */
export function newId(length = 20): string {
  let id = '';
  while (id.length < length) {
    const byte = pool[take(1)]!;
    // 248 = 4 * 62: rejecting larger bytes keeps every character equally likely.
    if (byte < 248) id += ALPHABET[byte % 62];
  }
  return id;
}

/** A random secret, such as an access token. */
export function newSecret(bytes = 32): string {
  if (bytes > pool.length) return randomBytes(bytes).toString('base64url');
  const start = take(bytes);
  return pool.toString('base64url', start, start + bytes);
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
