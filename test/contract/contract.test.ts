// Checks the committed contract in generated/: that it is what spec/ compiles to, that it is valid OpenAPI 3.1,
// that it has exactly the operations of the API document, and the house rules every operation and schema follows.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  apiDocumentPath,
  designPath,
  parseDesignOperations,
  parseEndpointOperations,
} from '../support/api-document.ts';
import { findUndocumented } from '../support/documentation.ts';
import { compareGenerated, generateInto } from '../../scripts/generated-drift.ts';
import { lintOpenApi } from '../../scripts/lint-contract.ts';
import {
  listOperations,
  readOpenApi,
  resolve,
  type OpenApiDocument,
  type Parameter,
  type Response,
} from '../support/openapi.ts';
import { generatedDir, openapiPath } from '../support/repo.ts';

const ERROR_ENVELOPE_REF = '#/components/schemas/ErrorEnvelope';

const list = (lines: string[]) => lines.map((line) => `  - ${line}`).join('\n');

/** Fails with `heading` and one line per offender, or passes when there are none. */
function expectNone(offenders: string[], heading: string): void {
  if (offenders.length > 0) expect.fail(`${heading}\n${list(offenders)}`);
}

let parsed: OpenApiDocument | undefined;

/** The emitted document, parsed once for the file (about 170 ms a parse); each test gets its own copy. */
function readContract(): OpenApiDocument {
  if (!existsSync(openapiPath)) {
    expect.fail('generated/openapi.yaml does not exist. Run `npm run generate` and commit generated/.');
  }
  parsed ??= readOpenApi(openapiPath);
  return structuredClone(parsed);
}

describe('generated/', () => {
  let freshDir: string;
  beforeAll(() => {
    freshDir = mkdtempSync(path.join(tmpdir(), 'contract-drift-'));
  });
  afterAll(() => rmSync(freshDir, { recursive: true, force: true }));

  // `npm test` runs `npm run check` first, which checks this with the same functions; it sets GENERATED_CHECKED so
  // that the suite does not regenerate a second time.
  test.skipIf(process.env.GENERATED_CHECKED === '1')('is exactly what spec/ compiles to', { timeout: 120_000 }, () => {
    generateInto(freshDir);
    expectNone(compareGenerated(freshDir, generatedDir), 'generated/ is out of date with spec/:');
  });
});

describe('generated/openapi.yaml', () => {
  test('declares OpenAPI 3.1', () => {
    expect(readContract().openapi, 'the document must declare OpenAPI 3.1').toMatch(/^3\.1\./);
  });

  // `npm run check` (which `npm test` runs first) lints it the same way.
  test.skipIf(process.env.GENERATED_CHECKED === '1')('passes Redocly’s recommended rules, but for the problems .redocly.lint-ignore.yaml ignores with their reasons', async () => {
    const { problems, stale } = await lintOpenApi();
    expectNone(problems, `Redocly found ${problems.length} problem(s) in generated/openapi.yaml; fix them in spec/, or ignore one with its reason in .redocly.lint-ignore.yaml:`);
    expectNone(stale, '.redocly.lint-ignore.yaml has entries that match no problem; remove them:');
  });
});

describe('the operation inventory', () => {
    const documented = () => parseEndpointOperations(readFileSync(apiDocumentPath, 'utf8'));

    test('the API document lists 151 distinct operations', () => {
      const operations = documented();
      const duplicates = operations.filter((operation, index) => operations.indexOf(operation) !== index);
      expectNone(duplicates, 'The API document parser produced duplicate operations:');
      expect(operations, `parsed from ${apiDocumentPath}`).toHaveLength(151);
    });

    test('the contract has exactly the operations of the API document and the wire decisions', () => {
      const contract = readContract();
      const expected = new Set([...documented(), ...parseDesignOperations(readFileSync(designPath, 'utf8'))]);
      const actual = new Set(listOperations(contract).map((entry) => entry.name));
      const missing = [...expected].filter((operation) => !actual.has(operation));
      const extra = [...actual].filter((operation) => !expected.has(operation));

      // A missing and an extra operation that differ only in their path parameter names are one renaming.
      const shape = (operation: string) => operation.replace(/\{[^}]+\}/g, '{}');
      const renamed = new Map<string, string>(); // contract operation -> document operation
      for (const m of missing) {
        const e = extra.find((candidate) => shape(candidate) === shape(m) && !renamed.has(candidate));
        if (e) renamed.set(e, m);
      }
      const onlyMissing = missing.filter((m) => ![...renamed.values()].includes(m));
      const onlyExtra = extra.filter((e) => !renamed.has(e));

      const sections = [
        onlyMissing.length > 0 && `missing from the contract (add them to spec/):\n${list(onlyMissing)}`,
        onlyExtra.length > 0 &&
          'not in the API document or the wire decisions (remove them from spec/, or fix their method or path):\n' +
            list(onlyExtra),
        renamed.size > 0 &&
          `path parameters named differently from the document (rename them in spec/):\n` +
            list([...renamed].map(([contractName, documentName]) => `${contractName} should be ${documentName}`)),
      ].filter(Boolean);
      if (sections.length > 0) {
        const counts = `generated/openapi.yaml has ${actual.size} operations; the document and the wire decisions list ${expected.size}.`;
        expect.fail(`${counts}\n${sections.join('\n')}`);
      }
    });
});

describe('every operation', () => {
  test('requires the bearer token', () => {
    const contract = readContract();
    const schemes = contract.components?.securitySchemes ?? {};
    const bearer = Object.keys(schemes).filter(
      (name) => schemes[name]?.type === 'http' && schemes[name]?.scheme?.toLowerCase() === 'bearer',
    );
    expect(bearer, 'components.securitySchemes needs an http bearer scheme (`@useAuth(BearerAuth)` in spec/main.tsp)')
      .not.toEqual([]);

    const offenders = listOperations(contract).flatMap(({ name, operation }) => {
      const security = operation.security ?? contract.security;
      if (security === undefined) return [`${name}: no security requirement (neither on the operation nor top-level)`];
      if (security.length === 0) return [`${name}: opts out of authentication with \`security: []\``];
      return security
        .filter((requirement) => !bearer.some((scheme) => scheme in requirement))
        .map((requirement) =>
          Object.keys(requirement).length === 0
            ? `${name}: allows anonymous calls (\`{}\` in its security list, e.g. from @useAuth(NoAuth))`
            : `${name}: can be called with ${Object.keys(requirement).join(' + ')} instead of the bearer token`,
        );
    });
    expectNone(offenders, `Every operation must require ${bearer.join(' or ')} (Authorization: Bearer):`);
  });

  test('declares its 4xx errors with the shared ErrorEnvelope body', () => {
    const contract = readContract();
    const offenders = listOperations(contract).flatMap(({ name, operation }) => {
      const clientErrors = Object.entries(operation.responses ?? {}).filter(([status]) => isStatus(status, 4));
      if (clientErrors.length === 0) return [`${name}: declares no 4xx response`];
      return clientErrors.flatMap(([status, response]) => {
        const schema = resolve<Response>(contract, response).content?.['application/json']?.schema;
        if (schema?.$ref === ERROR_ENVELOPE_REF) return [];
        const actual = schema ? JSON.stringify(schema) : 'not application/json';
        return [`${name} ${status}: body is ${actual}, expected $ref ${ERROR_ENVELOPE_REF}`];
      });
    });
    expectNone(
      offenders,
      'Declare every operation’s error responses with the ErrorEnvelope body (the @error models in spec/common.tsp):',
    );
  });

  test('declares its request body by media types alone, without parameters or wildcards', () => {
    // The server gives the validator a request's media type alone (server/http/request-body.ts): a declared
    // `application/json; charset=utf-8`, or `application/*`, would be chosen otherwise by the validator.
    const contract = readContract();
    const offenders = listOperations(contract).flatMap(({ name, operation }) => {
      const content = operation.requestBody ? (resolve(contract, operation.requestBody) as { content?: object }).content ?? {} : {};
      return Object.keys(content)
        .filter((type) => !/^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(type) || type.includes('*'))
        .map((type) => `${name}: ${type}`);
    });
    expectNone(offenders, 'Declare request bodies by a media type alone (no parameters, no wildcard, lower case):');
  });

  test('declares a 2xx response', () => {
    const contract = readContract();
    const offenders = listOperations(contract)
      .filter(({ operation }) => !Object.keys(operation.responses ?? {}).some((status) => isStatus(status, 2)))
      .map(({ name }) => name);
    expectNone(offenders, 'These operations declare no success (2xx) response:');
  });

  test('has a unique camelCase operationId', () => {
    const contract = readContract();
    const operations = listOperations(contract);
    const offenders = operations.flatMap(({ name, operation: { operationId } }) => {
      if (!operationId) return [`${name}: no operationId (add @operationId("...") in spec/)`];
      if (!/^[a-z][a-zA-Z0-9]*$/.test(operationId)) return [`${name}: operationId "${operationId}" is not camelCase`];
      const sharing = operations
        .filter((other) => other.operation.operationId === operationId && other.name !== name)
        .map((other) => other.name);
      return sharing.length > 0 ? [`${name}: operationId "${operationId}" is also used by ${sharing.join(', ')}`] : [];
    });
    expectNone(offenders, 'Operation ids must be present, unique and camelCase:');
  });

  test('has a description', () => {
    const contract = readContract();
    const offenders = listOperations(contract)
      .filter(({ operation }) => !operation.description?.trim())
      .map(({ name, operation }) => `${name}${operation.operationId ? ` (${operation.operationId})` : ''}`);
    expectNone(offenders, 'These operations have no description; give each a doc comment in spec/:');
  });
});

describe('the contract’s documentation', () => {
  test('describes every schema, property and parameter', () => {
    const contract = readContract();
    expectNone(findUndocumented(contract), 'These have no description; add a doc comment (/** ... */) in spec/:');
  });
});

describe('array query parameters', () => {
  test('are exploded (a=1&a=2), as openapi-fetch sends them', () => {
    const contract = readContract();
    const offenders = listOperations(contract).flatMap(({ name, pathItem, operation }) =>
      [...(pathItem.parameters ?? []), ...(operation.parameters ?? [])]
        .map((parameter) => resolve<Parameter>(contract, parameter))
        .filter((parameter) => parameter.in === 'query' && isArray(contract, parameter) && parameter.explode === false)
        .map((parameter) => `${name}: query parameter "${parameter.name}"`),
    );
    expectNone(
      offenders,
      'These array query parameters have `explode: false`; declare them with `@query(#{ explode: true })` in spec/:',
    );
  });
});

/** `2xx`, `204`, `4XX` and the like. */
const isStatus = (status: string, hundreds: number) => new RegExp(`^${hundreds}(\\d\\d|XX)$`, 'i').test(status);

function isArray(contract: OpenApiDocument, parameter: Parameter): boolean {
  const schema = parameter.schema && resolve(contract, parameter.schema);
  if (!schema) return false;
  const types = [schema.type, ...(schema.anyOf ?? []).map((variant) => resolve(contract, variant).type)].flat();
  return types.includes('array');
}
