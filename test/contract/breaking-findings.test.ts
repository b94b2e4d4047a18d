// The kinds of change that real API histories make and that the gate once judged wrong, each on the smallest pair of
// documents that shows it: a schema removed while an unrelated one is added, unions nested in unions, one set of
// values spelled another way, constraints that move in a direction, values that print alike, a body that
// specified nothing, an alternative an answer no longer carries. What every rule gives on its own is in
// breaking-rules.test.ts.
import { describe, expect, test } from 'vitest';
import { compareDocuments, evaluateGate, formatReport, type Finding } from '../../breaking/index.ts';
import { declarationFor } from '../../breaking/gate.ts';

type Doc = Record<string, unknown>;

function doc(paths: Record<string, unknown>, schemas: Record<string, unknown> = {}, openapi = '3.1.0'): Doc {
  return { openapi, info: { title: 'Things', version: '1.0.0' }, paths, components: { schemas } };
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: unknown) => ({ 'application/json': { schema } });

/** `schema` sent by POST /things and answered by GET /things. */
function both(schema: unknown, schemas: Record<string, unknown> = {}, openapi?: string): Doc {
  return doc(
    {
      '/things': {
        get: { operationId: 'getThing', responses: { '200': { description: 'OK.', content: json(schema) } } },
        post: { operationId: 'createThing', requestBody: { required: true, content: json(schema) }, responses: { '204': { description: 'Done.' } } },
      },
    },
    schemas,
    openapi,
  );
}

/** An object with one property `field` of `schema`, sent and answered. */
const field = (schema: unknown, schemas: Record<string, unknown> = {}) => both({ type: 'object', properties: { field: schema } }, schemas);

const summary = (findings: Finding[]) => findings.map((finding) => [finding.rule, finding.severity, finding.message]);

describe('renames: only two schemas of the same shape', () => {
  const removedAndAdded = (openapi: string, was: unknown, now: unknown) =>
    compareDocuments(both({ type: 'string' }, { Location: was }, openapi), both({ type: 'string' }, { Protection: now }, openapi));

  test.each(['3.0.3', '3.1.0'])('OpenAPI %s: an object removed while a string is added is a removal, not a rename', (openapi) => {
    const findings = removedAndAdded(openapi, { type: 'object', properties: { path: { type: 'string' } } }, { type: 'string' });
    expect(summary(findings)).toEqual([['schema-removed', 'breaking-source', 'schema `Location` removed; no operation uses it']]);
  });

  test.each(['3.0.3', '3.1.0'])('OpenAPI %s: two unrelated objects, used by no operation, are a removal', (openapi) => {
    const findings = removedAndAdded(
      openapi,
      { type: 'object', properties: { path: { type: 'string' }, line: { type: 'integer' } } },
      { type: 'object', properties: { id: { type: 'integer' }, pattern: { type: 'string' } }, required: ['pattern'] },
    );
    expect(findings.map((finding) => finding.rule)).toEqual(['schema-removed']);
  });

  test('the same shape under a new name, used by no operation, is still a rename', () => {
    const shape = { type: 'object', properties: { path: { type: 'string' } } };
    const findings = removedAndAdded('3.0.3', shape, structuredClone(shape));
    expect(summary(findings)).toEqual([['schema-renamed', 'breaking-source', 'schema `Location` renamed `Protection` (the same shape); no operation uses it']]);
  });
});

describe('unions: compared by the alternatives they accept, nested unions included', () => {
  const tagged = (kind: string) => ({ type: 'object', required: ['kind'], properties: { kind: { type: 'string', enum: [kind] } } });
  const pets = { Cat: tagged('cat'), Dog: tagged('dog'), Pet: { oneOf: [ref('Cat'), ref('Dog')], discriminator: { propertyName: 'kind' } } };

  test('anyOf [string, a discriminated union, null] → anyOf [the union, null]: the string alternative removed, and nothing else', () => {
    const findings = compareDocuments(field({ anyOf: [{ type: 'string' }, ref('Pet'), { type: 'null' }] }, pets), field({ anyOf: [ref('Pet'), { type: 'null' }] }, pets));
    expect(findings.map((finding) => [finding.rule, finding.severity, finding.path, finding.message])).toEqual([
      ['request-property-variant-removed', 'breaking-client', '#/paths/~1things/post/requestBody/content/application~1json/schema/properties/field', '`field`: alternative string removed'],
      ['response-property-variant-removed', 'breaking-implementation', '#/paths/~1things/get/responses/200/content/application~1json/schema/properties/field', '`field`: alternative string removed'],
    ]);
  });

  test('a union nested in a union is its alternatives: written flat, or inline instead of behind a $ref, it is no change', () => {
    const nested = field({ anyOf: [{ type: 'string' }, ref('Pet')] }, pets);
    expect(compareDocuments(nested, field({ anyOf: [{ type: 'string' }, ref('Cat'), ref('Dog')] }, pets))).toEqual([]);
    expect(compareDocuments(nested, field({ anyOf: [{ type: 'string' }, { oneOf: [ref('Cat'), ref('Dog')] }] }, pets))).toEqual([]);
  });

  test('a member added to the nested union is one new tag, found where the union changed', () => {
    const more = { ...pets, Bird: tagged('bird'), Pet: { oneOf: [ref('Cat'), ref('Dog'), ref('Bird')], discriminator: { propertyName: 'kind' } } };
    const findings = compareDocuments(field({ anyOf: [{ type: 'string' }, ref('Pet')] }, pets), field({ anyOf: [{ type: 'string' }, ref('Pet')] }, more));
    expect(findings.map((finding) => [finding.rule, finding.path])).toEqual([
      ['response-property-variant-added', '#/components/schemas/Pet/oneOf/2'],
      ['request-property-variant-added', '#/components/schemas/Pet/oneOf/2'],
    ]);
  });
});

describe('alternatives merged or split', () => {
  const labels = (items: unknown) => ({ type: 'object', properties: { labels: { type: 'array', items } } });
  const named = { type: 'object', required: ['name'], properties: { name: { type: 'string' } } };

  test('two alternatives merged into one that accepts both: nothing removed; what the merged one accepts besides is new', () => {
    const findings = compareDocuments(both({ oneOf: [labels({ type: 'string' }), labels(named)] }), both(labels({ oneOf: [{ type: 'string' }, named] })));
    expect(findings.map((finding) => [finding.rule, finding.severity, finding.message])).toEqual([
      ['response-property-variant-added', 'breaking-client', '`labels[]`: new alternative object'],
      ['request-property-variant-added', 'breaking-implementation', '`labels[]`: new alternative object'],
    ]);
  });

  test('alternatives of two types written as one type list: no change', () => {
    expect(compareDocuments(field({ anyOf: [{ type: 'string' }, { type: 'integer' }] }), field({ type: ['string', 'integer'] }))).toEqual([]);
    expect(compareDocuments(field({ type: ['string', 'integer'] }), field({ anyOf: [{ type: 'string' }, { type: 'integer' }] }))).toEqual([]);
  });
});

describe('a union added as one alternative of another', () => {
  test('is one alternative added, named as written, not each of its own', () => {
    const composed = { oneOf: [{ type: 'object', required: ['color'], properties: { color: { type: 'string' } } }, { type: 'object', required: ['alias'], properties: { alias: { type: 'string' } } }] };
    const findings = compareDocuments(field({ oneOf: [{ type: 'string' }, { type: 'number' }] }, { Composed: composed }), field({ oneOf: [{ type: 'string' }, { type: 'number' }, ref('Composed')] }, { Composed: composed }));
    expect(findings.map((finding) => [finding.rule, finding.path, finding.message])).toEqual([
      ['response-property-variant-added', '#/paths/~1things/get/responses/200/content/application~1json/schema/properties/field/oneOf/2', '`field`: new alternative `Composed`'],
      ['request-property-variant-added', '#/paths/~1things/post/requestBody/content/application~1json/schema/properties/field/oneOf/2', '`field`: new alternative `Composed`'],
    ]);
  });
});

describe('one set of values, spelled another way, is no change', () => {
  test('enum [a, b] is oneOf [{const: a}, {const: b}], and oneOf of one-value enums', () => {
    const plain = field({ type: 'string', enum: ['a', 'b'] });
    expect(compareDocuments(plain, field({ oneOf: [{ type: 'string', const: 'a', description: 'A.' }, { type: 'string', const: 'b' }] }))).toEqual([]);
    expect(compareDocuments(plain, field({ anyOf: [{ enum: ['b'] }, { type: 'string', enum: ['a'] }] }))).toEqual([]);
  });

  test('a value added in the other spelling is one value added, once per direction', () => {
    const findings = compareDocuments(field({ type: 'string', enum: ['a', 'b'] }), field({ oneOf: [{ const: 'a' }, { const: 'b' }, { const: 'c' }] }));
    expect(summary(findings)).toEqual([
      ['request-property-enum-value-added', 'breaking-implementation', '`field`: new value "c"'],
      ['response-property-enum-value-added', 'warning', '`field`: new value "c"'],
    ]);
  });

  test('values added to an enum beside a string that accepts any: no change; the enum beside it is none either', () => {
    const open = (values: string[]) => field({ anyOf: [{ type: 'string' }, { type: 'string', enum: values }] });
    expect(compareDocuments(open(['a', 'b']), open(['a', 'b', 'c', 'd']))).toEqual([]);
    expect(compareDocuments(field({ type: 'string' }), open(['a']))).toEqual([]);
    // Taking the string away leaves only the values: the values that were not listed are no longer accepted.
    expect(summary(compareDocuments(open(['a']), field({ type: 'string', enum: ['a'] })))).toEqual([
      ['request-property-enum-introduced', 'breaking-client', '`field`: now one of "a"'],
      ['response-property-enum-introduced', 'breaking-implementation', '`field`: now one of "a"'],
    ]);
  });

  test('values of several types listed in several alternatives are one list of values', () => {
    const split = field({ oneOf: [{ type: 'string', enum: ['auto'] }, { type: 'integer', enum: [1, 2] }] });
    expect(compareDocuments(split, field({ enum: ['auto', 1, 2] }))).toEqual([]);
  });
});

describe('constraints by direction, values printed as JSON', () => {
  test('maxProperties raised: requests accept more (breaks no client), answers may carry more (breaks clients)', () => {
    const object = (maxProperties: number) => both({ type: 'object', maxProperties, additionalProperties: { type: 'string' } });
    expect(summary(compareDocuments(object(10), object(25)))).toEqual([
      ['response-property-constraint-loosened', 'breaking-client', '`response body`: maxProperties 10 → 25'],
      ['request-property-constraint-loosened', 'breaking-implementation', '`request body`: maxProperties 10 → 25'],
    ]);
    expect(summary(compareDocuments(object(25), object(10)))).toEqual([
      ['request-property-constraint-tightened', 'breaking-client', '`request body`: maxProperties 25 → 10'],
      ['response-property-constraint-tightened', 'breaking-implementation', '`response body`: maxProperties 25 → 10'],
    ]);
  });

  test('minProperties, uniqueItems and multipleOf by the values they accept; minProperties 0 is none', () => {
    const object = (more: Record<string, unknown>) => both({ type: 'object', additionalProperties: { type: 'string' }, ...more });
    expect(compareDocuments(object({}), object({ minProperties: 0 }))).toEqual([]);
    expect(compareDocuments(object({ minProperties: 2 }), object({ minProperties: 1 })).map((finding) => finding.rule)).toEqual([
      'response-property-constraint-loosened',
      'request-property-constraint-loosened',
    ]);
    const list = (more: Record<string, unknown>) => both({ type: 'array', items: { type: 'integer', ...more } });
    expect(compareDocuments(list({ multipleOf: 2 }), list({ multipleOf: 4 })).map((finding) => [finding.rule, finding.detail])).toEqual([
      ['request-property-constraint-tightened', 'multipleOf 2 → 4'],
      ['response-property-constraint-tightened', 'multipleOf 2 → 4'],
    ]);
    expect(compareDocuments(list({ multipleOf: 2 }), list({ multipleOf: 3 })).map((finding) => finding.rule)).toEqual([
      'response-property-constraint-changed',
      'request-property-constraint-changed',
    ]);
  });

  test('a boolean default that becomes a string, and an empty default removed, print as the JSON they are', () => {
    expect(compareDocuments(field({ default: true }), field({ default: 'true' })).map((finding) => finding.message)).toEqual([
      '`field`: default true → "true"',
      '`field`: default true → "true"',
    ]);
    expect(compareDocuments(field({ type: 'string', default: '' }), field({ type: 'string' })).map((finding) => finding.message)).toEqual([
      '`field`: default "" → none',
      '`field`: default "" → none',
    ]);
  });

  test('a change in the items of a body that is an array is named from the body, not `[]`', () => {
    const items = (alternatives: unknown[]) => both({ type: 'array', items: { anyOf: alternatives } });
    const findings = compareDocuments(items([{ type: 'string' }, { type: 'integer' }]), items([{ type: 'string' }, { type: 'integer' }, { type: 'boolean' }]));
    expect(findings.map((finding) => finding.message)).toEqual(['`response body[]`: new alternative boolean', '`request body[]`: new alternative boolean']);
  });
});

describe('path parameters', () => {
  const comment = (parameters?: unknown[]) =>
    doc({ '/comments/{id}': { get: { operationId: 'getComment', ...(parameters ? { parameters } : {}), responses: { '204': { description: 'Done.' } } } } });

  test('a name of the path template declared where it was not is no change: every client sent it, as a string', () => {
    expect(compareDocuments(comment(), comment([{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }]))).toEqual([]);
  });

  test('declared with more than a string says so', () => {
    const findings = compareDocuments(comment(), comment([{ name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } }]));
    expect(findings.map((finding) => [finding.rule, finding.message])).toEqual([['request-parameter-format-added', '`id`: format none → uuid']]);
  });
});

describe('query parameters that become arrays', () => {
  test('explode set where only strings were sent is no change of serialisation; the array is a new alternative', () => {
    const meta = (parameter: Record<string, unknown>) =>
      doc({ '/things': { get: { operationId: 'listThings', parameters: [{ name: 'meta', in: 'query', ...parameter }], responses: { '204': { description: 'Done.' } } } } });
    const findings = compareDocuments(
      meta({ schema: { type: 'string' } }),
      meta({ style: 'form', explode: false, schema: { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] } }),
    );
    expect(findings.map((finding) => [finding.rule, finding.message])).toEqual([['request-parameter-variant-added', '`meta`: new alternative array']]);
  });
});

describe('format int64 on integers', () => {
  test('set or removed, it restricts no integer exchanged in JSON: no change; int32 does', () => {
    const id = (format?: string) => field({ type: 'integer', ...(format ? { format } : {}) });
    expect(compareDocuments(id(), id('int64'))).toEqual([]);
    expect(compareDocuments(id('int64'), id())).toEqual([]);
    expect(compareDocuments(id(), id('int32')).map((finding) => finding.rule)).toEqual(['request-property-format-added', 'response-property-format-added']);
  });
});

describe('request bodies that specified nothing', () => {
  const withBody = (method: string, requestBody?: unknown) =>
    doc({ '/things': { [method]: { operationId: 'things', ...(requestBody ? { requestBody } : {}), responses: { '204': { description: 'Done.' } } } } });

  test('an optional body without a schema removed from a GET breaks no one', () => {
    const findings = compareDocuments(withBody('get', { content: { 'application/json': {} } }), withBody('get'));
    expect(summary(findings)).toEqual([['request-body-removed-unspecified', 'non-breaking', 'an optional body without a schema is no longer declared']]);
  });

  test('a body with a schema, a required one, or one on POST, removed, is still a body clients send', () => {
    const cases: [string, unknown][] = [
      ['get', { content: json({ type: 'object' }) }],
      ['get', { required: true, content: { 'application/json': {} } }],
      ['post', { content: { 'application/json': {} } }],
    ];
    for (const [method, body] of cases) expect(compareDocuments(withBody(method, body), withBody(method)).map((finding) => finding.rule)).toEqual(['request-body-removed']);
  });
});

describe('an alternative an answer no longer carries breaks implementations only', () => {
  const tagged = (kind: string) => ({ type: 'object', required: ['kind'], properties: { kind: { type: 'string', enum: [kind] } } });
  const answer = (schema: unknown, schemas: Record<string, unknown> = {}) =>
    doc({ '/things': { get: { operationId: 'getThing', responses: { '200': { description: 'OK.', content: json(schema) } } } } }, schemas);
  const pets = { Cat: tagged('cat'), Dog: tagged('dog') };

  test.each([
    ['tagged members', answer({ anyOf: [ref('Cat'), ref('Dog')] }, pets), answer({ anyOf: [ref('Cat')] }, pets)],
    ['tagged members, three to two', answer({ anyOf: [ref('Cat'), ref('Dog'), tagged('bird')] }, pets), answer({ anyOf: [ref('Cat'), ref('Dog')] }, pets)],
    ['plain alternatives', answer({ anyOf: [{ type: 'string' }, { type: 'integer' }] }), answer({ anyOf: [{ type: 'string' }] })],
  ])('%s: passes --fail-on client, fails by default', (_, before, after) => {
    const findings = compareDocuments(before, after);
    expect(findings.map((finding) => finding.severity)).toEqual(['breaking-implementation']);
    expect(evaluateGate(findings, { failOn: 'client' }).passed).toBe(true);
    expect(evaluateGate(findings).passed).toBe(false);
  });
});

describe('one change, one finding', () => {
  test('values added to and removed from one enum: one finding per direction, listing the values', () => {
    const findings = compareDocuments(field({ type: 'string', enum: ['a', 'b', 'c'] }), field({ type: 'string', enum: ['a', 'd', 'e', 'f'] }));
    expect(findings.map((finding) => [finding.rule, finding.message, finding.values])).toEqual([
      ['request-property-enum-value-removed', '`field`: values "b", "c" removed', ['b', 'c']],
      ['response-property-enum-value-removed', '`field`: values "b", "c" removed', ['b', 'c']],
      ['request-property-enum-value-added', '`field`: new values "d", "e", "f"', ['d', 'e', 'f']],
      ['response-property-enum-value-added', '`field`: new values "d", "e", "f"', ['d', 'e', 'f']],
    ]);
  });
});

describe('the text report of a release with hundreds of findings fits a screen per rule', () => {
  /** `count` operations, each answering an inline object with these properties. */
  const operations = (count: number, properties: Record<string, unknown>) =>
    doc(
      Object.fromEntries(
        Array.from({ length: count }, (_, index) => [
          `/things${index}`,
          { get: { operationId: `getThing${index}`, tags: [index % 2 ? 'Odd' : 'Even'], responses: { '200': { description: 'OK.', content: json({ type: 'object', properties }) } } } },
        ]),
      ),
    );
  const report = (base: Doc, revision: Doc) => {
    const verdict = evaluateGate(compareDocuments(base, revision), { baseVersion: '1.0.0', revisionVersion: '1.1.0' });
    return { verdict, text: formatReport(verdict, { subject: 'the revision against the release', declarationsFile: 'breaking-changes.yaml' }) };
  };

  test('the same breaking change repeated in 40 operations is one entry, its operations counted by tag; what to do said once', () => {
    const { verdict, text } = report(operations(40, { name: { type: 'string' }, nickname: { type: 'string' } }), operations(40, { name: { type: 'string' } }));
    expect(verdict.undeclared).toHaveLength(40);
    const lines = text.split('\n');
    expect(lines.filter((line) => line.startsWith('  BREAKING') && line.includes('response-property-removed'))).toEqual([
      '  BREAKING (client) response-property-removed  40 operations: Even (20), Odd (20)  `nickname`: removed',
    ]);
    expect(lines.filter((line) => line.includes('To do: Stop reading the field.'))).toHaveLength(1);
  });

  test('past 15 findings of one rule, the rest are counted; the declarations to add follow the findings shown', () => {
    const fields = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, index) => [`field${index}`, { type: 'string', maxLength: 10 + index }]));
    const tighter = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, index) => [`field${index}`, { type: 'string', maxLength: 5 }]));
    const post = (properties: Record<string, unknown>) =>
      doc({ '/things': { post: { operationId: 'createThing', requestBody: { required: true, content: json({ type: 'object', properties }) }, responses: { '204': { description: 'Done.' } } } } });
    const { verdict, text } = report(post(fields(40)), post(tighter(40)));
    expect(verdict.undeclared).toHaveLength(40);
    const lines = text.split('\n');
    expect(lines.filter((line) => line.startsWith('  BREAKING (client) request-property-max-length-decreased  createThing'))).toHaveLength(15);
    expect(lines).toContain('  BREAKING (client) request-property-max-length-decreased: 25 more findings in 1 operation or component');
    expect(lines.filter((line) => line === '- rule: request-property-max-length-decreased')).toHaveLength(15);
  });

  test('what fails comes first; the declared changes follow the others, one line per rule and reason, counted', () => {
    // 12 operations lose `nickname` (declared, one reason), 3 lose `email` (declared, another reason); createThing's
    // title gets shorter (undeclared); `status` gains a value (a warning).
    const thing = (nickname: boolean, email: boolean, status: string[]) => ({
      type: 'object',
      properties: { name: { type: 'string' }, ...(nickname ? { nickname: { type: 'string' } } : {}), ...(email ? { email: { type: 'string' } } : {}), status: { type: 'string', enum: status } },
    });
    const documents = (revision: boolean) =>
      doc({
        ...Object.fromEntries(
          Array.from({ length: 12 }, (_, index) => [
            `/things${index}`,
            { get: { operationId: `getThing${index}`, tags: ['Things'], responses: { '200': { description: 'OK.', content: json(thing(!revision, !revision || index >= 3, ['a'])) } } } },
          ]),
        ),
        '/things': {
          post: { operationId: 'createThing', requestBody: { required: true, content: json({ type: 'object', properties: { title: { type: 'string', maxLength: revision ? 50 : 100 } } }) }, responses: { '204': { description: 'Done.' } } },
          get: { operationId: 'listThings', responses: { '200': { description: 'OK.', content: json(thing(true, true, revision ? ['a', 'b'] : ['a'])) } } },
        },
      });
    const findings = compareDocuments(documents(false), documents(true));
    const removed = findings.filter((finding) => finding.rule === 'response-property-removed');
    expect(removed).toHaveLength(15);
    const reason = (finding: Finding) => (finding.message.includes('nickname') ? 'Nobody read the nickname.' : 'The email moved to the profile.');
    const declarations = removed.map((finding) => ({ ...declarationFor(finding), reason: reason(finding) }));
    const verdict = evaluateGate(findings, { baseVersion: '1.0.0', revisionVersion: '1.1.0', declarations });
    expect(verdict.undeclared.map((finding) => finding.rule)).toEqual(['request-property-max-length-decreased']);
    const lines = formatReport(verdict, { subject: 'the revision against the release', declarationsFile: 'breaking-changes.yaml' }).split('\n');
    const index = (start: string) => lines.findIndex((line) => line.startsWith(start));
    // Headings in this order: the failing one, the others, the declared ones.
    const order = ['BREAKING, undeclared: 1 change the gate fails on', 'Other differences, none failing the gate: 1', 'declared in breaking-changes.yaml: 15 changes, by rule and reason', 'check:breaking: FAILED'].map(index);
    expect(order.every((at) => at > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(lines[order[0]! + 3]).toMatch(/^ {2}BREAKING \(client\) request-property-max-length-decreased {2}createThing/);
    expect(lines.slice(order[1]!, order[2]!).some((line) => line.startsWith('  WARNING response-property-enum-value-added  listThings'))).toBe(true);
    // Two lines for the declared changes, each with its reason once; none of them listed one by one.
    expect(lines.slice(order[2]! + 1, order[3]! - 1)).toEqual([
      '  response-property-removed (breaks clients in use): 3 findings  getThing0, getThing1, getThing2  `email`: removed',
      '      declared: The email moved to the profile.',
      '  response-property-removed (breaks clients in use): 12 findings  12 operations: Things (12)  `nickname`: removed',
      '      declared: Nobody read the nickname.',
    ]);
    expect(lines.filter((line) => line.includes('response-property-removed'))).toHaveLength(2);
  });

  test('findings at one place take one declaration', () => {
    const object = (more: Record<string, unknown>) => both({ type: 'object', additionalProperties: { type: 'string' }, ...more });
    const { verdict, text } = report(object({}), object({ not: { required: ['a'] }, propertyNames: { pattern: '^[a-z]+$' } }));
    expect(verdict.undeclared.filter((finding) => finding.rule === 'request-property-constraint-changed')).toHaveLength(2);
    expect(text.split('\n').filter((line) => line === '- rule: request-property-constraint-changed')).toHaveLength(1);
  });
});
