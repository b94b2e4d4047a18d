// Identifiers and secrets: random alphanumeric strings of the asked length, and base64url secrets of the asked number
// of bytes, both drawn from one pool of CSPRNG bytes, each byte used once.
import { describe, expect, test } from 'vitest';
import { newId, newSecret } from '../server/domain/ids.ts';

describe('newId', () => {
  test('gives distinct ids of the asked length, over many refills of its pool, every character about equally often', () => {
    const ids = Array.from({ length: 5000 }, () => newId());
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[0-9a-zA-Z]{20}$/);
    expect(newId(7)).toHaveLength(7);
    expect(newId(300)).toMatch(/^[0-9a-zA-Z]{300}$/);

    // 100 000 characters over 62 symbols: about 1 613 each; a biased draw (a modulo without rejection, a reused byte)
    // moves some far outside these bounds.
    const counts = new Map<string, number>();
    for (const char of ids.join('')) counts.set(char, (counts.get(char) ?? 0) + 1);
    expect(counts.size).toBe(62);
    for (const [char, count] of counts) {
      expect(count, char).toBeGreaterThan(1400);
      expect(count, char).toBeLessThan(1830);
    }
  });
});

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
