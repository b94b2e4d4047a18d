// Identifiers: random alphanumeric strings of the asked length, drawn from a pool of CSPRNG bytes each used once.
import { describe, expect, test } from 'vitest';
import { newId } from '../server/domain/ids.ts';

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
