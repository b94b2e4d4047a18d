// The parts of the runner's property phase that stand alone (conformance/runner/property/): what it reads off the contract,
// what it compares, and how it judges a HEAD, a walk through pages and a 405's Allow. The whole phase is proven
// against the reference server and against planted faults in conformance-property.test.ts.
import { describe, expect, test } from 'vitest';
import { loadContract } from '../../conformance/contract/contract.ts';
import { CheckFailure, type ExchangeRecord } from '../../conformance/runner/property/checks.ts';
import { allowsSupported } from '../../conformance/runner/property/framework.ts';
import { headDifference } from '../../conformance/runner/property/head.ts';
import { followPages, MAX_PAGES } from '../../conformance/runner/property/pagination.ts';
import { seedOf } from '../../conformance/runner/property/run.ts';
import { keyField } from '../../conformance/runner/ids.ts';
import { asWritten, declaresAuth, families, isPaginated, makers, onPath, readBackOf, roundTripFields } from '../../conformance/runner/property/shapes.ts';

const contract = loadContract();
const operation = (id: string) => contract.operations.get(id)!;
const ids = (operations: { operationId: string }[]) => operations.map((entry) => entry.operationId);

describe('what the phase reads off the contract', () => {
  test('families: a create answering 201, the GET of its item, the updates and the DELETE of that path', () => {
    const all = families(contract);
    const of = (create: string) => all.find((family) => family.create.operationId === create);
    expect(of('createSpace')).toMatchObject({ read: { operationId: 'getSpace' }, remove: { operationId: 'deleteSpace' } });
    expect(ids(of('createSpace')!.updates)).toEqual(['updateSpace']);
    expect(ids(of('createOpenAPISpec')!.updates)).toEqual(['putOpenAPISpec', 'updateOpenAPISpec']);
    expect(of('createChangeRequest')!.remove).toBeUndefined();
    // A create whose item has no GET of the same schema is no family.
    expect(of('createSiteSection')).toBeUndefined();
  });

  test('makers: every create that makes what a path parameter names, a GET or not, with its DELETE', () => {
    const all = makers(contract);
    expect(all.find((maker) => maker.create.operationId === 'createSiteSection')).toMatchObject({ parameter: 'siteSectionId', remove: { operationId: 'deleteSiteSection' } });
    expect(all.find((maker) => maker.create.operationId === 'createSpaceCommentReply')).toMatchObject({ parameter: 'commentReplyId' });
    expect(all.filter((maker) => maker.parameter === 'spaceId').map((maker) => maker.create.operationId)).toEqual(['createSpace']);
  });

  test('the read-back of a write is the GET of its path, else of the nearest item path above it', () => {
    expect(readBackOf(contract, operation('updateSpace'))?.operationId).toBe('getSpace');
    expect(readBackOf(contract, operation('createSpaceComment'))?.operationId).toBe('getSpace');
  });

  test('round-trip fields: those of the body its answer has, the exceptions left out', () => {
    expect(roundTripFields(contract, operation('updateSpace'))).toEqual(['editMode', 'title', 'defaultLevel', 'language', 'emoji']);
    expect(roundTripFields(contract, operation('getSpace'))).toEqual([]);
  });

  test('authentication and pagination as operations declare them', () => {
    expect(declaresAuth(contract, operation('getSpace'))).toBe(true);
    expect(isPaginated(contract, operation('listSpaces'))).toBe(true);
    expect(isPaginated(contract, operation('getSpace'))).toBe(false);
  });

  test('the key field a path parameter names is its last word', () => {
    expect(['spaceId', 'specSlug', 'integrationName', 'commentReplyId', 'organization'].map(keyField)).toEqual(['id', 'slug', 'name', 'id', 'organization']);
  });

  test('a URL is on an operation’s path when its parameters each fill one segment', () => {
    const getSpace = operation('getSpace');
    expect(onPath(getSpace, 'http://h/v1/spaces/abc')).toBe(true);
    expect(onPath(getSpace, 'http://h/v1/spaces/abc?x=1')).toBe(true);
    expect(onPath(getSpace, 'http://h/v1/spaces/abc/content')).toBe(false);
  });
});

describe('asWritten', () => {
  test('every key sent is in the answer with the same value, at any depth; the answer may have more', () => {
    expect(asWritten({ a: 1, b: { c: 'x' } }, { a: 1, b: { c: 'x', d: 2 }, e: 3 })).toBe(true);
    expect(asWritten({ b: { c: 'x' } }, { b: { c: 'y' } })).toBe(false);
    expect(asWritten([1, { a: 2 }], [1, { a: 2, b: 3 }])).toBe(true);
    expect(asWritten([1, 2], [1, 2, 3])).toBe(false);
    expect(asWritten({ a: 1 }, [1])).toBe(false);
    expect(asWritten(0, -0)).toBe(true);
    expect(asWritten(Number.NaN, Number.NaN)).toBe(true);
    expect(asWritten('1', 1)).toBe(false);
  });
});

describe('headDifference', () => {
  const answer = (status: number, headers: Record<string, string>, text = '') => ({ status, headers: new Headers(headers), text });
  const get = answer(200, { 'content-type': 'application/json', 'content-length': '12', etag: '"1"', date: 'Mon', 'x-request-id': 'a' });

  test('none when the HEAD answers as the GET (per-message headers and header values aside)', () => {
    expect(headDifference(get, answer(200, { 'content-type': 'application/json', 'content-length': '12', etag: '"2"', 'x-request-id': 'b' }))).toBeUndefined();
  });

  test('names the status, a body, the Content-Type, the Content-Length and a header left out', () => {
    expect(headDifference(get, answer(404, {}))).toBe('HEAD answered 404, GET 200');
    expect(headDifference(get, answer(200, { 'content-type': 'application/json' }, 'body'))).toBe('HEAD answered a body of 4 bytes');
    expect(headDifference(get, answer(200, { 'content-type': 'text/plain' }))).toBe('Content-Type "text/plain" for HEAD, "application/json" for GET');
    expect(headDifference(get, answer(200, { 'content-type': 'application/json', 'content-length': '0' }))).toBe('Content-Length 0 for HEAD, 12 for GET');
    expect(headDifference(get, answer(200, { 'content-type': 'application/json', 'content-length': '12' }))).toBe('HEAD answered without etag, x-request-id, which the GET sent');
  });

  test('a GET sent in chunks, without a length, leaves the HEAD’s length free', () => {
    expect(headDifference(answer(200, { 'content-type': 'application/json' }), answer(200, { 'content-type': 'application/json', 'content-length': '5' }))).toBeUndefined();
  });
});

describe('followPages', () => {
  const exchange: ExchangeRecord = { request: { method: 'GET', url: 'http://h/v1/list', curl: 'curl' } };
  /** A list served as these pages, each `{items, count?}`, linked by `next`; records the cursors asked for. */
  const pages = (...content: { items: unknown[]; count?: number }[]) => {
    const asked: (string | undefined)[] = [];
    const read = async (cursor: string | undefined) => {
      asked.push(cursor);
      const index = cursor === undefined ? 0 : Number(cursor);
      const next = index + 1 < content.length ? { next: { page: String(index + 1) } } : {};
      return { answer: { status: 200, json: { ...content[index], ...next } }, exchange };
    };
    return { read, asked };
  };
  const failure = async (walk: Promise<void>) => {
    const error = await walk.then(() => undefined, (thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(CheckFailure);
    return (error as CheckFailure).message;
  };

  test('follows next to the last page: every item once, as many as the count', async () => {
    const list = pages({ items: [{ id: 'a' }, { id: 'b' }], count: 3 }, { items: [{ id: 'c' }] });
    await followPages(list.read);
    expect(list.asked).toEqual([undefined, '1']);
  });

  test('fails on an item on two pages (by id, else by its JSON), and on a count that is not the number of items', async () => {
    expect(await failure(followPages(pages({ items: [{ id: 'a' }] }, { items: [{ id: 'a' }] }).read))).toBe('[pagination] item a of page 2 was already on page 1');
    expect(await failure(followPages(pages({ items: ['x'] }, { items: ['x'] }).read))).toBe('[pagination] item "x" of page 2 was already on page 1');
    expect(await failure(followPages(pages({ items: [{ id: 'a' }], count: 2 }).read))).toBe('[pagination] count is 2, but the 1 pages held 1 items');
  });

  test('stops at a page that is not a 200, and after MAX_PAGES pages', async () => {
    await followPages(async () => ({ answer: { status: 403, json: {} }, exchange }));
    let reads = 0;
    await followPages(async () => ({ answer: { status: 200, json: { items: [{ id: String(reads++) }], next: { page: 'more' } } }, exchange }));
    expect(reads).toBe(MAX_PAGES);
  });
});

describe('allowsSupported', () => {
  test('a 405’s Allow names every supported method, and nothing else but OPTIONS', () => {
    expect(allowsSupported(['get', 'head', 'options'], ['get', 'head'])).toBe(true);
    expect(allowsSupported([], ['get'])).toBe(false);
    expect(allowsSupported(['get'], ['get', 'head'])).toBe(false);
    expect(allowsSupported(['get', 'head', 'post'], ['get', 'head'])).toBe(false);
  });
});

describe('seedOf', () => {
  test('one seed per run, operation and property, the same every time', () => {
    expect(seedOf(42, 'getSpace', 'valid')).toBe(seedOf(42, 'getSpace', 'valid'));
    const seeds = new Set([seedOf(42, 'getSpace', 'valid'), seedOf(42, 'getSpace', 'head'), seedOf(42, 'listSpaces', 'valid'), seedOf(43, 'getSpace', 'valid')]);
    expect(seeds.size).toBe(4);
    for (const seed of seeds) expect(Number.isInteger(seed) && seed >= -(2 ** 31) && seed < 2 ** 31).toBe(true);
  });
});
