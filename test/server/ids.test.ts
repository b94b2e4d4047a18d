// Identifiers and secrets: record ids that sort by creation time, random alphanumeric strings of the asked length, and
// base64url secrets of the asked number of bytes, all drawn from one pool of CSPRNG bytes, each byte used once.
import { describe, expect, test, vi } from 'vitest';
import { newId, newRandomId, newSecret } from '../../server/common/ids.ts';
import { base62 as number } from '../support/ids.ts';

describe('newRandomId', () => {
  test('gives distinct ids of the asked length, over many refills of its pool, every character about equally often', () => {
    const ids = Array.from({ length: 5000 }, () => newRandomId(20));
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[0-9a-zA-Z]{20}$/);
    expect(newRandomId()).toMatch(/^[0-9a-zA-Z]{32}$/);
    expect(newRandomId(300)).toMatch(/^[0-9a-zA-Z]{300}$/);
    expectEvenCharacters(ids.join(''));
  });
});

describe('newId', () => {

  test('gives distinct 22-character ids, each sorting after the one before: its time, its number in that millisecond, then 12 random characters', async () => {
    const before = Date.now();
    const ids: string[] = [];
    for (let round = 0; round < 5; round++) {
      for (let index = 0; index < 1000; index++) ids.push(newId());
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    const after = Date.now();
    for (const id of ids) expect(id).toMatch(/^[0-9a-zA-Z]{22}$/);
    // Strictly increasing as SQLite compares text (byte by byte, as JavaScript compares these ASCII strings).
    for (let index = 1; index < ids.length; index++) expect(ids[index]! > ids[index - 1]!, ids[index]).toBe(true);

    // The first 8 characters write the time in base 62 (digits, then A-Z, then a-z), within the test's span; the
    // next 2 number the ids of one millisecond from 0.
    const times = ids.map((id) => number(id.slice(0, 8)));
    expect(times[0]).toBeGreaterThanOrEqual(before);
    expect(times.at(-1)).toBeLessThanOrEqual(after);
    expect(new Set(times).size).toBeGreaterThanOrEqual(5);
    for (let index = 1; index < ids.length; index++) {
      const sequence = number(ids[index]!.slice(8, 10));
      expect(sequence).toBe(times[index] === times[index - 1] ? number(ids[index - 1]!.slice(8, 10)) + 1 : 0);
    }

    // The other 12 are drawn as newRandomId draws.
    expectEvenCharacters(ids.map((id) => id.slice(10)).join(''), 0.85, 1.15);
  });

  test('numbers at most 3 844 ids in a millisecond, then goes on in the next, and never goes back with the clock', () => {
    const clock = vi.spyOn(Date, 'now');
    try {
      // A few milliseconds ahead, so that ids made after this test, by the real clock, soon carry their own time again.
      const start = Date.now() + 5;
      clock.mockReturnValue(start);
      const ids = Array.from({ length: 4000 }, () => newId());
      clock.mockReturnValue(start - 30_000); // the clock set back
      ids.push(newId());
      for (let index = 1; index < ids.length; index++) expect(ids[index]! > ids[index - 1]!).toBe(true);
      expect(ids.slice(0, 3844).every((id) => number(id.slice(0, 8)) === start)).toBe(true);
      expect(number(ids[3843]!.slice(8, 10))).toBe(3843);
      expect(number(ids[3844]!.slice(0, 8))).toBe(start + 1);
      expect(number(ids[3844]!.slice(8, 10))).toBe(0);
      expect(number(ids.at(-1)!.slice(0, 8))).toBe(start + 1);
    } finally {
      clock.mockRestore();
    }
  });
});

/**
 * Every one of the 62 characters about equally often: a biased draw (a modulo without rejection, a reused byte) moves
 * some far outside these bounds (100 000 characters: about 1 613 each, within 13%; 60 000: about 968, within 15%).
 */
function expectEvenCharacters(text: string, low = 0.87, high = 1.13): void {
  const counts = new Map<string, number>();
  for (const char of text) counts.set(char, (counts.get(char) ?? 0) + 1);
  expect(counts.size).toBe(62);
  const mean = text.length / 62;
  for (const [char, count] of counts) {
    expect(count, char).toBeGreaterThan(mean * low);
    expect(count, char).toBeLessThan(mean * high);
  }
}

describe('newSecret', () => {
  test('gives distinct base64url secrets of the asked number of bytes, over many refills of the pool shared with newId', () => {
    const secrets: string[] = [];
    // Sizes that do not divide the pool's 4 KiB, mixed with ids, so that refills fall in the middle of a secret.
    for (let index = 0; index < 3000; index++) {
      secrets.push(newSecret(16), newSecret(), newSecret(27));
      newId();
    }
    expect(new Set(secrets).size).toBe(secrets.length);
    for (const [index, secret] of secrets.entries()) {
      expect(secret).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(Buffer.from(secret, 'base64url')).toHaveLength([16, 32, 27][index % 3]!);
    }
    expect(Buffer.from(newSecret(10_000), 'base64url')).toHaveLength(10_000);

    // 225 000 bytes over 256 values: about 879 each; a reused or constant stretch of the pool moves some far out.
    const counts = new Array<number>(256).fill(0);
    for (const secret of secrets) for (const byte of Buffer.from(secret, 'base64url')) counts[byte]!++;
    for (const [byte, count] of counts.entries()) {
      expect(count, String(byte)).toBeGreaterThan(720);
      expect(count, String(byte)).toBeLessThan(1040);
    }
  });
});
