// The operations part of `npm run bench` sends every operation the server implements, each from its example: its
// tables of fresh records (FRESH) and bounded counts (MOST) name operations it sends, and a request is the example's
// in the world's ids.
import { expect, test } from 'vitest';
import { benchedExamples, FRESH, MOST, requestOf } from '../../bench/operation-requests.ts';
import { contractOperations, loadContract } from '../../server/http/contract.ts';
import { pendingOperations } from '../../server/handlers/pending.ts';

const examples = benchedExamples();
const sent = new Set(examples.map((example) => example.operationId));

test('every operation the server implements is sent once, the reads first', () => {
  const implemented = contractOperations(loadContract())
    .map((operation) => operation.operationId)
    .filter((operationId) => !(operationId in pendingOperations));
  expect([...sent].sort()).toEqual([...new Set(implemented)].sort());
  expect(examples).toHaveLength(sent.size);
  const firstWrite = examples.findIndex((example) => example.method !== 'get');
  expect(examples.slice(firstWrite).every((example) => example.method !== 'get')).toBe(true);
});

test('the fresh records and bounded counts are of writes the part sends', () => {
  const writes = new Set(examples.filter((example) => example.method !== 'get').map((example) => example.operationId));
  expect(Object.keys(FRESH).filter((operationId) => !writes.has(operationId))).toEqual([]);
  expect(Object.keys(MOST).filter((operationId) => !writes.has(operationId))).toEqual([]);
});

test("a request is its example's, in the world's ids and addresses, with a change applied", () => {
  const example = examples.find((candidate) => candidate.operationId === 'updateSpace')!;
  const spaceId = String((example.parameters.path as Record<string, string>).spaceId);
  const world = { ids: new Map([[spaceId, 'made-by-the-server-1']]), origins: new Map<string, string>() };
  const request = requestOf(example, world);
  expect(request.method).toBe('PATCH');
  expect(request.path).toBe(example.path.replace('{spaceId}', 'made-by-the-server-1'));
  expect(JSON.parse(request.body!)).toEqual(example.body);
  expect(requestOf(example, world, { path: { spaceId: 'another' } }).path).toBe(example.path.replace('{spaceId}', 'another'));
});
