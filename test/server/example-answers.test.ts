// Answers from the contract (server/http/example-answers.ts): an operation the server does not implement is answered
// with its example (or a value made from its schema) after every check any request passes, with the header
// x-contract-answer, touching no database; the rest of the server is served as always. The server says which at start
// (its log, /health, the served contract and /docs); without the setting it refuses to start. The values made from
// schemas are valid against them, formats and patterns included, and the same every time.
import type { ErrorObject } from 'ajv';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, expect, test } from 'vitest';
import { createLogger } from '../../server/http/access-log.ts';
import { contractOperations, loadContract, type OpenApiDocument, parseContractYaml } from '../../server/http/contract.ts';
import {
  CONTRACT_ANSWER_EXTENSION,
  CONTRACT_ANSWER_HEADER,
  contractAnswer,
  operationExamples,
  schemaValue,
} from '../../server/http/example-answers.ts';
import type { HandlerTable } from '../../server/handlers/types.ts';
import type { RunningServer } from '../../server/start/server.ts';
import { startDocsServer } from '../../server/testing/index.ts';
import { ACME } from '../support/fixture.ts';
import { expectError, ok } from '../support/expect.ts';
import { startTestServer, useTestServer } from '../support/server.ts';

const Ajv2020 = Ajv2020Module.default;
const addFormats = addFormatsModule.default;

const contract = loadContract();
const operations = contractOperations(contract);
const operation = (id: string) => operations.find((candidate) => candidate.operationId === id)!;

/** The operations the server below does not implement: one read, one write, one without a body. */
const NOT_IMPLEMENTED = ['getTeam', 'createTeam', 'deleteTeam'] as const;

/** The handler table without the handlers of `ids`. */
const without =
  (...ids: string[]) =>
  (_ctx: unknown, table: HandlerTable): HandlerTable =>
    Object.fromEntries(Object.entries(table).filter(([id]) => !ids.includes(id))) as HandlerTable;

const logged: Record<string, unknown>[] = [];
const operationsSeen: string[] = [];
const ctx = useTestServer({
  handlers: without(...NOT_IMPLEMENTED),
  recordCoverage: false,
  onOperation: (operationId) => operationsSeen.push(operationId),
  log: createLogger({ logLevel: 'warn', logFormat: 'json' }, { write: (line: string) => logged.push(JSON.parse(line) as Record<string, unknown>) }),
});

const admin = () => ctx.server.as('admin');
const team = { params: { path: { organizationId: ACME, teamId: 'no-such-team' } } };

describe('an operation without a handler', () => {
  test("is answered with its success status and its example's answer (or its schema's value), marked x-contract-answer", async () => {
    const expected = contractAnswer(contract, operation('getTeam'));
    const answer = await admin().GET('/v1/orgs/{organizationId}/teams/{teamId}', team);
    expect(answer.response.status).toBe(200);
    expect(answer.response.headers.get(CONTRACT_ANSWER_HEADER)).toBe(expected.source);
    const examples = operationExamples(contract, operation('getTeam')).filter((example) => 'response' in example);
    expect(answer.data).toEqual(examples.length > 0 ? examples[0]!.response : schemaValue(contract, contract.paths['/v1/orgs/{organizationId}/teams/{teamId}']!.get.responses['200'].content['application/json'].schema));
    // The same every time.
    expect((await admin().GET('/v1/orgs/{organizationId}/teams/{teamId}', team)).data).toEqual(answer.data);
    const head = await fetch(`${ctx.server.url}/v1/orgs/${ACME}/teams/x`, { method: 'HEAD', headers: { authorization: 'Bearer admin' } });
    expect([head.status, head.headers.get(CONTRACT_ANSWER_HEADER)]).toEqual([200, expected.source]);
  });

  test('a 204 answers without a body', async () => {
    const answer = await admin().DELETE('/v1/orgs/{organizationId}/teams/{teamId}', team);
    expect(answer.response.status).toBe(204);
    expect(answer.response.headers.get(CONTRACT_ANSWER_HEADER)).toMatch(/^(example|schema)$/);
    expect(await answer.response.text()).toBe('');
  });

  test('passes every check a request passes first: the token, the parameters, the body', async () => {
    expectError(await ctx.server.as('anonymous').GET('/v1/orgs/{organizationId}/teams/{teamId}', team), 401);
    expectError(await ctx.server.as('no-such-token').GET('/v1/orgs/{organizationId}/teams/{teamId}', team), 401);
    expectError(await admin().GET('/v1/orgs/{organizationId}/teams/{teamId}', { params: { path: { organizationId: ACME, teamId: 'x'.repeat(129) } } }), 400, 'teamId');
    // @ts-expect-error a field the body does not have
    expectError(await admin().PUT('/v1/orgs/{organizationId}/teams', { params: { path: { organizationId: ACME } }, body: { title: 'Writers', colour: 'red' } }), 400, 'colour');
    expectError(await admin().PUT('/v1/orgs/{organizationId}/teams', { params: { path: { organizationId: ACME } }, body: { title: '' } }), 400, 'title');
    const refused = await admin().GET('/v1/orgs/{organizationId}/teams/{teamId}', team);
    expect(refused.response.status).toBe(200);
  });

  test('writes nothing: the team it answers it created is not there', async () => {
    const before = ok(await admin().GET('/v1/orgs/{organizationId}/teams', { params: { path: { organizationId: ACME } } }));
    const created = await admin().PUT('/v1/orgs/{organizationId}/teams', { params: { path: { organizationId: ACME } }, body: { title: 'Never stored' } });
    expect(created.response.status).toBe(201);
    expect(created.response.headers.get(CONTRACT_ANSWER_HEADER)).toMatch(/^(example|schema)$/);
    const after = ok(await admin().GET('/v1/orgs/{organizationId}/teams', { params: { path: { organizationId: ACME } } }));
    expect(after).toEqual(before);
    expect(after.items.map((item) => item.title)).not.toContain('Never stored');
  });

  test("the harness's faults apply to it as to any operation", async () => {
    ctx.server.running.faults!.add({ operation: 'getTeam', status: 404, times: 1 });
    expectError(await admin().GET('/v1/orgs/{organizationId}/teams/{teamId}', team), 404);
    expect((await admin().GET('/v1/orgs/{organizationId}/teams/{teamId}', team)).response.status).toBe(200);
  });

  test('the other operations answer for real, and only theirs are reported as answered (operation coverage)', async () => {
    operationsSeen.length = 0;
    ok(await admin().GET('/v1/orgs/{organizationId}/teams', { params: { path: { organizationId: ACME } } }));
    const real = await admin().GET('/v1/orgs/{organizationId}', { params: { path: { organizationId: ACME } } });
    expect(real.response.headers.get(CONTRACT_ANSWER_HEADER)).toBeNull();
    expect(ok(real).id).toBe(ACME);
    await admin().GET('/v1/orgs/{organizationId}/teams/{teamId}', team);
    await ctx.server.running.reset();
    await admin().GET('/v1/orgs/{organizationId}/teams/{teamId}', team);
    await new Promise((resolve) => setImmediate(resolve));
    expect(operationsSeen).toEqual(['listTeams', 'getOrganization']);
  });
});

describe('what the server says about them', () => {
  test('its start logs one warning naming them and why; a reset does not repeat it', async () => {
    await ctx.server.running.reset();
    const warnings = logged.filter((line) => typeof line.msg === 'string' && line.msg.startsWith('answering from the contract'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.msg).toBe('answering from the contract, not implemented: createTeam (no handler), deleteTeam (no handler), getTeam (no handler)');
    expect(warnings[0]!.answeredFromContract).toEqual({ createTeam: 'no handler', deleteTeam: 'no handler', getTeam: 'no handler' });
  });

  test('/health lists them', async () => {
    const health = (await (await fetch(`${ctx.server.url}/health`)).json()) as { answeredFromContract?: string[] };
    expect(health.answeredFromContract?.sort()).toEqual([...NOT_IMPLEMENTED].sort());
  });

  test('the served contract marks each (an extension, its summary and description) and lists them in its description', async () => {
    const served = (await (await fetch(`${ctx.server.url}/openapi.json`)).json()) as OpenApiDocument & { info: { description: string } };
    const marked = Object.values(served.paths).flatMap((item) => Object.values(item).filter((entry) => entry[CONTRACT_ANSWER_EXTENSION]));
    expect(marked.map((entry) => entry.operationId).sort()).toEqual([...NOT_IMPLEMENTED].sort());
    const getTeam = served.paths['/v1/orgs/{organizationId}/teams/{teamId}']!.get;
    const source = contractAnswer(contract, operation('getTeam')).source;
    expect(getTeam[CONTRACT_ANSWER_EXTENSION]).toEqual({ answer: source, reason: 'no handler' });
    expect(getTeam.summary).toBe('Get a team (not implemented: answered from the contract)');
    expect(getTeam.description).toMatch(new RegExp(`^\\*\\*Not implemented by this server\\*\\* \\(no handler\\): .*\`x-contract-answer: ${source}\`\\.\\n\\nGet a team\\.$`));
    expect(served.info.description).toContain('**Not implemented by this server**');
    expect(served.info.description).toContain('- `getTeam` (GET /v1/orgs/{organizationId}/teams/{teamId}): no handler');
    // The rest of the document is the contract's.
    expect(served.paths['/v1/orgs/{organizationId}']).toEqual(contract.paths['/v1/orgs/{organizationId}']);
    expect(parseContractYaml(await (await fetch(`${ctx.server.url}/openapi.yaml`)).text())).toEqual(served);
  });
});

describe('the setting', () => {
  test("is the harness's answerFromContract (on in this repository's test servers), off by default", async () => {
    expect(ctx.server.running.ctx.config.answerFromContract).toBe(true);
    const plain = await startDocsServer({ inProcess: true });
    try {
      expect((plain as unknown as { running: RunningServer }).running.ctx.config.answerFromContract).toBe(false);
    } finally {
      await plain.stop();
    }
  });

  test('off, a server that does not implement the whole contract refuses to start, naming the operations, the flag and the variable', async () => {
    await expect(startTestServer({ handlers: without('getTeam'), recordCoverage: false, env: { ANSWER_FROM_CONTRACT: 'false' } })).rejects.toThrow(
      /operations without a handler: getTeam\. Serve the rest and answer the operations not implemented from the contract with ANSWER_FROM_CONTRACT=true \(or --answer-from-contract\), as npm run dev does\./,
    );
  });

  test('off, handlers of no operation of the contract refuse the start; on, they are reported and the rest is served', async () => {
    const extra = (_ctx: unknown, table: HandlerTable) => ({ ...table, getTeamStatistics: table.getTeam }) as HandlerTable;
    await expect(startTestServer({ handlers: extra, recordCoverage: false, env: { ANSWER_FROM_CONTRACT: 'false' } })).rejects.toThrow(
      /handlers of no operation of the contract: getTeamStatistics\. /,
    );
    const lines: Record<string, unknown>[] = [];
    const server = await startTestServer({
      handlers: extra,
      recordCoverage: false,
      log: createLogger({ logLevel: 'warn', logFormat: 'json' }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) }),
    });
    try {
      expect(lines.map((line) => line.msg)).toContain('handlers of no operation of the contract, not served: getTeamStatistics');
      ok(await server.as('admin').GET('/v1/orgs/{organizationId}', { params: { path: { organizationId: ACME } } }));
      expect((await (await fetch(`${server.url}/health`)).json()) as object).not.toHaveProperty('answeredFromContract');
    } finally {
      await server.close();
    }
  });
});

const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
addFormats(ajv);
ajv.addSchema({ ...contract, $id: 'urn:docs-platform:contract' });

/** The problems of `value` against `schema`, a schema that may refer to the contract's components. */
function problems(value: unknown, schema: object): string[] {
  const validate = ajv.compile(schema);
  if (validate(value)) return [];
  return (validate.errors as ErrorObject[]).map((error) => `${error.instancePath || '/'} ${error.message}`);
}

const pointer = (...segments: string[]) => segments.map((segment) => segment.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

describe('values made from schemas', () => {
  test("every operation's answer from the contract, and the value made from its success schema, is valid against that schema", () => {
    const invalid: string[] = [];
    for (const each of operations) {
      const answer = contractAnswer(contract, each);
      const schema = contract.paths[each.path]![each.method].responses[String(answer.status)].content?.['application/json']?.schema;
      if (!schema) {
        expect(answer.body, each.operationId).toBeUndefined();
        continue;
      }
      const ref = { $ref: `urn:docs-platform:contract#/${pointer('paths', each.path, each.method, 'responses', String(answer.status), 'content', 'application/json', 'schema')}` };
      for (const [what, value] of [['answer', answer.body], ['schema value', schemaValue(contract, schema)]] as const) {
        invalid.push(...problems(value, ref).map((problem) => `${each.operationId} (${what}): ${problem}`));
      }
      // Every header the answer declares, too.
      const declared = contract.paths[each.path]![each.method].responses[String(answer.status)].headers ?? {};
      expect(Object.keys(answer.headers).sort(), each.operationId).toEqual(Object.keys(declared).map((name) => name.toLowerCase()).sort());
    }
    expect(invalid).toEqual([]);
  });

  test('a request leaves out what the server sets (read-only fields), a response shows them', () => {
    const schema = {
      type: 'object',
      required: ['id', 'title'],
      properties: { id: { type: 'string', readOnly: true }, title: { type: 'string', minLength: 1 }, secret: { type: 'string', writeOnly: true } },
    };
    expect(schemaValue(contract, schema, 'request')).toEqual({ title: 'string', secret: 'string' });
    expect(schemaValue(contract, schema, 'response')).toEqual({ id: 'string', title: 'string' });
  });

  const cases: [string, object][] = [
    ['a pattern with bounds that its fewest repetitions miss', { type: 'string', pattern: '^[a-z][a-z0-9-]{1,30}[a-z0-9]$', minLength: 12, maxLength: 20 }],
    ['a host-name pattern', { type: 'string', pattern: '^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?[.]){2,}[a-z0-9][a-z0-9-]{0,61}[a-z0-9]$' }],
    ['a pattern of printable characters', { type: 'string', pattern: '^\\S+$', minLength: 3 }],
    ['a Git reference', { type: 'string', pattern: '^refs/heads/[^\\s]+$', maxLength: 255 }],
    ['every format', { type: 'array', prefixItems: ['date-time', 'date', 'time', 'email', 'uri', 'hostname', 'ipv4', 'ipv6', 'uuid', 'duration', 'uri-reference', 'json-pointer'].map((format) => ({ type: 'string', format })), minItems: 12 }],
    ['bounded strings', { type: 'object', required: ['long', 'short'], properties: { long: { type: 'string', minLength: 40 }, short: { type: 'string', maxLength: 3 } } }],
    ['numbers with exclusive bounds and multiples', { type: 'array', prefixItems: [{ type: 'integer', exclusiveMinimum: 0 }, { type: 'number', minimum: 2.5, maximum: 3 }, { type: 'integer', minimum: 7, multipleOf: 5 }, { type: 'integer', maximum: -3 }, { type: 'number', exclusiveMaximum: 0 }], minItems: 5 }],
    ['a nullable value and a union', { type: 'object', required: ['role', 'spaces'], properties: { role: { anyOf: [{ type: 'null' }, { $ref: 'urn:docs-platform:contract#/components/schemas/Role' }] }, spaces: { anyOf: [{ type: 'string', enum: ['new'] }, { type: 'array', items: { type: 'string' } }] } }, unevaluatedProperties: false }],
    ['keywords beside a union apply to its alternative', { anyOf: [{ type: 'string' }, { type: 'null' }], minLength: 5, maxLength: 8 }],
    ['unique items', { type: 'array', minItems: 3, uniqueItems: true, items: { type: 'object', required: ['name', 'count'], properties: { name: { type: 'string' }, count: { type: 'integer', minimum: 1 } } } }],
    ['a map that wants entries', { type: 'object', minProperties: 2, additionalProperties: { type: 'boolean' } }],
    ['one of exclusive alternatives', { oneOf: [{ type: 'integer' }, { type: 'string', minLength: 2 }] }],
    ['all of several schemas', { allOf: [{ type: 'object', required: ['a'], properties: { a: { type: 'string', maxLength: 4 } } }, { required: ['b'], properties: { a: { minLength: 4 }, b: { const: 7 } } }] }],
    ['a recursive schema (a document of blocks)', { $ref: 'urn:docs-platform:contract#/components/schemas/Document' }],
  ];
  for (const [name, schema] of cases) {
    test(`${name}: valid, and the same every time`, () => {
      // The cases refer to the contract's schemas by the validator's address; the maker reads them from the document.
      const local = JSON.parse(JSON.stringify(schema).replaceAll('urn:docs-platform:contract#', '#')) as object;
      const value = schemaValue(contract, local);
      expect(problems(value, schema), JSON.stringify(value)).toEqual([]);
      expect(schemaValue(contract, local)).toEqual(value);
    });
  }

  test('a schema no value can meet fails, naming why; its operation answers 500 saying so', () => {
    expect(() => schemaValue(contract, { type: 'string', pattern: '^[a-z]{2}$', minLength: 5 })).toThrow(/no string of the pattern \^\[a-z\]\{2\}\$ from 5 to/);
    expect(() => schemaValue(contract, { type: 'integer', minimum: 5, maximum: 2 })).toThrow(/no number between 5 and 2/);
    const document = {
      openapi: '3.1.0',
      info: { title: 't', version: '1' },
      paths: { '/v1/codes': { get: { operationId: 'getCode', responses: { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'integer', minimum: 5, maximum: 2 } } } } } } } },
    } as unknown as OpenApiDocument;
    const problem = 'getCode cannot be answered from the contract: no number between 5 and 2';
    expect(contractAnswer(document, { method: 'get', path: '/v1/codes', operationId: 'getCode' })).toEqual({
      status: 500,
      headers: {},
      body: { error: { code: 500, message: problem } },
      contentType: 'application/json',
      source: 'schema',
      problem,
    });
  });
});

describe('examples', () => {
  test("are read by name: each example's parameters, body and answer together", () => {
    const document = {
      openapi: '3.1.0',
      info: { title: 't', version: '1' },
      paths: {
        '/v1/things/{thingId}': {
          patch: {
            operationId: 'updateThing',
            parameters: [
              { name: 'thingId', in: 'path', required: true, schema: { type: 'string' }, examples: { first: { value: 'a' }, second: { value: 'b' } } },
              { name: 'dryRun', in: 'query', schema: { type: 'boolean' }, examples: { second: { value: true } } },
            ],
            requestBody: { content: { 'application/json': { schema: { type: 'object' }, examples: { first: { value: { n: 1 } }, second: { $ref: '#/components/examples/Two' } } } } },
            responses: { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object' }, examples: { first: { summary: 'first', value: { n: 1, id: 'a' } } } } } } },
          },
        },
      },
      components: { examples: { Two: { value: { n: 2 } } } },
    } as unknown as OpenApiDocument;
    const update = { method: 'patch', path: '/v1/things/{thingId}', operationId: 'updateThing' } as const;
    expect(operationExamples(document, update)).toEqual([
      { operationId: 'updateThing', name: 'first', method: 'patch', path: '/v1/things/{thingId}', parameters: { path: { thingId: 'a' }, query: {} }, body: { n: 1 }, status: 200, response: { n: 1, id: 'a' } },
      { operationId: 'updateThing', name: 'second', method: 'patch', path: '/v1/things/{thingId}', parameters: { path: { thingId: 'b' }, query: { dryRun: true } }, body: { n: 2 }, status: 200 },
    ]);
    expect(contractAnswer(document, update)).toEqual({ status: 200, headers: {}, body: { n: 1, id: 'a' }, contentType: 'application/json', source: 'example' });
  });
});
