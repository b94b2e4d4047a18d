// Usage records (conformance/usage-format.ts, usage-fields.ts): what an exchange used of the contract, records merged
// across workers, and a record read back checked, never read in part.
import { describe, expect, test } from 'vitest';
import { loadContract, type OpenApiDocument } from '../../conformance/contract.ts';
import { usageOf } from '../../conformance/usage-fields.ts';
import { emptyUsage, mergeOperationUsage, mergeUsage, parseUsageRecord, USAGE_VERSION, type UsageRecord } from '../../conformance/usage-format.ts';

const document: OpenApiDocument = {
  openapi: '3.1.0',
  info: { title: 't', version: '1.0.0' },
  paths: {
    '/spaces/{spaceId}': {
      patch: {
        operationId: 'updateSpace',
        parameters: [
          { name: 'spaceId', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'view', in: 'query', schema: { $ref: '#/components/schemas/View' } },
        ],
        requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/SpaceChange' } } } },
        responses: {
          '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Space' } } } },
          '4XX': { description: 'error', content: { 'application/json': { schema: { type: 'object', properties: { code: { type: 'integer' } } } } } },
        },
      },
    },
  },
  components: {
    schemas: {
      View: { type: 'string', enum: ['full', 'short'] },
      Visibility: { type: 'string', enum: ['public', 'private', 'unlisted'] },
      SpaceChange: { type: 'object', properties: { title: { type: 'string' }, visibility: { $ref: '#/components/schemas/Visibility' } } },
      Space: {
        allOf: [{ type: 'object', properties: { id: { type: 'string' }, visibility: { $ref: '#/components/schemas/Visibility' } } }],
        properties: {
          owners: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
          labels: { type: 'object', additionalProperties: { type: 'string' } },
        },
      },
    },
  },
};
const contract = loadContract(document);
const operation = contract.operations.get('updateSpace')!;

const exchange = (visibility: string, view?: string) =>
  usageOf(contract, {
    operation,
    parameters: [{ in: 'path', name: 'spaceId', value: 'abc' }, ...(view ? [{ in: 'query' as const, name: 'view', value: view }] : [])],
    request: { mediaType: 'application/json', body: { title: 'Handbook', visibility } },
    status: 200,
    response: { mediaType: 'application/json', body: { id: 'abc', visibility, owners: [{ name: 'a' }, { name: 'b' }], labels: { team: 'x', area: 'y' } } },
  });

describe('the usage of an exchange', () => {
  test('names the parameters, body fields and response fields it used, with the values of enumerated ones only', () => {
    expect(exchange('public', 'full')).toEqual({
      calls: 1,
      parameters: { 'path.spaceId': {}, 'query.view': { values: ['full'] } },
      body: { '/title': {}, '/visibility': { values: ['public'] } },
      // Where the contract's components are, so that a change of one is placed in what was sent and received.
      bodySchemas: { '': ['SpaceChange'], '/visibility': ['Visibility'] },
      mediaTypes: ['application/json'],
      responses: {
        '200 application/json': {
          present: ['/id', '/labels', '/labels/*', '/owners', '/owners/*', '/owners/*/name', '/visibility'],
          values: { '/visibility': ['public'] },
          schemas: { '': ['Space'], '/visibility': ['Visibility'] },
        },
      },
    });
  });

  test('an answer without a body is its status alone; an error answer is read against its status class', () => {
    const empty = usageOf(contract, { operation, parameters: [], status: 204 });
    expect(empty.responses).toEqual({ '204': { present: [] } });
    const error = usageOf(contract, { operation, parameters: [], status: 404, response: { mediaType: 'application/json', body: { code: 404 } } });
    expect(error.responses).toEqual({ '404 application/json': { present: ['/code'] } });
  });

  test('usages of one operation merge: calls add up, values and fields unite', () => {
    const merged = exchange('public', 'full');
    mergeOperationUsage(merged, exchange('private'));
    expect(merged.calls).toBe(2);
    expect(merged.body['/visibility']).toEqual({ values: ['private', 'public'] });
    expect(merged.responses['200 application/json']!.values).toEqual({ '/visibility': ['private', 'public'] });
  });
});

describe('usage records', () => {
  const record = (name: string, visibility: string, version = '1.0.0'): UsageRecord => {
    const usage = emptyUsage({ name, version: '2.0.0' }, { version }, 'harness');
    usage.operations.updateSpace = exchange(visibility);
    return usage;
  };

  test('records of two workers merge into one; records of two consumers or contract versions do not', () => {
    const merged = mergeUsage(record('billing', 'public'), record('billing', 'private'));
    expect(merged.operations.updateSpace!.calls).toBe(2);
    expect(merged.operations.updateSpace!.body['/visibility']).toEqual({ values: ['private', 'public'] });
    expect(() => mergeUsage(record('billing', 'public'), record('search', 'public'))).toThrow('records of two consumers, billing and search');
    expect(() => mergeUsage(record('billing', 'public'), record('billing', 'public', '2.0.0'))).toThrow('two contract versions');
  });

  test('a record read back is the record written', () => {
    const written = record('billing', 'public');
    expect(parseUsageRecord(JSON.stringify(written), 'consumers/billing.json')).toEqual(written);
  });

  test('a broken file, another format, a newer version or a malformed record is an error naming the source, never a record', () => {
    const text = JSON.stringify(record('billing', 'public'));
    expect(() => parseUsageRecord(text.slice(0, 40), 'consumers/billing.json')).toThrow(/^consumers\/billing\.json: not JSON/);
    expect(() => parseUsageRecord('{"format":"other","version":1}', 'a.json')).toThrow('a.json: not a usage record');
    expect(() => parseUsageRecord(text.replace(`"version":${USAGE_VERSION}`, `"version":${USAGE_VERSION + 1}`), 'https://ci.example/usage.json')).toThrow(
      `https://ci.example/usage.json: written in version ${USAGE_VERSION + 1} of the format; this reads version ${USAGE_VERSION}: upgrade the package that reads it`,
    );
    const malformed = JSON.parse(text) as UsageRecord;
    (malformed.operations.updateSpace as unknown as { calls: string }).calls = 'many';
    delete (malformed as Partial<UsageRecord>).consumer;
    // One line, as a command prints it: the problems, the first five of them.
    expect(() => parseUsageRecord(JSON.stringify(malformed), 'b.json')).toThrow(/^b\.json: not a valid usage record: consumer\.name: missing; operations\.updateSpace\.calls: not a count$/);
    for (const operationId of ['a', 'b', 'c', 'd', 'e']) (malformed.operations as Record<string, unknown>)[operationId] = 'none';
    expect(() => parseUsageRecord(JSON.stringify(malformed), 'b.json')).toThrow(/^b\.json: not a valid usage record: consumer\.name: missing; [^\n]*operations\.c: not an object \(and 2 more\)$/);
  });
});
