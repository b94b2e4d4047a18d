// Usage records (conformance/records/usage-format.ts, usage-fields.ts): what an exchange used of the contract, records merged
// across workers (of different precision: what was seen read, what was assumed read), and a record read back checked,
// never read in part.
import { describe, expect, test } from 'vitest';
import { loadContract, type OpenApiDocument } from '../../conformance/contract/contract.ts';
import { authenticatedBy, usageOf } from '../../conformance/records/usage-fields.ts';
import { emptyOperationUsage, emptyUsage, mergeOperationUsage, mergeUsage, parseUsageRecord, USAGE_VERSION, type UsageRecord } from '../../conformance/records/usage-format.ts';

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
      // The operation by its method and path template, which a record is matched to a contract by.
      method: 'patch',
      path: '/spaces/{spaceId}',
      // Each parameter's and field's facts: its JSON types, its strings' least and most length; never the value.
      parameters: { 'path.spaceId': { types: ['string'], lengths: [3, 3] }, 'query.view': { values: ['full'], types: ['string'], lengths: [4, 4] } },
      body: { '/title': { types: ['string'], lengths: [8, 8] }, '/visibility': { values: ['public'], types: ['string'], lengths: [6, 6] } },
      // Where the contract's components are, so that a change of one is placed in what was sent and received.
      bodySchemas: { '': ['SpaceChange'], '/visibility': ['Visibility'] },
      mediaTypes: ['application/json'],
      responses: {
        '200 application/json': {
          present: ['/id', '/labels', '/labels/*', '/owners', '/owners/*', '/owners/*/name', '/visibility'],
          values: { '/visibility': ['public'] },
          schemas: { '': ['Space'], '/visibility': ['Visibility'] },
          facts: {
            '/id': { types: ['string'], lengths: [3, 3] },
            '/labels': { types: ['object'] },
            '/labels/*': { types: ['string'], lengths: [1, 1] },
            '/owners': { types: ['array'], sizes: [2, 2] },
            '/owners/*': { types: ['object'] },
            '/owners/*/name': { types: ['string'], lengths: [1, 1] },
            '/visibility': { types: ['string'], lengths: [6, 6] },
          },
          // What the contract promised of each field when recorded: nothing here is required, each has its type.
          promised: {
            '/id': { types: ['string'] },
            '/labels': { types: ['object'] },
            '/labels/*': { required: true, types: ['string'] },
            '/owners': { types: ['array'] },
            '/owners/*': { required: true, types: ['object'] },
            '/owners/*/name': { types: ['string'] },
            '/visibility': { types: ['string'] },
          },
        },
      },
    });
  });

  test('numbers, sizes and null are kept as their least and most, and which security scheme the request authenticated with', () => {
    const numbers: OpenApiDocument = {
      openapi: '3.1.0',
      info: { title: 't', version: '1.0.0' },
      security: [{ Bearer: [] }, { Key: [] }],
      paths: {
        '/things': {
          post: {
            operationId: 'addThing',
            parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer', default: 20 } }, { name: 'page', in: 'query', schema: { type: 'integer', default: 1 } }],
            requestBody: { content: { 'application/json': { schema: { type: 'object', properties: { size: { type: 'number' }, tags: { type: 'array', items: { type: 'string' } }, note: { type: ['string', 'null'] } } } } } },
            responses: { '201': { description: 'ok', headers: { Location: { required: true, schema: { type: 'string' } } }, content: { 'application/json': { schema: { type: 'object', required: ['size'], properties: { size: { type: 'integer', minimum: 0, maximum: 10 } } } } } } },
          },
        },
      },
      components: { securitySchemes: { Bearer: { type: 'http', scheme: 'bearer' }, Key: { type: 'apiKey', in: 'header', name: 'X-Key' } } },
    };
    const things = loadContract(numbers);
    const add = things.operations.get('addThing')!;
    const sent = (size: number, tags: string[], note: string | null, limit: string) =>
      usageOf(things, {
        operation: add,
        parameters: [{ in: 'query', name: 'limit', value: [limit] }],
        request: { mediaType: 'application/json', body: { size, tags, note } },
        status: 201,
        response: { mediaType: 'application/json', body: { size: 3 } },
        security: authenticatedBy(things, add, { headers: { 'x-key': 'secret' } }),
        responseHeaders: ['Location', 'X-Other'],
      });
    const usage = sent(2.5, ['a'], null, '10');
    mergeOperationUsage(usage, sent(7, ['a', 'bb', 'ccc'], 'hello', '30'));
    expect(usage.security).toEqual(['Key']);
    // A parameter's facts are of what its schema reads: an integer, not the text `10`.
    expect(usage.parameters['query.limit']).toEqual({ types: ['integer'], numbers: [10, 30] });
    // The default of the parameter it leaves out, which it relies on (the contract's, not the consumer's).
    expect(usage.defaults).toEqual({ 'query.page': 1 });
    expect(usage.body['/size']).toEqual({ types: ['integer', 'number'], numbers: [2.5, 7] });
    expect(usage.body['/tags']).toEqual({ types: ['array'], sizes: [1, 3] });
    expect(usage.body['/tags/*']).toEqual({ types: ['string'], lengths: [1, 3] });
    expect(usage.body['/note']).toEqual({ types: ['null', 'string'], lengths: [5, 5] });
    const answer = usage.responses['201 application/json']!;
    expect(answer.promised).toEqual({ '/size': { required: true, types: ['integer'], minimum: 0, maximum: 10 } });
    // Only the declared headers received are kept, and which of them were required.
    expect([answer.headers, answer.requiredHeaders]).toEqual([['location'], ['location']]);
    // No value that is not an enumeration's is kept anywhere.
    expect(JSON.stringify(usage)).not.toMatch(/hello|secret|"bb"|ccc/);
  });

  test('an answer without a body is its status alone; an error answer is read against its status class', () => {
    const empty = usageOf(contract, { operation, parameters: [], status: 204 });
    expect(empty.responses).toEqual({ '204': { present: [] } });
    const error = usageOf(contract, { operation, parameters: [], status: 404, response: { mediaType: 'application/json', body: { code: 404 } } });
    expect(error.responses).toEqual({ '404 application/json': { present: ['/code'], facts: { '/code': { types: ['integer'], numbers: [404, 404] } }, promised: { '/code': { types: ['integer'] } } } });
  });

  test('usages of one operation merge: calls add up, values and fields unite', () => {
    const merged = exchange('public', 'full');
    mergeOperationUsage(merged, exchange('private'));
    expect(merged.calls).toBe(2);
    expect(merged.body['/visibility']).toEqual({ values: ['private', 'public'], types: ['string'], lengths: [6, 7] });
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
    expect(merged.operations.updateSpace!.body['/visibility']).toEqual({ values: ['private', 'public'], types: ['string'], lengths: [6, 7] });
    expect(() => mergeUsage(record('billing', 'public'), record('search', 'public'))).toThrow('records of two consumers, billing and search');
    expect(() => mergeUsage(record('billing', 'public'), record('billing', 'public', '2.0.0'))).toThrow('two contract versions');
  });

  test('a version-1 record is read as it is; merged with a version-2 record, the merge is version 1, holding facts of part of the use only', () => {
    const old = record('billing', 'public');
    old.version = 1;
    for (const usage of Object.values(old.operations)) {
      for (const used of [...Object.values(usage.parameters), ...Object.values(usage.body)]) for (const key of ['types', 'lengths', 'numbers', 'sizes'] as const) delete used[key];
      for (const key of ['method', 'path', 'security', 'defaults'] as const) delete usage[key];
      for (const answer of Object.values(usage.responses)) for (const key of ['facts', 'promised', 'headers', 'requiredHeaders'] as const) delete answer[key];
    }
    expect(parseUsageRecord(JSON.stringify(old), 'old.json')).toEqual(old);
    const merged = mergeUsage(record('billing', 'private'), old);
    expect(merged.version).toBe(1);
    expect(merged.operations.updateSpace!.body['/visibility']).toEqual({ values: ['private', 'public'], types: ['string'], lengths: [7, 7] });
    expect(() => parseUsageRecord(JSON.stringify({ ...old, version: 0 }), 'older.json')).toThrow('older.json: written in version 0 of the format, which is no longer read: record it again');
  });

  test("records of different precision: what the code was seen reading and what calls without recorded reads received, kept by every merge", () => {
    const present = ['/id', '/labels', '/labels/*', '/owners', '/owners/*', '/owners/*/name', '/visibility'];
    const reading = (read: string[]) => {
      const client = record('billing', 'public');
      client.recordedBy = ['client'];
      client.operations.updateSpace!.responses['200 application/json']!.read = read;
      return client;
    };
    const harness = record('billing', 'public');
    const answerOf = (merged: UsageRecord) => merged.operations.updateSpace!.responses['200 application/json']!;
    const reads = (merged: UsageRecord) => ({ read: answerOf(merged).read, assumedRead: answerOf(merged).assumedRead });
    // The harness's calls relied on every field they received, so the merge does; what only they received is assumed read.
    const assumed = present.filter((pointer) => pointer !== '/id');
    expect(reads(mergeUsage(reading(['/id']), harness))).toEqual({ read: present, assumedRead: assumed });
    expect(reads(mergeUsage(harness, reading(['/id'])))).toEqual({ read: present, assumedRead: assumed });
    // Merged again: a field a client's call was seen reading is no longer assumed; the record still says some calls' reads were unknown.
    const again = mergeUsage(mergeUsage(reading(['/id']), harness), reading(['/visibility']));
    expect(reads(again)).toEqual({ read: present, assumedRead: assumed.filter((pointer) => pointer !== '/visibility') });
    expect(reads(mergeUsage(reading(['/id']), mergeUsage(harness, reading(['/visibility']))))).toEqual(reads(again));
    expect(reads(mergeUsage(reading(present), harness))).toEqual({ read: present, assumedRead: [] });
    // Of one precision: every call's reads recorded, or none's.
    expect(reads(mergeUsage(reading(['/id']), reading(['/owners'])))).toEqual({ read: ['/id', '/owners'], assumedRead: undefined });
    expect(reads(mergeUsage(harness, record('billing', 'private')))).toEqual({ read: undefined, assumedRead: undefined });
    const fresh = emptyOperationUsage();
    mergeOperationUsage(fresh, reading(['/id']).operations.updateSpace!);
    expect(fresh.responses['200 application/json']).toMatchObject({ read: ['/id'] });
    expect(fresh.responses['200 application/json']).not.toHaveProperty('assumedRead');
    // Read back as written; a list that is not of pointers is no record.
    expect(parseUsageRecord(JSON.stringify(again), 'merged.json')).toEqual(again);
    const malformed = JSON.parse(JSON.stringify(again)) as { operations: { updateSpace: { responses: Record<string, { assumedRead: unknown }> } } };
    malformed.operations.updateSpace.responses['200 application/json']!.assumedRead = 'all';
    expect(() => parseUsageRecord(JSON.stringify(malformed), 'merged.json')).toThrow("merged.json: not a valid usage record: operations.updateSpace.responses.200 application/json: not a response's use");
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
