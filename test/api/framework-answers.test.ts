// Every answer the server can give is declared by its operation: every operation of the contract gets the requests
// the framework answers before any handler runs (bodies, encodings, escapes, query parameters and tokens it refuses),
// and each status must be declared by the operation, with the error envelope; a method a path does not declare is a
// 405 naming the declared ones, and a path outside the contract a 404.
// The requests, and why 405 and 404 are apart: test/README.md, "Answers the framework gives".
import { Ajv2020 } from 'ajv/dist/2020.js';
import { type IncomingHttpHeaders, request as httpRequest } from 'node:http';
import { describe, expect, test } from 'vitest';
import { contractOperations, loadContract } from '../../server/http/contract.ts';
import { useTestServer } from '../support/server.ts';

const contract = loadContract();
const BODY_LIMIT = 4096;
const ctx = useTestServer({ env: { BODY_LIMIT: String(BODY_LIMIT) }, recordCoverage: false });

type Schema = Record<string, unknown>;
type Parameter = { name: string; in: string; required?: boolean; schema: Schema };

const resolve = <T,>(node: T | { $ref: string }): T => {
  const ref = (node as { $ref?: string }).$ref;
  if (!ref) return node as T;
  return resolve(ref.slice(2).split('/').reduce<unknown>((at, key) => (at as Record<string, unknown>)[key], contract) as T);
};

/** A value the schema accepts, as it is written in a URL (the simplest of each kind). */
function sample(schema: Schema): string {
  const resolved = resolve(schema);
  if (Array.isArray(resolved.enum)) return String(resolved.enum[0]);
  if (resolved.type === 'integer' || resolved.type === 'number') return String(resolved.minimum ?? 1);
  if (resolved.type === 'boolean') return 'true';
  if (resolved.type === 'array') return sample(resolved.items as Schema);
  return 'x-1'; // every string parameter's pattern and bounds accept it
}

const operations = contractOperations(contract).map((operation) => {
  const definition = contract.paths[operation.path]![operation.method]!;
  const parameters = ((definition.parameters ?? []) as unknown[]).map((parameter) => resolve(parameter as Parameter));
  const declared = new Set(Object.keys(definition.responses as object).map(Number));
  return { ...operation, definition, parameters, declared, takesBody: definition.requestBody !== undefined };
});

function urlOf(operation: (typeof operations)[number], options: { path?: string; query?: Record<string, string> } = {}): string {
  const path = operation.path.replace(/\{([^}]+)\}/g, () => options.path ?? 'x-1');
  const query = new URLSearchParams();
  for (const parameter of operation.parameters) {
    if (parameter.in === 'query' && parameter.required) query.set(parameter.name, sample(parameter.schema));
  }
  for (const [name, value] of Object.entries(options.query ?? {})) query.set(name, value);
  const search = query.toString();
  return `${ctx.server.url}${path}${search ? `?${search}` : ''}`;
}

interface Probe {
  name: string;
  /** The status the framework gives, when it is the framework that answers (any declared status otherwise). */
  expected?: (takesBody: boolean) => number | undefined;
  init: (operation: (typeof operations)[number]) => { url: string; headers?: Record<string, string>; body?: string };
}

const ADMIN = { authorization: 'Bearer admin' };
/** `{}` as JSON for an operation that takes a body (so that its answer is not about the body), none otherwise. */
const jsonBody = (operation: (typeof operations)[number], headers: Record<string, string>) =>
  operation.takesBody ? { headers: { ...headers, 'content-type': 'application/json' }, body: '{}' } : { headers };
const PROBES: Probe[] = [
  {
    name: 'a JSON body in latin1',
    expected: (takesBody) => (takesBody ? 415 : undefined),
    init: (operation) => ({ url: urlOf(operation), headers: { ...ADMIN, 'content-type': 'application/json; charset=latin1' }, body: '{}' }),
  },
  {
    name: 'a text/plain body',
    expected: (takesBody) => (takesBody ? 415 : undefined),
    init: (operation) => ({ url: urlOf(operation), headers: { ...ADMIN, 'content-type': 'text/plain' }, body: 'hello' }),
  },
  {
    name: 'a JSON body without a Content-Type',
    expected: (takesBody) => (takesBody ? 415 : undefined),
    init: (operation) => ({ url: urlOf(operation), headers: ADMIN, body: '{"title":"alpha kilo"}' }),
  },
  {
    name: 'malformed JSON',
    expected: (takesBody) => (takesBody ? 400 : undefined),
    init: (operation) => ({ url: urlOf(operation), headers: { ...ADMIN, 'content-type': 'application/json' }, body: '{"title":' }),
  },
  {
    name: 'a body over BODY_LIMIT',
    expected: (takesBody) => (takesBody ? 413 : undefined),
    init: (operation) => ({
      url: urlOf(operation),
      headers: { ...ADMIN, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'x'.repeat(BODY_LIMIT) }),
    }),
  },
  {
    name: 'an unknown content encoding',
    expected: (takesBody) => (takesBody ? 415 : undefined),
    init: (operation) => ({ url: urlOf(operation), headers: { ...ADMIN, 'content-type': 'application/json', 'content-encoding': 'xyz' }, body: '{}' }),
  },
  {
    name: 'an unknown query parameter',
    expected: () => 400,
    init: (operation) => ({ url: urlOf(operation, { query: { unknownParameter: '1' } }), ...jsonBody(operation, ADMIN) }),
  },
  { name: 'no token', expected: () => 401, init: (operation) => ({ url: urlOf(operation), ...jsonBody(operation, {}) }) },
  { name: 'a wrong token', expected: () => 401, init: (operation) => ({ url: urlOf(operation), ...jsonBody(operation, { authorization: 'Bearer wrong' }) }) },
  { name: 'another scheme', expected: () => 401, init: (operation) => ({ url: urlOf(operation), ...jsonBody(operation, { authorization: 'Basic YTpi' }) }) },
];

/** One request over node:http (fetch refuses a body on GET), its answer read whole. */
function answer(method: string, init: { url: string; headers?: Record<string, string>; body?: string }) {
  return new Promise<{ status: number; text: string; headers: IncomingHttpHeaders }>((resolve, reject) => {
    // Framed by its length: node:http sends the body of a GET or DELETE unframed unless told its length.
    const headers = init.body === undefined ? init.headers : { ...init.headers, 'content-length': String(Buffer.byteLength(init.body)) };
    const request = httpRequest(init.url, { method: method.toUpperCase(), headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode!, text: Buffer.concat(chunks).toString('utf8'), headers: response.headers }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(init.body);
  });
}

function expectEnvelope(status: number, text: string, where: string) {
  if (status < 400) return;
  const body = JSON.parse(text) as { error?: { code?: number; message?: string } };
  expect(body.error?.code, `${where}: error.code`).toBe(status);
  expect(typeof body.error?.message, `${where}: error.message`).toBe('string');
}

describe('the answers the framework gives, on every operation', () => {
  test.each(PROBES)('$name: the status is declared by every operation', async (probe) => {
    const undeclared: string[] = [];
    for (const operation of operations) {
      const request = probe.init(operation);
      const { status, text } = await answer(operation.method, request);
      const where = `${operation.operationId} (${operation.method.toUpperCase()} ${operation.path}) with ${probe.name}`;
      if (!operation.declared.has(status)) undeclared.push(`${where}: ${status} ${text.slice(0, 120)}`);
      const expected = probe.expected?.(operation.takesBody);
      if (expected !== undefined) expect(status, `${where}: ${text}`).toBe(expected);
      // The body of an operation that takes none is discarded unread: the handler answers, never the parser.
      if (!operation.takesBody && probe.expected?.(true) !== probe.expected?.(false)) {
        expect([400, 413, 415].includes(status) && /body|Content-Type|too large/.test(text), `${where}: ${text}`).toBe(false);
      }
      expectEnvelope(status, text, where);
    }
    expect(undeclared).toEqual([]);
  });

  test('an undecodable escape in a path parameter is a declared 400', async () => {
    for (const operation of operations.filter((candidate) => candidate.path.includes('{'))) {
      const { status, text } = await answer(operation.method, { url: urlOf(operation, { path: '%ZZ' }), headers: ADMIN });
      expect(status, `${operation.operationId}: ${text}`).toBe(400);
      expect(operation.declared.has(400)).toBe(true);
      expectEnvelope(status, text, operation.operationId);
    }
  });

  test('a query value sent empty is answered as its schema says: a 400 naming it where the schema refuses ""', async () => {
    const ajv = new Ajv2020({ strict: false });
    ajv.addSchema({ components: contract.components } as object, 'contract');
    const refuses = (schema: Schema) => {
      const resolved = resolve(schema);
      const itemSchema = resolved.type === 'array' ? resolve(resolved.items as Schema) : resolved;
      if (itemSchema.type === 'integer' || itemSchema.type === 'number' || itemSchema.type === 'boolean') return true;
      const rewritten = JSON.parse(JSON.stringify(itemSchema).replaceAll('"#/components/', '"contract#/components/')) as object;
      return !ajv.validate(rewritten, '');
    };
    let checked = 0;
    for (const operation of operations) {
      for (const parameter of operation.parameters.filter((candidate) => candidate.in === 'query')) {
        const { status, text } = await answer(operation.method, { url: urlOf(operation, { query: { [parameter.name]: '' } }), headers: ADMIN });
        const where = `${operation.operationId} ${parameter.name}=`;
        // The contract refuses every empty query value: no string parameter without a minimum length is left.
        expect(refuses(parameter.schema), `${where}: the schema accepts "" (give it @minLength(1))`).toBe(true);
        expect(status, `${where}: ${text}`).toBe(400);
        expect(text, where).toContain(`query.${parameter.name}`);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(100);
  });
});

describe('requests outside every operation', () => {
  test('a method a path does not declare is a 405 whose Allow header lists exactly the declared methods, and HEAD beside GET', async () => {
    const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
    for (const [template, item] of Object.entries(contract.paths)) {
      const declared = METHODS.filter((method) => item[method] !== undefined);
      const url = `${ctx.server.url}${template.replace(/\{[^}]+\}/g, 'x-1')}`;
      for (const method of METHODS.filter((candidate) => !declared.includes(candidate))) {
        const { status, text, headers } = await answer(method, { url, headers: { ...ADMIN, 'content-type': 'application/json' }, body: method === 'get' ? undefined : '{}' });
        expect(status, `${method.toUpperCase()} ${template}: ${text}`).toBe(405);
        expectEnvelope(status, text, `${method} ${template}`);
        const allow = String(headers.allow ?? '').split(',').map((value) => value.trim().toLowerCase()).filter(Boolean);
        // HEAD wherever GET is (server/http/head.ts, test/server/head.test.ts).
        expect(allow.sort(), `${method.toUpperCase()} ${template}: Allow`).toEqual([...declared, ...(declared.includes('get') ? ['head'] : [])].sort());
      }
    }
  });

  test('a path outside the contract is a 404 with the envelope, body or not', async () => {
    for (const init of [
      { url: `${ctx.server.url}/v1/no-such-thing`, headers: ADMIN },
      { url: `${ctx.server.url}/v1/spaces/x-1/no-such-thing`, headers: { ...ADMIN, 'content-type': 'application/json' }, body: '{' },
      // Paths are matched letter for letter: another case is another path, answered before any handler.
      { url: `${ctx.server.url}/V1/orgs`, headers: ADMIN },
      { url: `${ctx.server.url}/V1/spaces/x-1`, headers: ADMIN },
      { url: `${ctx.server.url}/v1/ORGS`, headers: ADMIN },
    ]) {
      for (const method of ['get', 'post']) {
        const { status, text } = await answer(method, method === 'get' ? { ...init, body: undefined } : init);
        expect(status, text).toBe(404);
        expectEnvelope(status, text, init.url);
      }
    }
  });
});
