// How an example's answer is compared with a server's (test/support/examples.ts), for what a server makes when it
// answers: ids it made pair with the example's, times match any time, and a page cursor is compared by what it holds
// (the key of the page's last item, the count, the list), whatever its signature looks like.
import { describe, expect, test } from 'vitest';
import { answerDifferences, cursorData, ExamplePairs, mapCursor } from '../support/examples.ts';

const cursor = (data: { k: unknown[]; c: number; l: string }, signature: string) => `${Buffer.from(JSON.stringify(data)).toString('base64url')}.${signature}`;

// Ids as the server makes them (22 characters), the example's and the server's for the same records.
const EXAMPLE = { installation: '0Vby0wuA00In5St7Al9Lt2', space: '0Vby0wra00cad2BNt16evV', list: 'EkFIjT1OhW3uC1fw7ZBKlS' };
const SERVER = { installation: '0Vd1ZzX300Qm8Pq2Rs4Tu6', space: '0Vd1ZzW100Ab3Cd5Ef7Gh9', list: 'Qw3Er5Ty7Ui9Op1As3Df5G' };
const OTHER_INSTALLATION = '0Vd1ZzY500Jk2Lm4No6Pq8';

const exampleCursor = cursor({ k: ['2026-11-25T07:15:00.000Z', EXAMPLE.installation, '2026-11-25T07:00:00.000Z', EXAMPLE.space], c: 4, l: EXAMPLE.list }, '4XoAESKUzwXyAzIkch8e5h');
const worldPairs = () =>
  new ExamplePairs([
    [EXAMPLE.installation, SERVER.installation],
    [EXAMPLE.space, SERVER.space],
    [OTHER_INSTALLATION, OTHER_INSTALLATION],
  ]);

describe('a page cursor in an answer', () => {
  test('matches one naming the same records at other times, signed otherwise, even with a signature of letters only', () => {
    for (const signature of ['aBcDeFgHiJkLmNoPqRsTuV', 'abcdefghijklmnopqrstuv']) {
      const answered = cursor({ k: ['2026-11-26T07:29:00.000Z', SERVER.installation, '2026-11-26T07:00:00.000Z', SERVER.space], c: 4, l: SERVER.list }, signature);
      expect(answerDifferences({ next: { page: exampleCursor } }, { next: { page: answered } }, worldPairs())).toEqual([]);
    }
  });

  test('differs from one whose key names another record, counts otherwise, or has another shape', () => {
    const other = cursor({ k: ['2026-11-25T07:15:00.000Z', OTHER_INSTALLATION, '2026-11-25T07:00:00.000Z', SERVER.space], c: 4, l: SERVER.list }, 'aBcDeFgHiJkLmNoPqRsTuV');
    expect(answerDifferences({ page: exampleCursor }, { page: other }, worldPairs())).toEqual([
      `/page (a cursor)/k/1: the example's ${EXAMPLE.installation} names ${OTHER_INSTALLATION} in the server's`,
    ]);
    const counted = cursor({ k: ['2026-11-25T07:15:00.000Z', SERVER.installation, '2026-11-25T07:00:00.000Z', SERVER.space], c: 5, l: SERVER.list }, 'aBcDeFgHiJkLmNoPqRsTuV');
    expect(answerDifferences({ page: exampleCursor }, { page: counted }, worldPairs())).toEqual(['/page (a cursor): the example counts 4, the server 5']);
    const shorter = cursor({ k: ['2026-11-25T07:15:00.000Z', SERVER.installation], c: 4, l: SERVER.list }, 'aBcDeFgHiJkLmNoPqRsTuV');
    expect(answerDifferences({ page: exampleCursor }, { page: shorter }, worldPairs())).toHaveLength(1);
  });

  test("a list's digest pairs with one list only in an answer", () => {
    const pairs = worldPairs();
    const first = cursor({ k: ['2026-11-25T07:15:00.000Z', SERVER.installation, '2026-11-25T07:00:00.000Z', SERVER.space], c: 4, l: SERVER.list }, 'aBcDeFgHiJkLmNoPqRsTuV');
    expect(answerDifferences(exampleCursor, first, pairs)).toEqual([]);
    const elsewhere = cursor({ k: ['2026-11-25T07:15:00.000Z', SERVER.installation, '2026-11-25T07:00:00.000Z', SERVER.space], c: 4, l: 'Zx9Cv8Bn7Mm6Ll5Kk4Jj3H' }, 'aBcDeFgHiJkLmNoPqRsTuV');
    expect(answerDifferences(exampleCursor, elsewhere, pairs)).toEqual([`the body (a cursor): the example's list ${EXAMPLE.list} is another list than the server's`]);
  });

  test('is read back, and written again in the example’s ids, only when it is one', () => {
    expect(cursorData(exampleCursor)).toEqual({ k: ['2026-11-25T07:15:00.000Z', EXAMPLE.installation, '2026-11-25T07:00:00.000Z', EXAMPLE.space], c: 4, l: EXAMPLE.list });
    for (const text of ['0Vby0wuA00In5St7Al9Lt2', 'docs.example.com', 'aaaaaaaaaaaaaaaaaaaa.bbbbbbbbbbbbbbbbbbbbbb']) expect(cursorData(text)).toBeUndefined();
    const renamed = mapCursor(exampleCursor, (data) => ({ ...data, c: 7 }));
    expect(cursorData(renamed)?.c).toBe(7);
    expect(renamed.split('.')[1]).toBe('4XoAESKUzwXyAzIkch8e5h');
    expect(mapCursor('plain text', () => ({ k: [], c: 0, l: '' }))).toBe('plain text');
  });
});
