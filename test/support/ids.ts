// Reading a record id (server/common/ids.ts) as its digits say, independently of the code that writes it: base 62 in
// ASCII order, the first 8 characters the time in milliseconds, the next 2 the id's number within that millisecond.

const ORDERED = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** The number `text` writes in base 62, digits, then A-Z, then a-z. */
export const base62 = (text: string): number => [...text].reduce((value, char) => value * 62 + ORDERED.indexOf(char), 0);

/** The time a record id says it was made, in milliseconds. */
export const idTime = (id: string): number => base62(id.slice(0, 8));
