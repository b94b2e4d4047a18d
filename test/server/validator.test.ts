// The server's installation of express-openapi-validator (server/speed/validator.ts): its route index attaches to
// every request of every operation of the contract exactly what the validator's own lookup attaches, answers what
// the index cannot place exactly as the validator does, and, once an operation has been seen, never runs the
// validator's scan over the document's paths.
// @needs slow
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { contractOperations, loadContract } from '../../server/http/contract.ts';
import { OpenApiSpecLoader } from 'express-openapi-validator/dist/framework/openapi.spec.loader.js';
import { SchemaPreprocessor } from 'express-openapi-validator/dist/middlewares/parsers/schema.preprocessor.js';
import { OpenApiValidator as Validator } from 'express-openapi-validator/dist/openapi.validator.js';
import $RefParser from '@apidevtools/json-schema-ref-parser';
import fc from 'fast-check';
import { loadContract as runnerContract } from '../../conformance/contract/contract.ts';
import { arbitraryOf } from '../../conformance/runner/property/generate.ts';
import validatorUtil from 'express-openapi-validator/dist/middlewares/util.js';
import parameterUtil from 'express-openapi-validator/dist/middlewares/parsers/util.js';
import { RequestParameterMutator } from 'express-openapi-validator/dist/middlewares/parsers/req.parameter.mutator.js';
import { createRequestAjv, createResponseAjv } from 'express-openapi-validator/dist/framework/ajv/index.js';
import {
  analyseParametersOnce,
  bundled,
  compileWithoutDocument,
  openApiValidator,
  chooseResponseContentOnce,
  originalContentType,
  originalResponseContent,
  originalParameterAnalyses,
  parameterAnalyses,
  responseContentChoices,
  parseContentTypesOnce,
  schemaCompilations,
  schemaPreprocessor,
} from '../../server/speed/validator.ts';
import { RouteIndex } from '../../server/http/route-index.ts';
import { checkContractSchema } from '../../scripts/build-server.ts';
import { ResponseValidator } from 'express-openapi-validator/dist/middlewares/openapi.response.validator.js';
import pino from 'pino';
import type { HandlerTable } from '../../server/handlers/types.ts';
import { useTestServer } from '../support/server.ts';
import { extendFixture } from '../support/fixture.ts';

const contract = loadContract();
const options = () => ({
  apiSpec: structuredClone(contract) as never,
  validateRequests: false,
  validateResponses: true,
  validateSecurity: false,
  ignorePaths: (path: string) => !path.startsWith('/v1/'),
});

type Attached = Record<string, unknown> & { schema?: { operationId?: string }; _responseSchema?: { responses?: object } };

/** What a request carries after the validator's middlewares: the parts of `req.openapi` that matter, or the error. */
function describeRequest(req: Request & { openapi?: Attached }) {
  const attached = req.openapi;
  return {
    keys: attached && Object.keys(attached).sort(),
    expressRoute: attached?.expressRoute,
    openApiRoute: attached?.openApiRoute,
    pathParams: attached?.pathParams,
    params: { ...req.params },
    operationId: attached?.schema?.operationId,
    responses: Object.keys(attached?._responseSchema?.responses ?? {}),
  };
}

async function serve(middlewares: express.RequestHandler[]) {
  const app = express();
  app.use(middlewares);
  // Sent without res.json, which the response validator would check against the operation's responses.
  app.use((req: Request, res: Response) => {
    res.type('json').end(JSON.stringify({ request: describeRequest(req) }));
  });
  app.use((error: { status?: number; message?: string }, _req: Request, res: Response, _next: NextFunction) => {
    res.status(200).json({ error: { status: error.status, message: error.message } });
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, close: () => new Promise((resolve) => server.close(resolve)) };
}

let reference: Awaited<ReturnType<typeof serve>>;
let indexed: Awaited<ReturnType<typeof serve>>;
beforeAll(async () => {
  reference = await serve(OpenApiValidator.middleware(options()) as express.RequestHandler[]);
  indexed = await serve(openApiValidator(options()));
}, 60_000);
afterAll(async () => {
  await reference.close();
  await indexed.close();
});

const ask = async (base: string, method: string, path: string) =>
  (await fetch(`${base}${path}`, { method })).json() as Promise<unknown>;

const fill = (template: string, value: (name: string) => string) =>
  template.replace(/\{([^}]+)\}/g, (_, name: string) => value(name));

describe('the route index', () => {
  test('finds static segments before parameters, and nothing for near misses', () => {
    const index = new RouteIndex({ '/a/{id}': { get: {} }, '/a/latest': { get: {} }, '/a/{id}/b': { put: {} } });
    expect(index.find('/a/latest')?.template).toBe('/a/latest');
    expect(index.find('/a/x%20y')).toMatchObject({ template: '/a/{id}', params: [{ name: 'id', raw: 'x%20y' }] });
    expect(index.find('/a/latest/b')).toMatchObject({ template: '/a/{id}/b', params: [{ name: 'id', raw: 'latest' }] });
    for (const miss of ['/a', '/a/', '/a//b', '/a/x/', '/b/x', '/a/x/b/c']) expect(index.find(miss)).toBeUndefined();
  });
});

describe('the loading the validator skips', () => {
  test('json-schema-ref-parser bundles the contract into the same document', async () => {
    expect(bundled(contract)).toBe(true);
    const copy = structuredClone(contract);
    expect(await $RefParser.bundle(copy as never)).toEqual(contract);
  });

  test('documents bundling would change are bundled', () => {
    const schemas = { A: { type: 'string' }, B: { $ref: '#/components/schemas/A' } };
    expect(bundled({ components: { schemas }, x: { $ref: '#/components/schemas/A' } })).toBe(true);
    expect(bundled({ components: { schemas }, x: { $ref: '#/components/schemas/B' } })).toBe(false);
    expect(bundled({ x: { $ref: 'other.yaml#/A' } })).toBe(false);
    expect(bundled({ x: { $ref: '#/missing' } })).toBe(false);
  });
});

describe('the schema preprocessor that does not compile component schemas', () => {
  test('leaves the document the validator\'s own preprocessor leaves', async () => {
    const preprocessed = async (make: typeof schemaPreprocessor) => {
      const settings = { ...options(), validateRequests: { allowUnknownQueryParameters: false }, validateFormats: true };
      const validator = new Validator(settings as never) as unknown as { options: { validateResponses: never }; ajvOpts: { preprocessor: never } };
      const spec = await new OpenApiSpecLoader({ apiDoc: settings.apiSpec, validateApiSpec: true, $refParser: { mode: 'bundle' } }).load();
      const { apiDoc, apiDocRes } = make(spec.apiDoc, validator.ajvOpts.preprocessor, validator.options.validateResponses).preProcess();
      // Functions (serializers the preprocessor attaches) by name.
      return JSON.stringify({ apiDoc, apiDocRes }, (_key, value: unknown) => (typeof value === 'function' ? `function ${value.name}` : value));
    };
    const own = await preprocessed((...args) => new SchemaPreprocessor(...args));
    expect(own).toContain('components');
    expect(await preprocessed(schemaPreprocessor)).toBe(own);
  }, 60_000);
});

describe('express-openapi-validator with the route index', () => {
  const operations = contractOperations(contract);

  test('attaches what the validator attaches, for every operation of the contract', async () => {
    for (const operation of operations) {
      const method = operation.method.toUpperCase();
      // The first request of an operation goes through the validator's lookup, the next ones through the index.
      for (const value of ['first', 'with%20space']) {
        const path = fill(operation.path, (name) => `${value}-${name}`);
        const expected = await ask(reference.url, method, path);
        expect(await ask(indexed.url, method, path), `${method} ${path}`).toEqual(expected);
      }
    }
  }, 120_000);

  test('paths that two templates match go where the validator sends them', async () => {
    const templates = Object.keys(contract.paths);
    const overlaps: string[] = [];
    for (const a of templates) {
      for (const b of templates) {
        const [sa, sb] = [a.split('/'), b.split('/')];
        if (a === b || sa.length !== sb.length) continue;
        if (!sa.every((segment, i) => segment === sb[i] || segment.startsWith('{') || sb[i]!.startsWith('{'))) continue;
        // A path both match: the static segment of either where the other has a parameter.
        overlaps.push(sa.map((segment, i) => (segment.startsWith('{') ? sb[i]!.replace(/^\{.*\}$/, 'x') : segment)).join('/'));
      }
    }
    expect(overlaps.length).toBeGreaterThan(0);
    for (const path of overlaps) {
      for (const method of ['GET', 'PUT', 'POST', 'PATCH', 'DELETE']) {
        for (let twice = 0; twice < 2; twice++) {
          expect(await ask(indexed.url, method, path), `${method} ${path}`).toEqual(await ask(reference.url, method, path));
        }
      }
    }
  });

  test('answers what it cannot place exactly as the validator does', async () => {
    const cases: [string, string][] = [
      ['GET', '/v1/spaces/abc/'],
      ['GET', '/V1/SPACES/abc'],
      ['GET', '/v1/spaces/%E0%A4%A'],
      ['GET', '/v1/spaces/%zz'],
      ['PUT', '/v1/spaces/abc'],
      ['HEAD', '/v1/spaces/abc'],
      ['GET', '/v1/nothing/here'],
      ['GET', '/v1//spaces'],
      ['GET', '/outside/v1/spaces/abc'],
      ['GET', '/v1/spaces/abc?x=1'],
    ];
    for (const [method, path] of cases) {
      for (let twice = 0; twice < 2; twice++) {
        const expected = method === 'HEAD' ? null : await ask(reference.url, method, path);
        const actual = method === 'HEAD' ? null : await ask(indexed.url, method, path);
        expect(actual, `${method} ${path}`).toEqual(expected);
      }
      if (method === 'HEAD') {
        const [a, b] = await Promise.all([fetch(`${reference.url}${path}`, { method }), fetch(`${indexed.url}${path}`, { method })]);
        expect(b.status).toBe(a.status);
      }
    }
  });

  test('once an operation has been seen, its requests never scan the document paths', async () => {
    const pathToRegexp = createRequire(import.meta.url)('path-to-regexp') as { pathToRegexp: (...args: unknown[]) => unknown };
    const original = pathToRegexp.pathToRegexp;
    let compiled = 0;
    pathToRegexp.pathToRegexp = (...args: unknown[]) => {
      compiled++;
      return original(...args);
    };
    try {
      await ask(reference.url, 'GET', '/v1/spaces/one');
      expect(compiled, 'the validator compiles matchers on each request').toBeGreaterThan(0);
      // The first request of each operation may go through the validator's lookup.
      await ask(indexed.url, 'GET', '/v1/spaces/one');
      await ask(indexed.url, 'GET', '/v1/spaces/one/content');
      compiled = 0;
      for (const id of ['two', 'three', 'four']) {
        await ask(indexed.url, 'GET', `/v1/spaces/${id}`);
        await ask(indexed.url, 'GET', `/v1/spaces/${id}/content`);
      }
      expect(compiled).toBe(0);
    } finally {
      pathToRegexp.pathToRegexp = original;
    }
  });
});

describe('request and response schemas compiled without the whole document', () => {
  type Check = ((data: unknown) => boolean) & { errors?: { instancePath: string }[] | null };
  type Compiler = Parameters<typeof validatorUtil.useAjvCache>[0];

  /** Breaks a value in one place: the leaf at `at` (in walk order) becomes a value of another type. */
  function broken(value: unknown, at: number): { value: unknown; done: boolean } {
    let seen = 0;
    const walk = (node: unknown): unknown => {
      if (node && typeof node === 'object') {
        const copy: Record<string, unknown> | unknown[] = Array.isArray(node) ? [...node] : { ...(node as object) };
        for (const key of Object.keys(copy)) (copy as Record<string, unknown>)[key] = walk((copy as Record<string, unknown>)[key]);
        return copy;
      }
      return seen++ === at ? (typeof node === 'string' ? 12_345 : 'not-a-number-or-flag') : node;
    };
    const result = walk(value);
    return { value: result, done: seen <= at };
  }

  test('every response schema judges generated and broken bodies as the validator\'s own (optimized) compilation does', async () => {
    compileWithoutDocument();
    const settings = { ...options(), validateRequests: { allowUnknownQueryParameters: false }, validateFormats: true };
    const validator = new Validator(settings as never) as unknown as { options: { validateResponses: never }; ajvOpts: { preprocessor: never; response: never } };
    const spec = await new OpenApiSpecLoader({ apiDoc: settings.apiSpec, validateApiSpec: false, $refParser: { mode: 'bundle' } }).load();
    const { apiDocRes } = schemaPreprocessor(spec.apiDoc, validator.ajvOpts.preprocessor, validator.options.validateResponses).preProcess();
    const document = apiDocRes as unknown as { paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, { schema?: object }> }> }>>; components: object };
    const own = createResponseAjv(apiDocRes as never, validator.ajvOpts.response) as unknown as Compiler;
    const alone = createResponseAjv(apiDocRes as never, validator.ajvOpts.response) as unknown as Compiler;
    const before = schemaCompilations();
    const runner = runnerContract(structuredClone(contract) as never);
    const distinct = new Set<string>();
    let schemas = 0;
    let accepted = 0;
    let refused = 0;
    for (const [template, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        for (const [code, response] of Object.entries(operation.responses ?? {})) {
          const schema = response.content?.['application/json']?.schema;
          // Each distinct schema once (the error responses share theirs): the compilation with the document is slow.
          if (!schema || distinct.has(JSON.stringify(schema))) continue;
          distinct.add(JSON.stringify(schema));
          const key = `${method}-${template}-${code}`;
          // What the validator's buildValidators compiles for a response.
          const root = { type: 'object', properties: { response: schema }, components: document.components, paths: document.paths };
          own.addSchema(root, key);
          const expected = own.getSchema(key) as Check;
          const actual = validatorUtil.useAjvCache(alone, root as never, key) as unknown as Check;
          schemas++;
          const bodies = fc.sample(arbitraryOf(runner, schema as never), { numRuns: 6, seed: schemas });
          for (const body of bodies) {
            for (let at = -1; ; at++) {
              const { value, done } = at < 0 ? { value: body, done: false } : broken(body, at);
              if (done || at > 40) break;
              const verdict = expected({ response: value });
              expect(actual({ response: value }), `${key} ${JSON.stringify(value).slice(0, 200)}`).toBe(verdict);
              if (!verdict) expect(actual.errors?.map((error) => error.instancePath)).toEqual(expected.errors?.map((error) => error.instancePath));
              if (verdict) accepted++;
              else refused++;
            }
          }
        }
      }
    }
    const after = schemaCompilations();
    expect(schemas).toBeGreaterThan(50);
    // Each compiled without the document, or taken from an equal one compiled before in this process (a server of
    // another file in the same worker).
    expect(after.alone + after.reused - before.alone - before.reused).toBe(schemas);
    expect(after.withDocument - before.withDocument).toBe(0);
    // The replacement compiles without Ajv's optimizing pass (withoutOptimizing), the validator's own compilation
    // with it: the verdicts above are those of optimized and unoptimized code alike.
    const optimizing = (ajv: Compiler) => (ajv as unknown as { opts: { code: { optimize: number } } }).opts.code.optimize;
    expect(optimizing(alone)).toBe(0);
    expect(optimizing(own)).toBe(1);
    // Both verdicts happened many times: the comparison is not between two validators that accept everything.
    expect(accepted).toBeGreaterThan(schemas);
    expect(refused).toBeGreaterThan(schemas);
  }, 120_000);

  test('every operation\'s request schemas compile alone, and a schema that needs the document is compiled with it', async () => {
    const requesting = await serve(openApiValidator({ ...options(), validateRequests: true }));
    const before = schemaCompilations();
    try {
      for (const operation of contractOperations(contract)) {
        const method = operation.method.toUpperCase();
        const body = ['POST', 'PUT', 'PATCH'].includes(method) ? { body: '{}', headers: { 'content-type': 'application/json' } } : {};
        await (await fetch(`${requesting.url}${fill(operation.path, (name) => `some-${name}`)}`, { method, ...body })).text();
      }
    } finally {
      await requesting.close();
    }
    const after = schemaCompilations();
    // Two schemas per operation (parameters, body), compiled on its first request, or taken from a validator of the
    // same document and options that this process built before (another file's servers, in the same worker).
    expect(after.alone + after.reused - before.alone - before.reused).toBeGreaterThanOrEqual(2 * contractOperations(contract).length);
    expect(after.withDocument - before.withDocument).toBe(0);

    const responseOptions = (new Validator(options() as never) as unknown as { ajvOpts: { response: never } }).ajvOpts.response;
    const ajv = createResponseAjv({ openapi: '3.1.0', components: { schemas: {} } } as never, responseOptions) as unknown as Compiler;
    const elsewhere = { properties: { response: { $ref: '#/paths/~1x/get/x-schema' } }, paths: { '/x': { get: { 'x-schema': { type: 'string' } } } }, components: {} };
    const check = validatorUtil.useAjvCache(ajv, elsewhere as never, 'elsewhere') as unknown as Check;
    expect(check({ response: 'text' })).toBe(true);
    expect(check({ response: 1 })).toBe(false);
    expect(schemaCompilations().withDocument - after.withDocument).toBe(1);
  }, 120_000);

  test('an equal schema of another operation or status is not compiled again: the error responses share one function', () => {
    compileWithoutDocument();
    const responseOptions = (new Validator(options() as never) as unknown as { ajvOpts: { response: never } }).ajvOpts.response;
    // A component no other test has: nothing compiled before in this process can be taken for it.
    const code = `code-${randomUUID()}`;
    const components = { schemas: { Envelope: { type: 'object', required: ['code'], properties: { code: { const: code } } } } };
    const ajv = createResponseAjv({ openapi: '3.1.0', components } as never, responseOptions) as unknown as Compiler;
    // What buildValidators compiles for the 404 of two operations and the 400 of one of them.
    const root = () => ({ type: 'object', properties: { response: { $ref: '#/components/schemas/Envelope' } }, components, paths: {} });
    const before = schemaCompilations();
    const checks = ['GET-/v1/a-404-application/json', 'GET-/v1/b-404-application/json', 'GET-/v1/b-400-application/json'].map(
      (key) => validatorUtil.useAjvCache(ajv, root() as never, key) as unknown as Check,
    );
    const after = schemaCompilations();
    expect({ alone: after.alone - before.alone, reused: after.reused - before.reused }).toEqual({ alone: 1, reused: 2 });
    expect(checks[1]).toBe(checks[0]);
    expect(checks[2]).toBe(checks[0]);
    expect(checks[2]!({ response: { code } })).toBe(true);
    expect(checks[2]!({ response: { code: 'other' } })).toBe(false);
    expect(checks[2]!.errors?.map((error) => error.instancePath)).toEqual(['/response/code']);
  });
});

test('validators of the same document and options share their compiled schemas; another document compiles its own', async () => {
  const settings = (document: unknown) => ({ ...options(), apiSpec: document as never, validateRequests: true, validateResponses: false as const });
  // The same contract, but for a title of at most 5 characters: only a component schema differs, not the operation's.
  const strict = structuredClone(contract) as unknown as { components: { schemas: Record<string, { properties: Record<string, { maxLength?: number }> }> } };
  strict.components.schemas.CreateSpaceRequest!.properties.title!.maxLength = 5;
  const servers = [
    await serve([express.json(), openApiValidator(settings(structuredClone(contract)))].flat()),
    await serve([express.json(), openApiValidator(settings(structuredClone(contract)))].flat()),
    await serve([express.json(), openApiValidator(settings(strict))].flat()),
  ];
  const create = async (url: string, title: string) =>
    (await fetch(`${url}/v1/orgs/acme/spaces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title }) })).json();
  try {
    const counts = [schemaCompilations()];
    const verdicts = [];
    for (const server of servers) {
      verdicts.push([await create(server.url, 'Handbook'), await create(server.url, 'x'.repeat(256))]);
      counts.push(schemaCompilations());
    }
    const [same, again, other] = verdicts as [unknown[], unknown[], unknown[]];
    // The first validator compiled its two schemas (parameters, body), or took them from an equal one built before.
    expect(counts[1]!.alone + counts[1]!.reused - counts[0]!.alone - counts[0]!.reused).toBe(2);
    // The second, of an equal document, compiled nothing, and judges alike.
    expect({ alone: counts[2]!.alone - counts[1]!.alone, reused: counts[2]!.reused - counts[1]!.reused }).toEqual({ alone: 0, reused: 2 });
    expect(same[0]).toMatchObject({ request: { operationId: 'createSpace' } });
    expect(same[1]).toMatchObject({ error: { status: 400, message: expect.stringContaining('title') } });
    expect(again).toEqual(same);
    // The third, whose component differs, compiled its own, and judges by its own document.
    expect({ alone: counts[3]!.alone - counts[2]!.alone, reused: counts[3]!.reused - counts[2]!.reused }).toEqual({ alone: 2, reused: 0 });
    expect(other[0]).toMatchObject({ error: { status: 400, message: expect.stringContaining('5 characters') } });
  } finally {
    for (const server of servers) await server.close();
  }
}, 60_000);

describe('the OpenAPI schema check, made by the build instead of every start', () => {
  test('the build accepts the contract and refuses a document the validator would refuse, naming the place', () => {
    expect(() => checkContractSchema(contract)).not.toThrow();
    const broken = structuredClone(contract) as unknown as { info: Record<string, unknown> };
    delete broken.info.version;
    expect(() => checkContractSchema(broken)).toThrow(/\/info: must have required property 'version'/);
  });

  test("with validateApiSpec false the validator neither compiles the OpenAPI schema nor checks the document; with it, both as before", async () => {
    const schemas = createRequire(import.meta.url)('express-openapi-validator/dist/framework/openapi/factory.schema.js') as {
      factorySchema: (version: string) => unknown;
    };
    const original = schemas.factorySchema;
    let built = 0;
    schemas.factorySchema = (version: string) => {
      built++;
      return original(version);
    };
    const broken = structuredClone(contract) as unknown as { info: Record<string, unknown> };
    delete broken.info.version;
    try {
      const skipping = await serve(openApiValidator({ ...options(), apiSpec: structuredClone(broken) as never, validateApiSpec: false }));
      const answer = (await ask(skipping.url, 'GET', '/v1/spaces/abc')) as { request?: { operationId?: string } };
      await skipping.close();
      expect(answer.request?.operationId).toBe('getSpace');
      expect(built).toBe(0);

      const checking = await serve(openApiValidator({ ...options(), apiSpec: structuredClone(broken) as never }));
      const refused = (await ask(checking.url, 'GET', '/v1/spaces/abc')) as { error?: { message?: string } };
      await checking.close();
      expect(refused.error?.message).toMatch(/apiDoc was invalid/);
      expect(built).toBe(1);
    } finally {
      schemas.factorySchema = original;
    }
  }, 60_000);
});

describe("the request validator's parameters, analysed once", () => {
  type Parameter = { $ref?: string; name?: string; in?: string };
  const parametersOf = (document: typeof contract) =>
    Object.values(document.paths as Record<string, Record<string, unknown>>).flatMap((item) =>
      Object.values(item).flatMap((value) => ((value as { parameters?: Parameter[] })?.parameters ?? []) as Parameter[]),
    );

  test('each analysis gives what the validator\'s own gives, for every parameter of the contract, and runs once', () => {
    analyseParametersOnce();
    const own = originalParameterAnalyses();
    const util = parameterUtil as unknown as typeof own;
    const document = structuredClone(contract);
    const ajv = createRequestAjv(document as never, { formats: {} } as never);
    const mutator = new RequestParameterMutator(ajv as never, document as never, '', {} as never) as unknown as { isObjectOrXOf(schema: object): boolean };
    const parameters = parametersOf(document);
    expect(parameters.length).toBeGreaterThan(300);
    const pass = () => {
      for (const parameter of parameters) {
        const resolved = util.dereferenceParameter(document, parameter);
        expect(resolved).toBe(own.dereferenceParameter(document, parameter));
        const normalized = util.normalizeParameter(ajv, resolved);
        const expected = own.normalizeParameter(ajv, resolved);
        expect(normalized.name).toBe(expected.name);
        expect(normalized.schema).toBe(expected.schema);
        expect(mutator.isObjectOrXOf(normalized.schema)).toBe(own.isObjectOrXOf(expected.schema));
      }
    };
    const before = parameterAnalyses.count;
    pass();
    const first = parameterAnalyses.count - before;
    expect(first).toBeGreaterThan(0);
    pass();
    expect(parameterAnalyses.count - before).toBe(first);
  });

  test('requests still get their parameters checked and reshaped on every request, without analysing them again', async () => {
    const validating = await serve(openApiValidator({ ...options(), validateRequests: true }));
    try {
      const page = '/v1/spaces/s1/content/page/p1';
      // Reserved characters in a query value are refused by the mutator itself, on every request.
      for (let i = 0; i < 2; i++) {
        const refused = (await ask(validating.url, 'GET', `${page}?format=a:b`)) as { error?: { status?: number; message?: string } };
        expect(refused.error).toEqual({ status: 400, message: expect.stringMatching(/format.*url encoded/) });
      }
      const accepted = (await ask(validating.url, 'GET', `${page}?format=markdown`)) as { request?: { operationId?: string } };
      expect(accepted.request?.operationId).toBe('getSpacePage');
      const before = parameterAnalyses.count;
      for (const format of ['document', 'markdown', 'nothing']) await ask(validating.url, 'GET', `${page}?format=${format}`);
      const wrong = (await ask(validating.url, 'GET', `${page}?format=nothing`)) as { error?: { status?: number; message?: string } };
      expect(wrong.error?.status).toBe(400);
      expect(parameterAnalyses.count).toBe(before);
    } finally {
      await validating.close();
    }
  }, 60_000);
});

describe('content types, parsed once per header', () => {
  type Parsed = { mediaType: string | null; parameters: Record<string, string>; isWildCard?: boolean; normalize(exclude?: string[]): string | undefined; equivalents(): Parsed[] };
  const ContentType = (validatorUtil as unknown as { ContentType: (new (header?: string) => Parsed) & { from(req: object): Parsed } }).ContentType;
  const headers = [
    undefined,
    'application/json',
    'application/json; charset=UTF-8',
    'Application/JSON;charset=utf-8',
    'text/plain; format=flowed; charset=ISO-8859-1',
    'multipart/form-data; boundary=----x',
    'image/*',
    '*/*',
    '',
  ];
  const facts = (parsed: Parsed) => ({
    mediaType: parsed.mediaType,
    parameters: { ...parsed.parameters },
    isWildCard: parsed.isWildCard,
    normalized: parsed.normalize(),
    withoutCharset: parsed.normalize(['charset']),
    equivalents: parsed.equivalents().map((type) => type.normalize()),
  });

  test("give what the validator's own parse gives, the same instance for the same header, frozen", () => {
    parseContentTypesOnce();
    expect(originalContentType).toBeDefined();
    for (const header of headers) {
      const req = { headers: header === undefined ? {} : { 'content-type': header } };
      const own = originalContentType!.from.call(ContentType, req) as unknown as Parsed;
      const first = ContentType.from(req);
      expect(facts(first), String(header)).toEqual(facts(own));
      expect(first.normalize()).toBe(originalContentType!.normalize.call(own));
      expect(ContentType.from({ headers: { ...req.headers } })).toBe(first);
      expect(Object.isFrozen(first) && Object.isFrozen(first.parameters)).toBe(true);
    }
  });

  test('a header too long to keep is parsed on every request, as before', () => {
    parseContentTypesOnce();
    const req = { headers: { 'content-type': `application/json; note=${'x'.repeat(300)}` } };
    const first = ContentType.from(req);
    expect(ContentType.from(req)).not.toBe(first);
    expect(facts(first)).toEqual(facts(originalContentType!.from.call(ContentType, req) as unknown as Parsed));
    expect(Object.isFrozen(first)).toBe(false);
  });
});

describe("the response validator's media type, chosen once per input", () => {
  const util = validatorUtil as unknown as { findResponseContent(accepts: string[], expected: string[]): string | null };
  const prototype = ResponseValidator.prototype as unknown as { canValidateContentType(type: string): boolean };
  const accepted = [
    [],
    ['application/json; charset=utf-8'],
    ['application/json'],
    ['APPLICATION/JSON'],
    ['*/*'],
    ['application/*'],
    ['text/*'],
    ['text/html', 'application/json'],
    ['text/plain'],
    [''],
    ['', 'application/json'],
    ['application/problem+json; charset=utf-8'],
    ['text/markdown; charset=utf-8'],
  ];
  const expectedTypes = [[], ['application/json'], ['application/json', 'text/markdown'], ['text/markdown'], ['application/problem+json'], ['']];

  test("gives what the validator's own choice gives, and works each input out once", () => {
    chooseResponseContentOnce();
    expect(originalResponseContent).toBeDefined();
    for (const expected of expectedTypes) {
      for (const accepts of accepted) {
        const own = originalResponseContent!.find(accepts, expected);
        const before = responseContentChoices.count;
        const first = util.findResponseContent([...accepts], [...expected]);
        expect(first, `${JSON.stringify(accepts)} of ${JSON.stringify(expected)}`).toBe(own);
        expect(util.findResponseContent([...accepts], [...expected])).toBe(own);
        expect(responseContentChoices.count - before).toBeLessThanOrEqual(1);
      }
    }
    // Inputs that only differ in where one list ends are different inputs.
    expect(util.findResponseContent(['application/json', 'text/markdown'], ['text/markdown'])).toBe('text/markdown');
    expect(util.findResponseContent(['application/json'], ['text/markdown', 'text/markdown'])).toBe(originalResponseContent!.find(['application/json'], ['text/markdown', 'text/markdown']));
  });

  test('an input with a line feed, or too long, is worked out every time', () => {
    chooseResponseContentOnce();
    for (const [accepts, expected] of [
      [['application/json\ntext/markdown'], ['text/markdown']],
      [[`application/json; note=${'x'.repeat(600)}`], ['application/json']],
    ] as const) {
      const own = originalResponseContent!.find([...accepts], [...expected]);
      const before = responseContentChoices.count;
      expect(util.findResponseContent([...accepts], [...expected])).toBe(own);
      expect(util.findResponseContent([...accepts], [...expected])).toBe(own);
      expect(responseContentChoices.count - before).toBe(2);
    }
  });

  test('decides whether a type can be checked as the validator does, and throws where it throws', () => {
    chooseResponseContentOnce();
    for (const type of ['application/json', 'application/problem+json', 'text/markdown', 'text/plain; charset=utf-8', 'application/vnd.api+json']) {
      const own = originalResponseContent!.canValidate.call(prototype, type);
      const before = responseContentChoices.count;
      expect(prototype.canValidateContentType(type), type).toBe(own);
      expect(prototype.canValidateContentType(type), type).toBe(own);
      expect(responseContentChoices.count - before).toBeLessThanOrEqual(1);
    }
    for (const type of ['not a type', '*/*', '']) {
      expect(() => originalResponseContent!.canValidate.call(prototype, type)).toThrow();
      expect(() => prototype.canValidateContentType(type)).toThrow();
      expect(() => prototype.canValidateContentType(type)).toThrow();
    }
  });

  describe('in the server', () => {
    // A handler that breaks its operation's answer schema for the spaces named here: the response check must refuse
    // its answer every time.
    const broken = new Set<string>();
    const ctx = useTestServer({
      fixture: extendFixture({ acme: { spaces: [{ id: 'answered', title: 'Answered' }, { id: 'refused', title: 'Refused' }] } }),
      handlers: (_app, table): HandlerTable => ({
        ...table,
        getSpace: async (request, scope) => {
          const answer = (await table.getSpace(request, scope)) as { status: 200; body: Record<string, unknown> };
          if (!broken.has(request.params.spaceId)) return answer as Awaited<ReturnType<HandlerTable['getSpace']>>;
          return { ...answer, body: { ...answer.body, title: 42 } } as unknown as Awaited<ReturnType<HandlerTable['getSpace']>>;
        },
      }),
      log: pino({ level: 'silent' }),
    });

    test('checks every answer, whatever its Accept header, and refuses a wrong one each time', async () => {
      const [good, bad] = ['answered', 'refused'];
      broken.add(bad);
      for (const accept of [undefined, 'application/json', '*/*', 'text/html, application/json;q=0.9', 'application/*']) {
        const headers: Record<string, string> = { authorization: 'Bearer admin', ...(accept ? { accept } : {}) };
        for (let twice = 0; twice < 2; twice++) {
          const answer = await fetch(`${ctx.server.url}/v1/spaces/${good}`, { headers });
          expect(answer.status, String(accept)).toBe(200);
          expect(((await answer.json()) as { id: string }).id).toBe(good);
          const refused = await fetch(`${ctx.server.url}/v1/spaces/${bad}`, { headers });
          expect(refused.status, String(accept)).toBe(500);
          await refused.arrayBuffer();
        }
      }
    });
  });
});
