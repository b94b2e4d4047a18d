// The emitted document declares the JSON Schema dialect of its schemas (`jsonSchemaDialect`), and a validator that
// follows it reads the schemas as written: a real answer of the server passes, and with a field the contract does not
// declare is refused (`unevaluatedProperties`), at the top and nested; the runner refuses a dialect it does not read.
// Why the declaration matters: test/README.md, "The schema dialect".
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, expect, test } from 'vitest';
import { Session, UsageError } from '../../conformance/runner/session.ts';
import { parseContractYaml } from '../../server/http/contract.ts';
import { SCHEMA_DIALECT } from '../../scripts/generate.ts';
import { ok } from '../support/expect.ts';
import { ACME } from '../support/fixture.ts';
import { openapiPath } from '../support/repo.ts';
import { useTestServer } from '../support/server.ts';

const addFormats = addFormatsModule.default;
const document = parseContractYaml(readFileSync(openapiPath, 'utf8'));
const ctx = useTestServer({ recordCoverage: false });

const OAS_BASE = 'https://spec.openapis.org/oas/3.1/dialect/base';

/**
 * A validator for each dialect, as a tool that follows `jsonSchemaDialect` picks one: OpenAPI 3.1's base dialect is
 * JSON Schema 2020-12 with OpenAPI's vocabulary (`discriminator`, `xml`, `externalDocs`, `example`: annotations, which
 * `strict: false` lets through); a document that declares none is read as draft-07 by Prism.
 */
const VALIDATORS: Record<string, () => Ajv2020 | Ajv> = {
  [OAS_BASE]: () => new Ajv2020({ strict: false, allErrors: true }),
  'https://json-schema.org/draft/2020-12/schema': () => new Ajv2020({ strict: false, allErrors: true }),
  'http://json-schema.org/draft-07/schema#': () => new Ajv({ strict: false, allErrors: true }),
};

/** The validator of the 200 answer of `operationId`, for the dialect `dialect` (draft-07 when undefined, as Prism). */
function answerValidator(dialect: string | undefined, operationId: string): ValidateFunction {
  const make = VALIDATORS[dialect ?? 'http://json-schema.org/draft-07/schema#'];
  if (!make) throw new Error(`no validator for the dialect ${dialect}`);
  const ajv = make();
  addFormats(ajv);
  ajv.addSchema({ components: document.components } as object, 'contract');
  for (const item of Object.values(document.paths)) {
    const operation = item.get;
    if (operation?.operationId !== operationId) continue;
    const schema = operation.responses['200'].content['application/json'].schema as object;
    // References into the document, from a schema compiled on its own.
    return ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"contract#/components/')) as object);
  }
  throw new Error(`no GET ${operationId} in the contract`);
}

describe('the schema dialect', () => {
  test('the emitted document, and the one the server serves, declare OpenAPI 3.1’s base dialect', async () => {
    expect(SCHEMA_DIALECT).toBe(OAS_BASE);
    expect(document.openapi).toBe('3.1.0');
    expect(document.jsonSchemaDialect).toBe(OAS_BASE);
    expect(readFileSync(openapiPath, 'utf8').split('\n').slice(0, 2)).toEqual(['openapi: 3.1.0', `jsonSchemaDialect: ${OAS_BASE}`]);
    const served = (await (await fetch(`${ctx.server.url}/openapi.json`)).json()) as { jsonSchemaDialect?: string };
    expect(served.jsonSchemaDialect).toBe(OAS_BASE);
  });

  test('a validator following the declared dialect refuses an answer with a field the contract does not declare', async () => {
    const admin = ctx.server.as('admin');
    const organization = ok(await admin.GET('/v1/orgs/{organizationId}', { params: { path: { organizationId: ACME } } }), 200);
    const space = ok(await admin.POST('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId: ACME } }, body: { title: 'Dialect' } }), 201);
    const read = ok(await admin.GET('/v1/spaces/{spaceId}', { params: { path: { spaceId: space.id } } }), 200);
    const cases = [
      { operationId: 'getOrganization', answer: organization as object, extended: { ...organization, billingNote: 'unknown to the contract' }, where: '', field: 'billingNote' },
      { operationId: 'getSpace', answer: read as object, extended: { ...read, urls: { ...read.urls, mirror: 'https://example.test/' } }, where: '/urls', field: 'mirror' },
    ];
    for (const { operationId, answer, extended, where, field } of cases) {
      const declared = answerValidator(document.jsonSchemaDialect as string, operationId);
      expect(declared(answer), `${operationId}: ${JSON.stringify(declared.errors)}`).toBe(true);
      expect(declared(extended), operationId).toBe(false);
      // The contract seals with `unevaluatedProperties: {not: {}}`: the unknown field fails its `not`.
      expect(declared.errors, operationId).toContainEqual(expect.objectContaining({ instancePath: `${where}/${field}`, schemaPath: expect.stringMatching(/unevaluatedProperties\/not$/) }));
      // Read as draft-07 (a document without the declaration, in Prism), the same answer passes.
      const undeclared = answerValidator(undefined, operationId);
      expect(undeclared(extended), operationId).toBe(true);
    }
  });

  test('the conformance runner validates in the declared dialect, and refuses a contract declaring one it does not read', () => {
    expect(() => new Session({ baseUrl: 'http://127.0.0.1:9', token: 't' })).not.toThrow();
    const dir = mkdtempSync(path.join(tmpdir(), 'dialect-'));
    try {
      const other = path.join(dir, 'openapi.yaml');
      writeFileSync(other, readFileSync(openapiPath, 'utf8').replace(`jsonSchemaDialect: ${OAS_BASE}`, 'jsonSchemaDialect: https://json-schema.org/draft/2019-09/schema'));
      expect(() => new Session({ baseUrl: 'http://127.0.0.1:9', token: 't', contract: other })).toThrow(UsageError);
      expect(() => new Session({ baseUrl: 'http://127.0.0.1:9', token: 't', contract: other })).toThrow(/declares the JSON Schema dialect "https:\/\/json-schema\.org\/draft\/2019-09\/schema"/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
