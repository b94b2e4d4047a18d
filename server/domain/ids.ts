// Random, opaque identifiers and secrets.
import { createHash, randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** A random identifier of `length` alphanumeric characters (20 gives 119 bits). */
export function newId(length = 20): string {
  const bytes = randomBytes(length * 2);
  let id = '';
  for (let i = 0; i < bytes.length && id.length < length; i++) {
    // 248 = 4 * 62: rejecting larger bytes keeps every character equally likely.
    if (bytes[i]! < 248) id += ALPHABET[bytes[i]! % 62];
  }
  return id.length === length ? id : newId(length);
}

/** A random secret, such as an access token. */
export function newSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
