// Two servers answering the same requests, one on SQLite and one on PostgreSQL, compared request by request: a fetch
// that sends each request to the first server, then, translated, to the second, requires the same answer of both,
// and returns the first's, so a client (the conformance runner) drives both while it sees one.
// What is made equal before comparing, and how: test/README.md, "Two engines, one answer".
import { setTimeout as sleep } from 'node:timers/promises';
import { type CursorData, cursorData, isToken, MADE_IN_KEY, TOKEN } from './examples.ts';

interface Answer {
  status: number;
  headers: Headers;
  bytes: Uint8Array;
  json?: unknown;
  type: string;
}

/** The values each server made at random, paired as the mirrors learnt them: the first server's, the second's. */
export class TokenPairs {
  readonly toSecond = new Map<string, string>();
  readonly toFirst = new Map<string, string>();

  /** `text` with each token of the first server that has a pair as the second server's. */
  translate(text: string): string {
    return text.replace(TOKEN, (token) => this.toSecond.get(token) ?? token);
  }
}

export class EngineMirror {
  /** Differences, one line each: the request, then what differs. */
  readonly differences: string[] = [];
  /** Answers 500 and above, from either server. */
  readonly serverErrors: string[] = [];
  requests = 0;
  private readonly toSecond: Map<string, string>;
  private readonly toFirst: Map<string, string>;

  constructor(
    private readonly first: string,
    private readonly second: string,
    private readonly options: {
      /** Awaited before each request: the servers' background work done, so that both answer from the same state. */
      before?: () => Promise<unknown>;
      /** Requests whose answers are the same in any order of their lists (each engine's search relevance). */
      unordered?: (url: string) => boolean;
      /** How often, and how far apart, differing GETs are sent again. */
      settle?: { tries: number; waitMs: number };
      /** Token pairs shared with other mirrors of the same two servers (`TokenPairs`); this mirror's own otherwise. */
      pairs?: TokenPairs;
    } = {},
  ) {
    const pairs = options.pairs ?? new TokenPairs();
    this.toSecond = pairs.toSecond;
    this.toFirst = pairs.toFirst;
  }

  /** The fetch to give a client of the first server. */
  readonly fetch = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const url = input instanceof Request ? input.url : String(input);
    const method = (init.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    if (init.body !== undefined && init.body !== null && typeof init.body !== 'string') throw new Error('the mirror sends string bodies only');
    const body = init.body ?? undefined;
    const send = async () => {
      await this.options.before?.();
      const first = await this.send(url, { ...init, method });
      const second = await this.send(this.translate(url.replace(this.first, this.second)), {
        ...init,
        method,
        ...(body !== undefined ? { body: this.translate(body) } : {}),
      });
      return { first, second, difference: this.compare(first, second, this.options.unordered?.(url) ?? false) };
    };
    this.requests++;
    let { first, second, difference } = await send();
    const settle = this.options.settle ?? { tries: 50, waitMs: 100 };
    for (let attempt = 0; difference !== undefined && method === 'GET' && attempt < settle.tries; attempt++) {
      await sleep(settle.waitMs);
      ({ first, second, difference } = await send());
    }
    const request = `${method} ${url.slice(this.first.length)}${body !== undefined ? ` ${body.slice(0, 300)}` : ''}`;
    if (difference !== undefined) this.differences.push(`${request}: ${difference}`);
    for (const [engine, answer] of [['first', first], ['second', second]] as const) {
      if (answer.status >= 500) this.serverErrors.push(`${request}: ${engine} server answered ${answer.status} ${new TextDecoder().decode(answer.bytes).slice(0, 300)}`);
    }
    const empty = first.status === 204 || first.status === 304 || method === 'HEAD';
    return new Response(empty ? null : first.bytes, { status: first.status, headers: first.headers });
  };

  private async send(url: string, init: RequestInit): Promise<Answer> {
    const response = await fetch(url, init);
    const bytes = new Uint8Array(await response.arrayBuffer());
    const type = response.headers.get('content-type') ?? '';
    let json: unknown;
    if (/json/.test(type) && bytes.length > 0) {
      try {
        json = JSON.parse(new TextDecoder().decode(bytes));
      } catch {
        json = undefined;
      }
    }
    return { status: response.status, headers: response.headers, bytes, json, type };
  }

  /** A text of the first server's as the second one knows it (its tokens and its address). */
  private translate(text: string): string {
    return text.replace(TOKEN, (token) => this.toSecond.get(token) ?? token);
  }

  /** What differs between the answers, or undefined. */
  private compare(first: Answer, second: Answer, unordered: boolean): string | undefined {
    if (first.status !== second.status) {
      return `status ${first.status} ≠ ${second.status}: ${clip(first)} ≠ ${clip(second)}`;
    }
    if (first.type.split(';')[0] !== second.type.split(';')[0]) return `content-type ${first.type} ≠ ${second.type}`;
    const location = [first.headers.get('location'), second.headers.get('location')];
    if (location[0] !== null && location[1] !== null && !this.sameText(location[0], location[1].replace(this.second, this.first))) {
      return `location ${location[0]} ≠ ${location[1]}`;
    }
    if (first.json === undefined && second.json === undefined) return undefined;
    const normalised = JSON.parse(JSON.stringify(second.json ?? null).replaceAll(this.second, this.first)) as unknown;
    if (!unordered) return this.same(first.json, normalised, 'body');
    return this.same(sorted(first.json, (text) => text), sorted(normalised, (text) => text.replace(TOKEN, (token) => this.toFirst.get(token) ?? token)), 'body');
  }

  private same(a: unknown, b: unknown, at: string): string | undefined {
    if (typeof a === 'string' && typeof b === 'string') {
      if (this.sameText(a, b)) return undefined;
      // A cursor is shown by what it holds, the only part of it compared.
      const shown = (text: string) => JSON.stringify(cursorData(text) ?? text).slice(0, 200);
      return `${at}: ${shown(a)} ≠ ${shown(b)}`;
    }
    if (Array.isArray(a) && Array.isArray(b)) {
      if (a.length !== b.length) return `${at}: ${a.length} items ≠ ${b.length}`;
      for (let i = 0; i < a.length; i++) {
        const difference = this.same(a[i], b[i], `${at}[${i}]`);
        if (difference !== undefined) return difference;
      }
      return undefined;
    }
    if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null && !Array.isArray(a) && !Array.isArray(b)) {
      const keys = [Object.keys(a).sort(), Object.keys(b).sort()];
      if (keys[0]!.join() !== keys[1]!.join()) return `${at}: fields ${keys[0]!.join(',')} ≠ ${keys[1]!.join(',')}`;
      for (const key of keys[0]!) {
        const difference = this.same((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], `${at}.${key}`);
        if (difference !== undefined) return difference;
      }
      return undefined;
    }
    return a === b ? undefined : `${at}: ${JSON.stringify(a)?.slice(0, 200)} ≠ ${JSON.stringify(b)?.slice(0, 200)}`;
  }

  /** Whether two texts are the same once the second's tokens are the first's; learns new pairs where they are new. */
  private sameText(a: string, b: string): boolean {
    if (a === b) return true;
    if (b.replace(TOKEN, (token) => this.toFirst.get(token) ?? token) === a) return true;
    const [cursorA, cursorB] = [cursorData(a), cursorData(b)];
    if (cursorA !== undefined && cursorB !== undefined) return this.sameCursor(a, cursorA, b, cursorB);
    const tokensA = a.match(TOKEN) ?? [];
    const tokensB = b.match(TOKEN) ?? [];
    if (tokensA.length !== tokensB.length || a.replace(TOKEN, '\u0001') !== b.replace(TOKEN, '\u0001')) return false;
    const pairs = tokensA.map((x, i): [string, string] => [x, tokensB[i]!]);
    if (pairs.some(([x, y]) => x !== y && (!isToken(x) || !isToken(y)))) return false;
    return this.pair(pairs);
  }

  /**
   * Whether two page cursors (server/common/paging.ts: base64url JSON of the sort key of the page's last item, the
   * list's count and a digest of the list, a dot, and a signature made with the server's secret) hold the same: each
   * value of the key as any text of the answers, its ids and digests (22 characters the server made) paired with the
   * ids the rest of the answers name, the count exactly, the list's digest paired. Their data and signatures are then
   * paired as tokens, whatever letters they are made of, so that a request carrying a cursor is translated.
   */
  private sameCursor(a: string, first: CursorData, b: string, second: CursorData): boolean {
    if (first.c !== second.c || first.k.length !== second.k.length) return false;
    const pairs: [string, string][] = [[first.l, second.l]];
    for (const [index, x] of first.k.entries()) {
      const y = second.k[index];
      if (typeof x === 'string' && typeof y === 'string' && MADE_IN_KEY.test(x) && MADE_IN_KEY.test(y)) pairs.push([x, y]);
      else if (typeof x === 'string' && typeof y === 'string' ? !this.sameText(x, y) : x !== y) return false;
    }
    const [dataA, signatureA] = a.split('.') as [string, string];
    const [dataB, signatureB] = b.split('.') as [string, string];
    return this.pair([...pairs, [dataA, dataB], [signatureA, signatureB]]);
  }

  /** Pairs each token of the first server's with the second's, unless one of them has another partner: then none. */
  private pair(pairs: [string, string][]): boolean {
    const toSecond = new Map<string, string>();
    const toFirst = new Map<string, string>();
    for (const [x, y] of pairs) {
      if (x === y) continue;
      if ((this.toSecond.get(x) ?? toSecond.get(x) ?? y) !== y || (this.toFirst.get(y) ?? toFirst.get(y) ?? x) !== x) return false;
      toSecond.set(x, y);
      toFirst.set(y, x);
    }
    for (const [x, y] of toSecond) {
      this.toSecond.set(x, y);
      this.toFirst.set(y, x);
    }
    return true;
  }
}

/** `value` with every list in a canonical order: by the JSON of its items, with tokens as `translate` makes them. */
function sorted(value: unknown, translate: (text: string) => string): unknown {
  if (Array.isArray(value)) {
    const items = value.map((item) => sorted(item, translate));
    const keyed = items.map((item) => ({ item, key: translate(JSON.stringify(item)) }));
    return keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)).map(({ item }) => item);
  }
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, sorted(item, translate)]));
  }
  return value;
}

function clip(answer: Answer): string {
  return new TextDecoder().decode(answer.bytes).slice(0, 300);
}
