// The examples of the contract's operations (`@opExample` in spec/, emitted into generated/openapi.yaml) read back as
// requests and answers (as the server reads them to answer an operation from the contract), and the comparison of an
// example's answer with the server's: exact but for the values the server makes at random, paired with the example's,
// and the times it reads from its clock.
// The pairing's rules: test/README.md, "The contract's examples, answered".
import { contractOperations, type OpenApiDocument } from '../../server/http/contract.ts';
import { operationExamples as examplesOfOperation, type OperationExample } from '../../server/http/example-answers.ts';

export type { OperationExample };

/** Every example of every operation of `document` (read as the server reads them: http/example-answers.ts). */
export function operationExamples(document: OpenApiDocument): OperationExample[] {
  return contractOperations(document).flatMap((operation) => examplesOfOperation(document, operation));
}

/**
 * A value a server makes at random: 16 or more letters, digits, `-` or `_`, holding a digit, or else changing case
 * often (a random 32-character signature holds no digit about once in 230; a word such as `audienceControlledSite`
 * changes case four times, a random string of that length about sixteen).
 */
export const TOKEN = /[A-Za-z0-9_-]{16,}/g;
const caseChanges = (text: string) => [...text].filter((character, index) => index > 0 && /[a-z]/.test(text[index - 1]!) !== /[a-z]/.test(character) && /[A-Za-z]/.test(character) && /[A-Za-z]/.test(text[index - 1]!)).length;
export const isToken = (text: string) => /\d/.test(text) || caseChanges(text) >= 8;
/** A time as the contract writes it: an ISO 8601 date-time in UTC. */
const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/**
 * The tokens of an example paired with a server's, in both directions. Pairs can be given up front (the ids of the
 * records the server made for the example's world, by the example's ids) and are learnt from the comparisons.
 */
export class ExamplePairs {
  private readonly toServer = new Map<string, string>();
  private readonly toExample = new Map<string, string>();

  constructor(known: Iterable<[string, string]> = []) {
    for (const [example, server] of known) this.pair(example, server);
  }

  /** Pairs them; false when either is paired with another already. */
  pair(example: string, server: string): boolean {
    const paired = this.toServer.get(example);
    const back = this.toExample.get(server);
    if (paired === undefined && back === undefined) {
      this.toServer.set(example, server);
      this.toExample.set(server, example);
      return true;
    }
    return paired === server && back === example;
  }

  /** `value` (any JSON) with each example token that is paired replaced by the server's. */
  toServerValue<T>(value: T): T {
    const replace = (text: string) => text.replace(TOKEN, (token) => this.toServer.get(token) ?? token);
    return mapStrings(value, replace) as T;
  }

  /** The example token paired with a server token, if any. */
  exampleOf(server: string): string | undefined {
    return this.toExample.get(server);
  }
}

function mapStrings(value: unknown, replace: (text: string) => string): unknown {
  if (typeof value === 'string') return replace(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, replace));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, mapStrings(item, replace)]));
  return value;
}

/** Splits a string into its text and its tokens (tokens at odd indices). */
function tokenized(text: string): string[] {
  const parts: string[] = [];
  let last = 0;
  for (const match of text.matchAll(TOKEN)) {
    if (!isToken(match[0])) continue;
    parts.push(text.slice(last, match.index), match[0]);
    last = match.index + match[0].length;
  }
  parts.push(text.slice(last));
  return parts;
}

const pointer = (at: string, key: string | number) => `${at}/${String(key).replaceAll('~', '~0').replaceAll('/', '~1')}`;
const shown = (value: unknown) => (value === undefined ? 'nothing' : JSON.stringify(value));

/**
 * The differences between an example's answer and the server's, one line each, naming the field by its JSON pointer
 * (`/items/0/title`); none when they match. Pairs tokens as it goes (`pairs`).
 */
export function answerDifferences(example: unknown, server: unknown, pairs: ExamplePairs, at = ''): string[] {
  const field = at === '' ? 'the body' : at;
  if (typeof example === 'string' && typeof server === 'string') {
    if (example === server) return [];
    const [ourCursor, theirCursor] = [cursorData(example), cursorData(server)];
    if (ourCursor && theirCursor) return cursorDifferences(ourCursor, theirCursor, pairs, field);
    if (TIME.test(example) && TIME.test(server)) return [];
    const ours = tokenized(example);
    const theirs = tokenized(server);
    const alike = ours.length === theirs.length && ours.every((part, index) => (index % 2 === 1 ? pairs.pair(part, theirs[index]!) : part === theirs[index]));
    if (alike) return [];
    const paired = ours.length === theirs.length ? ours.findIndex((part, index) => index % 2 === 1 && !pairs.pair(part, theirs[index]!)) : -1;
    const why = paired >= 0 ? ` (the example's ${ours[paired]} names ${pairs.exampleOf(theirs[paired]!) ?? 'another record'} elsewhere)` : '';
    return [`${field}: the example has ${shown(example)}, the server ${shown(server)}${why}`];
  }
  if (Array.isArray(example) && Array.isArray(server)) {
    if (example.length !== server.length) return [`${field}: the example has ${example.length} items, the server ${server.length}: ${shown(server)}`];
    return example.flatMap((item, index) => answerDifferences(item, server[index], pairs, pointer(at, index)));
  }
  if (isObject(example) && isObject(server)) {
    const keys = [...new Set([...Object.keys(example), ...Object.keys(server)])];
    return keys.flatMap((key) => {
      if (!(key in server)) return [`${pointer(at, key)}: the example has ${shown(example[key])}, the server leaves it out`];
      if (!(key in example)) return [`${pointer(at, key)}: the server answers ${shown(server[key])}, the example leaves it out`];
      return answerDifferences(example[key], server[key], pairs, pointer(at, key));
    });
  }
  if (example === server) return [];
  return [`${field}: the example has ${shown(example)}, the server ${shown(server)}`];
}

/**
 * A page cursor as the server writes it (server/common/paging.ts): its data as base64url JSON (the sort key of the
 * page's last item, the list's count, a digest of the list), a dot, and its signature.
 */
export interface CursorData {
  k: unknown[];
  c: unknown;
  l: string;
}
const CURSOR = /^([A-Za-z0-9_-]{16,})\.([A-Za-z0-9_-]{16,})$/;

/** The data of a page cursor, or undefined for any other string. */
export function cursorData(text: string): CursorData | undefined {
  const payload = CURSOR.exec(text)?.[1];
  if (payload === undefined) return undefined;
  try {
    const data: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString());
    return isObject(data) && Array.isArray(data.k) && typeof data.l === 'string' ? (data as unknown as CursorData) : undefined;
  } catch {
    return undefined;
  }
}

/** `text` with each page cursor's data written again by `map` (the signature kept as it is). */
export function mapCursor(text: string, map: (data: CursorData) => CursorData): string {
  const data = cursorData(text);
  if (data === undefined) return text;
  return `${Buffer.from(JSON.stringify(map(data))).toString('base64url')}.${CURSOR.exec(text)![2]}`;
}

/** A record's id or a digest, as a cursor's key holds them: 22 characters the server made. */
export const MADE_IN_KEY = /^[A-Za-z0-9_-]{22}$/;

/**
 * Two cursors compared by what they hold, not as tokens: the key of the page's last item (its times match any time,
 * its ids and digests must pair with the records the rest of the answer names), the count exactly, and the list's
 * digest paired (it is made from the request's ids). The signature is the server's own (made with its secret).
 */
function cursorDifferences(example: CursorData, server: CursorData, pairs: ExamplePairs, field: string): string[] {
  const at = `${field} (a cursor)`;
  if (example.k.length !== server.k.length) return [`${at}: the example's key is ${shown(example.k)}, the server's ${shown(server.k)}`];
  const found = example.k.flatMap((part, index) => {
    const theirs = server.k[index];
    if (typeof part === 'string' && typeof theirs === 'string' && MADE_IN_KEY.test(part) && MADE_IN_KEY.test(theirs)) {
      return pairs.pair(part, theirs) ? [] : [`${at}/k/${index}: the example's ${part} names ${pairs.exampleOf(theirs) ?? 'another record'} in the server's`];
    }
    return answerDifferences(part, theirs, pairs, `${at}/k/${index}`);
  });
  if (example.c !== server.c) found.push(`${at}: the example counts ${shown(example.c)}, the server ${shown(server.c)}`);
  if (!pairs.pair(example.l, server.l)) found.push(`${at}: the example's list ${example.l} is another list than the server's`);
  return found;
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);
