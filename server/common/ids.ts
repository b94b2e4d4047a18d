// Opaque identifiers that sort by creation time, random identifiers and secrets.
import { createHash, randomBytes, randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

/**
 * Random bytes for identifiers and secrets, drawn from the system's CSPRNG 4 KiB at a time and each used once: a
 * call to randomBytes for each of the few ids a create makes showed in the profile of POST /v1/orgs/{id}/spaces.
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

/** `length` random alphanumeric characters. */
function randomChars(length: number, into = ''): string {
  let id = into;
  while (id.length < length) {
    const byte = pool[take(1)]!;
    // 248 = 4 * 62: rejecting larger bytes keeps every character equally likely.
    if (byte < 248) id += ALPHABET[byte % 62];
  }
  return id;
}

/** A random identifier of `length` alphanumeric characters (32 gives 190 bits), for what must not be guessed. */
export function newRandomId(length = 32): string {
  return randomChars(length);
}

/** Base 62 in ASCII order: strings of one length made from it compare as the numbers they write (SQLite's BINARY). */
const ORDERED = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** `value` in `length` characters of ORDERED. */
function ordered(value: number, length: number): string {
  let text = '';
  for (let rest = value, index = 0; index < length; index++, rest = Math.floor(rest / 62)) text = ORDERED[rest % 62] + text;
  return text;
}
/** Ids one millisecond can number (2 characters); the next id after them takes the next millisecond. */
const PER_MILLISECOND = 62 * 62;
let lastTime = 0;
let timeText = '';
let sequence = 0;

/**
 * A record's identifier: 22 alphanumeric characters, the time it was made in milliseconds (8 characters: up to the
 * year 8878), its number within that millisecond (2) and 12 random characters (71 bits). Each id sorts after the one
 * made before it in the process, whatever the clock does, so SQLite appends each new record's entry at the end of
 * the last leaf of every index its id keys, where random ids put each in a leaf of its own (written to the log,
 * synced and copied at the checkpoint) and ids random within a millisecond split the last leaf by rebalancing it:
 * `BENCH_PARTS=ids npm run bench` measures it (docs/performance.md). Ids stay opaque and
 * unguessable, but whoever holds two can tell which was made first, and when: a departure from wholly random ids,
 * decided and explained in server/docs/wire-behaviour.md (Identifiers).
 */
export function newId(): string {
  const now = Date.now();
  if (now > lastTime) {
    lastTime = now;
    sequence = 0;
    timeText = ordered(now, 8);
  } else if (++sequence === PER_MILLISECOND) {
    lastTime++;
    sequence = 0;
    timeText = ordered(lastTime, 8);
  }
  return randomChars(22, timeText + ordered(sequence, 2));
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
