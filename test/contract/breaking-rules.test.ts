// Every rule of the breaking-change comparison, each on a tiny pair of documents built here, plus how the
// comparison reads schemas ($ref, allOf, anyOf/oneOf, nullable spellings, maps, arrays, recursion, direction) and
// how the gate judges findings against declarations and versions.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import {
  RULES,
  SCHEMA_CONTEXTS,
  compareDocuments,
  evaluateGate,
  notesBetween,
  parseDeclarations,
  prependNotes,
  releasedNotes,
  renderNotes,
  schemaRule,
  type Finding,
  type RuleId,
  type SchemaContext,
  type SchemaKind,
} from '../../breaking/index.ts';
import { repoRoot } from '../support/repo.ts';

type Schema = Record<string, unknown>;
type Doc = Record<string, unknown>;

function doc(paths: Record<string, unknown>, schemas: Record<string, unknown> = {}, extra: Doc = {}): Doc {
  return { openapi: '3.1.0', info: { title: 'Things', version: '1.0.0' }, paths, components: { schemas }, ...extra };
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: unknown) => ({ 'application/json': { schema } });
const noContent = { '204': { description: 'Done.' } };
const ok = (schema: unknown, more: Record<string, unknown> = {}) => ({ '200': { description: 'OK.', content: json(schema), ...more } });

/** The rules of the findings. */
const rules = (findings: Finding[]) => findings.map((finding) => finding.rule);

// ---- schema rules, in each of the four contexts --------------------------------------------------------------

/** A document where `schema` sits in `context`, reached by one operation. */
function placed(context: SchemaContext, schema: Schema, schemas: Record<string, unknown> = {}): Doc {
  switch (context) {
    case 'request-property':
      return doc(
        { '/things': { post: { operationId: 'createThing', requestBody: { required: true, content: json(ref('ThingRequest')) }, responses: noContent } } },
        { ThingRequest: { type: 'object', required: ['field'], properties: { field: schema }, unevaluatedProperties: { not: {} } }, ...schemas },
      );
    case 'request-parameter':
      return doc(
        { '/things': { get: { operationId: 'listThings', parameters: [{ name: 'field', in: 'query', required: false, schema }], responses: noContent } } },
        schemas,
      );
    case 'response-property':
      return doc(
        { '/things': { get: { operationId: 'listThings', responses: ok(ref('Thing')) } } },
        { Thing: { type: 'object', required: ['field'], properties: { field: schema }, unevaluatedProperties: { not: {} } }, ...schemas },
      );
    case 'response-header':
      return doc(
        {
          '/things': {
            get: {
              operationId: 'listThings',
              responses: { '200': { description: 'OK.', headers: { 'x-field': { required: true, schema } }, content: json({ type: 'string' }) } },
            },
          },
        },
        schemas,
      );
  }
}

const PLACE: Record<SchemaContext, { path: string; field: string; operation: string }> = {
  'request-property': { path: '#/components/schemas/ThingRequest/properties/field', field: 'ThingRequest.field', operation: 'createThing' },
  'request-parameter': { path: '#/paths/~1things/get/parameters/0/schema', field: 'field', operation: 'listThings' },
  'response-property': { path: '#/components/schemas/Thing/properties/field', field: 'Thing.field', operation: 'listThings' },
  'response-header': { path: '#/paths/~1things/get/responses/200/headers/x-field/schema', field: 'x-field', operation: 'listThings' },
};

const pet = (kind: string) => ({
  type: 'object',
  required: ['kind', 'type'],
  properties: { kind: { type: 'string', enum: [kind] }, type: { type: 'string', enum: [kind] } },
});

/** An object tagged by `kind` with these values (the first is its own; others it may share, as a mapping decides). */
const tagged = (...kinds: string[]) => ({ type: 'object', required: ['kind'], properties: { kind: { type: 'string', enum: kinds }, name: { type: 'string' } } });

/** One pair of schemas per change; each is placed in every context that has the rule. */
const SCALAR_CASES: Partial<Record<SchemaKind, { before: Schema; after: Schema; schemas?: Record<string, unknown>; detail: string }>> = {
  'type-changed': { before: { type: 'string' }, after: { type: 'boolean' }, detail: 'type string → boolean' },
  'type-widened': { before: { type: 'integer' }, after: { type: 'number' }, detail: 'type integer → number' },
  'type-narrowed': { before: { type: 'number' }, after: { type: 'integer' }, detail: 'type number → integer' },
  'became-nullable': { before: { type: 'string' }, after: { type: ['string', 'null'] }, detail: 'now nullable' },
  'became-not-nullable': { before: { anyOf: [{ type: 'string' }, { type: 'null' }] }, after: { type: 'string' }, detail: 'no longer nullable' },
  'format-added': { before: { type: 'string' }, after: { type: 'string', format: 'uri' }, detail: 'format none → uri' },
  'format-removed': { before: { type: 'string', format: 'date-time' }, after: { type: 'string' }, detail: 'format date-time → none' },
  'format-changed': { before: { type: 'string', format: 'date-time' }, after: { type: 'string', format: 'date' }, detail: 'format date-time → date' },
  'enum-value-added': { before: { type: 'string', enum: ['website'] }, after: { type: 'string', enum: ['website', 'git'] }, detail: 'new value "git"' },
  'enum-value-removed': { before: { type: 'string', enum: ['a', 'b'] }, after: { type: 'string', enum: ['a'] }, detail: 'value "b" removed' },
  'enum-introduced': { before: { type: 'string' }, after: { type: 'string', enum: ['a', 'b'] }, detail: 'now one of "a", "b"' },
  'enum-dropped': { before: { type: 'string', enum: ['a', 'b'] }, after: { type: 'string' }, detail: 'no longer limited to "a", "b"' },
  'max-length-decreased': { before: { type: 'string', maxLength: 255 }, after: { type: 'string', maxLength: 100 }, detail: 'maxLength 255 → 100' },
  'max-length-increased': { before: { type: 'string', maxLength: 100 }, after: { type: 'string' }, detail: 'maxLength 100 → none' },
  'min-length-increased': { before: { type: 'string', minLength: 1 }, after: { type: 'string', minLength: 2 }, detail: 'minLength 1 → 2' },
  'min-length-decreased': { before: { type: 'string', minLength: 2 }, after: { type: 'string', minLength: 1 }, detail: 'minLength 2 → 1' },
  'max-decreased': { before: { type: 'integer', maximum: 1000 }, after: { type: 'integer', maximum: 100 }, detail: 'maximum 1000 → 100' },
  'max-increased': { before: { type: 'integer', exclusiveMaximum: 10 }, after: { type: 'integer', maximum: 10 }, detail: 'exclusiveMaximum 10 → maximum 10' },
  'min-increased': { before: { type: 'integer' }, after: { type: 'integer', minimum: 1 }, detail: 'minimum none → minimum 1' },
  'min-decreased': { before: { type: 'integer', minimum: 1 }, after: { type: 'integer', minimum: 0 }, detail: 'minimum 1 → 0' },
  'max-items-decreased': {
    before: { type: 'array', items: { type: 'string' }, maxItems: 10 },
    after: { type: 'array', items: { type: 'string' }, maxItems: 5 },
    detail: 'maxItems 10 → 5',
  },
  'max-items-increased': {
    before: { type: 'array', items: { type: 'string' }, maxItems: 5 },
    after: { type: 'array', items: { type: 'string' }, maxItems: 10 },
    detail: 'maxItems 5 → 10',
  },
  'min-items-increased': {
    before: { type: 'array', items: { type: 'string' } },
    after: { type: 'array', items: { type: 'string' }, minItems: 1 },
    detail: 'minItems none → 1',
  },
  'min-items-decreased': {
    before: { type: 'array', items: { type: 'string' }, minItems: 2 },
    after: { type: 'array', items: { type: 'string' }, minItems: 1 },
    detail: 'minItems 2 → 1',
  },
  'pattern-added': { before: { type: 'string' }, after: { type: 'string', pattern: '^[a-z]+$' }, detail: 'pattern none → "^[a-z]+$"' },
  'pattern-removed': { before: { type: 'string', pattern: '^[a-z]+$' }, after: { type: 'string' }, detail: 'pattern "^[a-z]+$" → none' },
  'pattern-changed': { before: { type: 'string', pattern: '^[a-z]+$' }, after: { type: 'string', pattern: '^[a-z0-9]+$' }, detail: 'pattern "^[a-z]+$" → "^[a-z0-9]+$"' },
  'constraint-changed': { before: { type: 'integer', multipleOf: 2 }, after: { type: 'integer', multipleOf: 3 }, detail: 'multipleOf 2 → 3' },
  'constraint-tightened': {
    before: { type: 'array', items: { type: 'string' } },
    after: { type: 'array', items: { type: 'string' }, uniqueItems: true },
    detail: 'uniqueItems none → true',
  },
  'constraint-loosened': { before: { type: 'integer', multipleOf: 4 }, after: { type: 'integer', multipleOf: 2 }, detail: 'multipleOf 4 → 2' },
  'default-changed': { before: { type: 'integer', default: 50 }, after: { type: 'integer', default: 20 }, detail: 'default 50 → 20' },
  'default-added': { before: { type: 'integer' }, after: { type: 'integer', default: 20 }, detail: 'default none → 20' },
  'default-removed': { before: { type: 'integer', default: 50 }, after: { type: 'integer' }, detail: 'default 50 → none' },
  deprecated: { before: { type: 'string' }, after: { type: 'string', deprecated: true }, detail: 'deprecated' },
  undeprecated: { before: { type: 'string', deprecated: true }, after: { type: 'string' }, detail: 'no longer deprecated' },
  'variant-added': {
    before: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
    after: { anyOf: [{ type: 'string' }, { type: 'integer' }, { type: 'boolean' }] },
    detail: 'new alternative boolean',
  },
  'variant-removed': {
    before: { anyOf: [{ type: 'string' }, ref('Cat')] },
    after: { type: 'string' },
    schemas: { Cat: pet('cat') },
    detail: 'alternative `Cat` removed',
  },
  'discriminator-changed': {
    before: { oneOf: [ref('Cat'), ref('Dog')], discriminator: { propertyName: 'kind' } },
    after: { oneOf: [ref('Cat'), ref('Dog')], discriminator: { propertyName: 'type' } },
    schemas: { Cat: pet('cat'), Dog: pet('dog') },
    detail: 'discriminator `kind` → `type`',
  },
  'discriminator-tag-added': {
    before: { oneOf: [ref('Cat'), ref('Dog')] },
    after: { oneOf: [ref('Cat'), ref('Dog'), ref('Bird')] },
    schemas: { Cat: pet('cat'), Dog: pet('dog'), Bird: pet('bird') },
    detail: 'discriminator `kind`: new tag "bird" (`Bird`)',
  },
  'discriminator-tag-removed': {
    before: { oneOf: [ref('Cat'), ref('Dog'), ref('Bird')], discriminator: { propertyName: 'kind' } },
    after: { oneOf: [ref('Cat'), ref('Dog')], discriminator: { propertyName: 'kind' } },
    schemas: { Cat: pet('cat'), Dog: pet('dog'), Bird: pet('bird') },
    detail: 'discriminator `kind`: tag "bird" (`Bird`) removed',
  },
  'discriminator-tag-renamed': {
    before: { anyOf: [tagged('cat'), tagged('dog')] },
    after: { anyOf: [tagged('kitten'), tagged('dog')] },
    detail: 'discriminator `kind`: tag "cat" renamed "kitten"',
  },
  'discriminator-mapping-changed': {
    before: { oneOf: [ref('Dog'), ref('Wolf')], discriminator: { propertyName: 'kind', mapping: { hound: '#/components/schemas/Dog' } } },
    after: { oneOf: [ref('Dog'), ref('Wolf')], discriminator: { propertyName: 'kind', mapping: { hound: '#/components/schemas/Wolf' } } },
    schemas: { Dog: tagged('dog', 'hound'), Wolf: tagged('wolf', 'hound') },
    detail: 'discriminator `kind`: tag "hound" now selects `Wolf` (was `Dog`)',
  },
};

/** Object changes: the object is the body's (or the answer's) schema itself. */
const OBJECT_CASES: Partial<Record<SchemaKind, { before: Schema; after: Schema; property: string; detail: string }>> = {
  removed: {
    before: { type: 'object', properties: { name: { type: 'string' }, nickname: { type: 'string' } } },
    after: { type: 'object', properties: { name: { type: 'string' } } },
    property: 'nickname',
    detail: 'removed',
  },
  added: {
    before: { type: 'object', properties: { name: { type: 'string' } } },
    after: { type: 'object', properties: { name: { type: 'string' }, nickname: { type: 'string' } } },
    property: 'nickname',
    detail: 'new optional field',
  },
  'added-required': {
    before: { type: 'object', properties: { name: { type: 'string' } } },
    after: { type: 'object', required: ['nickname'], properties: { name: { type: 'string' }, nickname: { type: 'string' } } },
    property: 'nickname',
    detail: 'new required field',
  },
  'became-required': {
    before: { type: 'object', properties: { name: { type: 'string' } } },
    after: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
    property: 'name',
    detail: 'now required',
  },
  'became-optional': {
    before: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
    after: { type: 'object', properties: { name: { type: 'string' } } },
    property: 'name',
    detail: 'now optional',
  },
  sealed: {
    before: { type: 'object', properties: { name: { type: 'string' } } },
    after: { type: 'object', properties: { name: { type: 'string' } }, unevaluatedProperties: { not: {} } },
    property: '',
    detail: 'undeclared fields no longer allowed',
  },
  unsealed: {
    before: { type: 'object', properties: { name: { type: 'string' } }, additionalProperties: false },
    after: { type: 'object', properties: { name: { type: 'string' } } },
    property: '',
    detail: 'undeclared fields now allowed',
  },
  'became-read-only': {
    before: { type: 'object', properties: { name: { type: 'string' }, nickname: { type: 'string' } } },
    after: { type: 'object', properties: { name: { type: 'string' }, nickname: { type: 'string', readOnly: true } } },
    property: 'nickname',
    detail: 'now read-only: set by the server, no longer sent',
  },
  'became-writable': {
    before: { type: 'object', properties: { name: { type: 'string' }, nickname: { type: 'string', readOnly: true } } },
    after: { type: 'object', properties: { name: { type: 'string' }, nickname: { type: 'string' } } },
    property: 'nickname',
    detail: 'no longer read-only: now sent in requests',
  },
  'became-write-only': {
    before: { type: 'object', properties: { name: { type: 'string' }, secret: { type: 'string' } } },
    after: { type: 'object', properties: { name: { type: 'string' }, secret: { type: 'string', writeOnly: true } } },
    property: 'secret',
    detail: 'now write-only: no longer answered',
  },
  'became-readable': {
    before: { type: 'object', properties: { name: { type: 'string' }, secret: { type: 'string', writeOnly: true } } },
    after: { type: 'object', properties: { name: { type: 'string' }, secret: { type: 'string' } } },
    property: 'secret',
    detail: 'no longer write-only: now answered',
  },
};

function objectPlaced(direction: 'request' | 'response', schema: Schema): Doc {
  return direction === 'request'
    ? doc({ '/things': { post: { operationId: 'createThing', requestBody: { required: true, content: json(ref('Thing')) }, responses: noContent } } }, { Thing: schema })
    : doc({ '/things': { get: { operationId: 'getThing', responses: ok(ref('Thing')) } } }, { Thing: schema });
}

const tested = new Set<RuleId>();

describe('schema rules, per context', () => {
  for (const context of SCHEMA_CONTEXTS) {
    for (const [kind, pair] of Object.entries(SCALAR_CASES) as [SchemaKind, NonNullable<(typeof SCALAR_CASES)[SchemaKind]>][]) {
      const rule = schemaRule(context, kind);
      if (!rule) continue;
      tested.add(rule);
      test(rule, () => {
        const findings = compareDocuments(placed(context, pair.before, pair.schemas), placed(context, pair.after, pair.schemas));
        expect(rules(findings)).toEqual([rule]);
        const [finding] = findings as [Finding];
        const place = PLACE[context];
        expect(finding.severity).toBe(RULES.get(rule)!.severity);
        expect(finding.path.startsWith(place.path)).toBe(true);
        expect(finding.detail).toBe(pair.detail);
        expect(finding.message).toBe(`\`${place.field}\`: ${pair.detail}`);
        expect(finding.operations.map((operation) => operation.operationId)).toEqual([place.operation]);
      });
    }
  }
  for (const direction of ['request', 'response'] as const) {
    for (const [kind, pair] of Object.entries(OBJECT_CASES) as [SchemaKind, NonNullable<(typeof OBJECT_CASES)[SchemaKind]>][]) {
      const rule = `${direction}-property-${kind}` as RuleId;
      if (!RULES.has(rule)) continue;
      tested.add(rule);
      test(rule, () => {
        const findings = compareDocuments(objectPlaced(direction, pair.before), objectPlaced(direction, pair.after));
        expect(rules(findings)).toEqual([rule]);
        const [finding] = findings as [Finding];
        expect(finding.severity).toBe(RULES.get(rule)!.severity);
        expect(finding.schema).toBe('Thing');
        expect(finding.path).toBe(pair.property ? `#/components/schemas/Thing/properties/${pair.property}` : '#/components/schemas/Thing');
        expect(finding.document).toBe(kind === 'removed' ? 'base' : 'revision');
        expect(finding.message).toBe(`\`Thing${pair.property ? `.${pair.property}` : ''}\`: ${pair.detail}`);
      });
    }
  }
});

// ---- operation, parameter, body, response and component rules ------------------------------------------------

const thing = { type: 'object', properties: { name: { type: 'string' } } };
const getThing = (more: Record<string, unknown> = {}) => ({ operationId: 'getThing', responses: ok(ref('Thing')), ...more });
const one = (operation: Record<string, unknown>, extra: Doc = {}, route = '/things/{thingId}') =>
  doc({ [route]: { get: { parameters: [{ name: 'thingId', in: 'path', required: true, schema: { type: 'string' } }], ...operation } } }, { Thing: thing }, extra);
const query = (name: string, more: Record<string, unknown> = {}) => ({ name, in: 'query', schema: { type: 'string' }, ...more });
const withParameters = (...parameters: unknown[]) =>
  one(getThing({ parameters: [{ name: 'thingId', in: 'path', required: true, schema: { type: 'string' } }, ...parameters] }));
const post = (requestBody: unknown, more: Record<string, unknown> = {}) =>
  doc({ '/things': { post: { operationId: 'createThing', ...(requestBody ? { requestBody } : {}), responses: noContent, ...more } } });
const bearer = { components: { schemas: { Thing: thing }, securitySchemes: { BearerAuth: { type: 'http', scheme: 'Bearer' }, ApiKey: { type: 'apiKey', in: 'header', name: 'x-key' } } } };

interface Case {
  before: Doc;
  after: Doc;
  /** The finding's path; the operation is checked too when given. */
  path: string;
  operation?: string;
  message: RegExp;
}

const OAS_DIALECT = 'https://spec.openapis.org/oas/3.1/dialect/base';

const OPERATION_CASES: Record<string, Case> = {
  'schema-dialect-declared': {
    before: one(getThing()),
    after: one(getThing(), { jsonSchemaDialect: OAS_DIALECT }),
    path: '#/jsonSchemaDialect',
    message: /^jsonSchemaDialect https:\/\/spec\.openapis\.org\/oas\/3\.1\/dialect\/base declared/,
  },
  'schema-dialect-undeclared': {
    before: one(getThing(), { jsonSchemaDialect: OAS_DIALECT }),
    after: one(getThing()),
    path: '#/jsonSchemaDialect',
    message: /no longer declared \(still the default\)$/,
  },
  'schema-dialect-changed': {
    before: one(getThing(), { jsonSchemaDialect: OAS_DIALECT }),
    after: one(getThing(), { jsonSchemaDialect: 'https://json-schema.org/draft/2019-09/schema' }),
    path: '#/jsonSchemaDialect',
    message: /^jsonSchemaDialect https:\/\/spec\.openapis\.org\/oas\/3\.1\/dialect\/base → https:\/\/json-schema\.org\/draft\/2019-09\/schema$/,
  },
  'operation-added': {
    before: one(getThing()),
    after: doc({ ...(one(getThing()).paths as object), '/things': { get: { operationId: 'listThings', responses: ok({ type: 'array', items: ref('Thing') }) } } }, { Thing: thing }),
    path: '#/paths/~1things/get',
    operation: 'listThings',
    message: /new operation GET \/things/,
  },
  'operation-removed': {
    before: doc({ ...(one(getThing()).paths as object), '/things': { get: { operationId: 'listThings', responses: noContent } } }, { Thing: thing }),
    after: one(getThing()),
    path: '#/paths/~1things/get',
    operation: 'listThings',
    message: /GET \/things removed/,
  },
  'operation-id-changed': {
    before: one(getThing()),
    after: one(getThing({ operationId: 'readThing' })),
    path: '#/paths/~1things~1{thingId}/get/operationId',
    operation: 'readThing',
    message: /operation id `getThing` renamed `readThing` \(the same request and answer\)/,
  },
  'operation-path-changed': {
    before: one(getThing()),
    after: one(getThing(), {}, '/items/{thingId}'),
    path: '#/paths/~1items~1{thingId}/get',
    operation: 'getThing',
    message: /GET \/things\/\{thingId\} → GET \/items\/\{thingId\}/,
  },
  'operation-deprecated': {
    before: one(getThing()),
    after: one(getThing({ deprecated: true })),
    path: '#/paths/~1things~1{thingId}/get/deprecated',
    operation: 'getThing',
    message: /deprecated/,
  },
  'operation-security-changed': {
    before: one(getThing(), { security: [{ BearerAuth: [] }, { ApiKey: [] }], ...bearer }),
    after: one(getThing({ security: [{ ApiKey: [] }] }), { security: [{ BearerAuth: [] }, { ApiKey: [] }], ...bearer }),
    path: '#/paths/~1things~1{thingId}/get/security',
    operation: 'getThing',
    message: /BearerAuth no longer accepted; now ApiKey/,
  },
  'operation-security-alternative-added': {
    before: one(getThing(), { security: [{ BearerAuth: [] }], ...bearer }),
    after: one(getThing({ security: [{ BearerAuth: [] }, {}] }), { security: [{ BearerAuth: [] }], ...bearer }),
    path: '#/paths/~1things~1{thingId}/get/security',
    operation: 'getThing',
    message: /no authentication now accepted/,
  },
  'security-scheme-changed': {
    before: one(getThing(), { security: [{ BearerAuth: [] }], ...bearer }),
    after: one(getThing(), {
      security: [{ BearerAuth: [] }],
      components: { schemas: { Thing: thing }, securitySchemes: { ...bearer.components.securitySchemes, BearerAuth: { type: 'http', scheme: 'Basic' } } },
    }),
    path: '#/components/securitySchemes/BearerAuth',
    operation: 'getThing',
    message: /security scheme `BearerAuth`: scheme bearer → basic/,
  },
  'security-scheme-renamed': {
    before: one(getThing(), { security: [{ BearerAuth: [] }], ...bearer }),
    after: one(getThing(), {
      security: [{ HttpBearer: [] }],
      components: { schemas: { Thing: thing }, securitySchemes: { HttpBearer: { type: 'http', scheme: 'bearer', description: 'A token.' }, ApiKey: bearer.components.securitySchemes.ApiKey } },
    }),
    path: '#/components/securitySchemes/HttpBearer',
    operation: 'getThing',
    message: /^security scheme `BearerAuth` renamed `HttpBearer` \(the same definition\)$/,
  },
  'operation-undeprecated': {
    before: one(getThing({ deprecated: true })),
    after: one(getThing()),
    path: '#/paths/~1things~1{thingId}/get',
    operation: 'getThing',
    message: /no longer deprecated/,
  },
  'schema-removed': {
    before: doc({}, { Thing: thing, Unused: { type: 'string' } }),
    after: doc({}, { Thing: thing }),
    path: '#/components/schemas/Unused',
    message: /schema `Unused` removed; no operation uses it/,
  },
  'schema-renamed': {
    before: one(getThing(), { components: { schemas: { Thing: { type: 'object', properties: { urls: ref('Urls') } }, Urls: { type: 'object', properties: { app: { type: 'string' } } } } } }),
    after: one(getThing(), { components: { schemas: { Thing: { type: 'object', properties: { urls: ref('Links') } }, Links: { type: 'object', properties: { app: { type: 'string' } } } } } }),
    path: '#/components/schemas/Links',
    operation: 'getThing',
    message: /schema `Urls` renamed `Links` \(the same shape\); the generated types of 1 operation name it/,
  },
  'request-parameter-added': {
    before: withParameters(),
    after: withParameters(query('search')),
    path: '#/paths/~1things~1{thingId}/get/parameters/1',
    operation: 'getThing',
    message: /`search`: new optional query parameter/,
  },
  'request-parameter-added-required': {
    before: withParameters(),
    after: withParameters(query('scope', { required: true })),
    path: '#/paths/~1things~1{thingId}/get/parameters/1',
    operation: 'getThing',
    message: /`scope`: new required query parameter/,
  },
  'request-parameter-removed': {
    before: withParameters(query('search')),
    after: withParameters(),
    path: '#/paths/~1things~1{thingId}/get/parameters/1',
    operation: 'getThing',
    message: /`search`: query parameter removed/,
  },
  'request-parameter-became-required': {
    before: withParameters(query('limit')),
    after: withParameters(query('limit', { required: true })),
    path: '#/paths/~1things~1{thingId}/get/parameters/1',
    operation: 'getThing',
    message: /`limit`: now required/,
  },
  'request-parameter-became-optional': {
    before: withParameters(query('limit', { required: true })),
    after: withParameters(query('limit')),
    path: '#/paths/~1things~1{thingId}/get/parameters/1',
    operation: 'getThing',
    message: /`limit`: now optional/,
  },
  'request-parameter-location-changed': {
    before: withParameters(query('shareKey')),
    after: withParameters({ name: 'shareKey', in: 'header', schema: { type: 'string' } }),
    path: '#/paths/~1things~1{thingId}/get/parameters/1',
    operation: 'getThing',
    message: /`shareKey`: `in: query` → `in: header`/,
  },
  'request-parameter-style-changed': {
    before: withParameters(query('ids', { schema: { type: 'array', items: { type: 'string' } } })),
    after: withParameters(query('ids', { style: 'pipeDelimited', explode: true, schema: { type: 'array', items: { type: 'string' } } })),
    path: '#/paths/~1things~1{thingId}/get/parameters/1',
    operation: 'getThing',
    message: /`ids`: style form → pipeDelimited/,
  },
  'request-parameter-explode-changed': {
    before: withParameters(query('ids', { explode: true, schema: { type: 'array', items: { type: 'string' } } })),
    after: withParameters(query('ids', { explode: false, schema: { type: 'array', items: { type: 'string' } } })),
    path: '#/paths/~1things~1{thingId}/get/parameters/1',
    operation: 'getThing',
    message: /`ids`: explode true → false/,
  },
  'request-parameter-renamed': {
    before: one(getThing()),
    after: doc(
      { '/things/{id}': { get: { parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }], ...getThing() } } },
      { Thing: thing },
    ),
    path: '#/paths/~1things~1{id}/get/parameters/0',
    operation: 'getThing',
    message: /`id`: path parameter `thingId` → `id`/,
  },
  'request-body-added': {
    before: post(undefined),
    after: post({ content: json({ type: 'object' }) }),
    path: '#/paths/~1things/post/requestBody',
    operation: 'createThing',
    message: /an optional body is now accepted/,
  },
  'request-body-added-required': {
    before: post(undefined),
    after: post({ required: true, content: json({ type: 'object' }) }),
    path: '#/paths/~1things/post/requestBody',
    operation: 'createThing',
    message: /a body is now required/,
  },
  'request-body-removed': {
    before: post({ content: json({ type: 'object' }) }),
    after: post(undefined),
    path: '#/paths/~1things/post/requestBody',
    operation: 'createThing',
    message: /no longer accepted/,
  },
  'request-body-removed-unspecified': {
    before: doc({ '/things': { get: { operationId: 'listThings', requestBody: { content: { 'application/json': {} } }, responses: noContent } } }),
    after: doc({ '/things': { get: { operationId: 'listThings', responses: noContent } } }),
    path: '#/paths/~1things/get/requestBody',
    operation: 'listThings',
    message: /an optional body without a schema is no longer declared/,
  },
  'request-body-became-required': {
    before: post({ content: json({ type: 'object' }) }),
    after: post({ required: true, content: json({ type: 'object' }) }),
    path: '#/paths/~1things/post/requestBody',
    operation: 'createThing',
    message: /the body is now required/,
  },
  'request-body-became-optional': {
    before: post({ required: true, content: json({ type: 'object' }) }),
    after: post({ content: json({ type: 'object' }) }),
    path: '#/paths/~1things/post/requestBody',
    operation: 'createThing',
    message: /the body is now optional/,
  },
  'request-media-type-added': {
    before: post({ content: json({ type: 'object' }) }),
    after: post({ content: { ...json({ type: 'object' }), 'multipart/form-data': { schema: { type: 'object' } } } }),
    path: '#/paths/~1things/post/requestBody/content/multipart~1form-data',
    operation: 'createThing',
    message: /`multipart\/form-data` now accepted/,
  },
  'request-media-type-removed': {
    before: post({ content: { ...json({ type: 'object' }), 'text/plain': { schema: { type: 'string' } } } }),
    after: post({ content: json({ type: 'object' }) }),
    path: '#/paths/~1things/post/requestBody/content/text~1plain',
    operation: 'createThing',
    message: /`text\/plain` no longer accepted/,
  },
  'response-success-status-changed': {
    before: post(undefined, { responses: ok({ type: 'object' }) }),
    after: post(undefined, { responses: { '201': { description: 'Created.', content: json({ type: 'object' }) } } }),
    path: '#/paths/~1things/post/responses/201',
    operation: 'createThing',
    message: /success 200 → 201/,
  },
  'response-status-removed': {
    before: post(undefined, { responses: { ...noContent, '409': { description: 'Conflict.' } } }),
    after: post(undefined),
    path: '#/paths/~1things/post/responses/409',
    operation: 'createThing',
    message: /status 409 no longer declared/,
  },
  'response-status-added': {
    before: post(undefined),
    after: post(undefined, { responses: { ...noContent, '409': { description: 'Conflict.' } } }),
    path: '#/paths/~1things/post/responses/409',
    operation: 'createThing',
    message: /status 409 now declared/,
  },
  'response-media-type-added': {
    before: one(getThing()),
    after: one(getThing({ responses: { '200': { description: 'OK.', content: { ...json(ref('Thing')), 'text/markdown': { schema: { type: 'string' } } } } } })),
    path: '#/paths/~1things~1{thingId}/get/responses/200/content/text~1markdown',
    operation: 'getThing',
    message: /200 also answered as `text\/markdown`/,
  },
  'response-media-type-removed': {
    before: one(getThing({ responses: { '200': { description: 'OK.', content: { ...json(ref('Thing')), 'application/vnd.api+json': { schema: ref('Thing') } } } } })),
    after: one(getThing({ responses: { '200': { description: 'OK.', content: { 'application/vnd.api+json': { schema: ref('Thing') } } } } })),
    path: '#/paths/~1things~1{thingId}/get/responses/200/content/application~1json',
    operation: 'getThing',
    message: /200 no longer answered as `application\/json`/,
  },
  'response-header-added': {
    before: one(getThing()),
    after: one(getThing({ responses: ok(ref('Thing'), { headers: { etag: { schema: { type: 'string' } } } }) })),
    path: '#/paths/~1things~1{thingId}/get/responses/200/headers/etag',
    operation: 'getThing',
    message: /`etag`: new optional header with 200/,
  },
  'response-header-added-required': {
    before: one(getThing()),
    after: one(getThing({ responses: ok(ref('Thing'), { headers: { etag: { required: true, schema: { type: 'string' } } } }) })),
    path: '#/paths/~1things~1{thingId}/get/responses/200/headers/etag',
    operation: 'getThing',
    message: /`etag`: new required header with 200/,
  },
  'response-header-removed': {
    before: one(getThing({ responses: ok(ref('Thing'), { headers: { Location: { required: true, schema: { type: 'string' } } } }) })),
    after: one(getThing()),
    path: '#/paths/~1things~1{thingId}/get/responses/200/headers/Location',
    operation: 'getThing',
    message: /`Location`: header no longer sent with 200/,
  },
  'response-header-became-optional': {
    before: one(getThing({ responses: ok(ref('Thing'), { headers: { location: { required: true, schema: { type: 'string' } } } }) })),
    after: one(getThing({ responses: ok(ref('Thing'), { headers: { Location: { schema: { type: 'string' } } } }) })),
    path: '#/paths/~1things~1{thingId}/get/responses/200/headers/Location',
    operation: 'getThing',
    message: /`Location`: header no longer always sent with 200/,
  },
  'response-header-became-required': {
    before: one(getThing({ responses: ok(ref('Thing'), { headers: { etag: { schema: { type: 'string' } } } }) })),
    after: one(getThing({ responses: ok(ref('Thing'), { headers: { etag: { required: true, schema: { type: 'string' } } } }) })),
    path: '#/paths/~1things~1{thingId}/get/responses/200/headers/etag',
    operation: 'getThing',
    message: /`etag`: header now always sent with 200/,
  },
};

describe('operation, parameter, body, response and component rules', () => {
  for (const [rule, entry] of Object.entries(OPERATION_CASES)) {
    tested.add(rule as RuleId);
    test(rule, () => {
      const findings = compareDocuments(entry.before, entry.after);
      expect(rules(findings)).toEqual([rule]);
      const [finding] = findings as [Finding];
      expect(finding.severity).toBe(RULES.get(rule as RuleId)!.severity);
      expect(finding.path).toBe(entry.path);
      expect(finding.message).toMatch(entry.message);
      if (entry.operation) expect(finding.operations.map((operation) => operation.operationId)).toEqual([entry.operation]);
    });
  }

  test('every rule has its test', () => {
    expect([...RULES.keys()].filter((rule) => !tested.has(rule))).toEqual([]);
    expect([...tested].filter((rule) => !RULES.has(rule))).toEqual([]);
  });

  test('breaking/README.md lists every rule with its severity, meaning and example', () => {
    const readme = readFileSync(path.join(repoRoot, 'breaking/README.md'), 'utf8');
    const rows = new Set(readme.split('\n').filter((line) => line.startsWith('| `')));
    const missing = [...RULES.values()].filter((rule) => !rows.has(`| \`${rule.id}\` | ${rule.severity} | ${rule.summary} | ${rule.example} |`));
    expect(missing.map((rule) => `${rule.id} (${rule.severity})`)).toEqual([]);
  });
});

// ---- how schemas are read ------------------------------------------------------------------------------------

/** A request (POST /things, body `request`) and a response (GET /things/{id}, answer `response`). */
function api(request: unknown, response: unknown, schemas: Record<string, unknown>): Doc {
  return doc(
    {
      '/things': { post: { operationId: 'createThing', requestBody: { required: true, content: json(request) }, responses: noContent } },
      '/things/{id}': {
        get: {
          operationId: 'getThing',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: ok(response),
        },
      },
    },
    schemas,
  );
}

describe('reading schemas', () => {
  test('a schema inlined and the same schema behind a $ref compare equal; a change behind a $ref is found in the component', () => {
    const name = { type: 'string', maxLength: 50 };
    const inline = api({ type: 'object', properties: { name } }, ref('Thing'), { Thing: { type: 'object', properties: { name } } });
    const referenced = api(ref('ThingRequest'), ref('Thing'), {
      ThingRequest: { type: 'object', properties: { name: ref('Name') } },
      Thing: { type: 'object', properties: { name: ref('Name') } },
      Name: name,
    });
    expect(compareDocuments(inline, referenced)).toEqual([]);

    const shorter = structuredClone(referenced);
    ((shorter.components as Doc).schemas as Record<string, Schema>).Name!.maxLength = 20;
    const findings = compareDocuments(referenced, shorter);
    expect(rules(findings)).toEqual(['request-property-max-length-decreased', 'response-property-max-length-decreased']);
    for (const finding of findings) {
      expect(finding.path).toBe('#/components/schemas/Name');
      expect(finding.schema).toBe('Name');
    }
    expect(findings[0]!.fields).toEqual(['ThingRequest.name']);
    expect(findings[1]!.fields).toEqual(['Thing.name']);
  });

  test("the emitter's property wrapper `allOf: [$ref]` with a description equals a bare $ref", () => {
    const schemas = { Kind: { type: 'string', enum: ['a', 'b'] } };
    const bare = api({ type: 'object', properties: { kind: ref('Kind') } }, ref('Kind'), schemas);
    const wrapped = api({ type: 'object', properties: { kind: { allOf: [ref('Kind')], description: 'The kind.' } } }, { allOf: [ref('Kind')] }, schemas);
    expect(compareDocuments(bare, wrapped)).toEqual([]);
  });

  test('allOf is compared by its members: a property moved between members is no change; a change in a member is found there', () => {
    const flat = api(ref('Thing'), ref('Thing'), {
      Thing: { type: 'object', required: ['id', 'name'], properties: { id: { type: 'string' }, name: { type: 'string', maxLength: 50 } } },
    });
    const composed = api(ref('Thing'), ref('Thing'), {
      Base: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
      Thing: { allOf: [ref('Base')], type: 'object', required: ['name'], properties: { name: { type: 'string', maxLength: 50 } } },
    });
    expect(rules(compareDocuments(flat, composed))).toEqual([]);

    const changed = structuredClone(composed);
    const schemas = (changed.components as Doc).schemas as Record<string, Schema>;
    (schemas.Base!.properties as Record<string, Schema>).id!.format = 'uuid';
    const findings = compareDocuments(composed, changed);
    expect(rules(findings)).toEqual(['request-property-format-added', 'response-property-format-added']);
    expect(findings[0]!.path).toBe('#/components/schemas/Base/properties/id');
    expect(findings[0]!.schema).toBe('Base');
    expect(findings[0]!.fields).toEqual(['Thing.id']);
  });

  test('oneOf/anyOf are compared member by member, matched by their $ref whatever the order', () => {
    const schemas = { Cat: pet('cat'), Dog: pet('dog') };
    const before = api({ oneOf: [ref('Cat'), ref('Dog')] }, { anyOf: [ref('Cat'), ref('Dog')] }, schemas);
    const reordered = api({ oneOf: [ref('Dog'), ref('Cat')] }, { anyOf: [ref('Dog'), ref('Cat')] }, schemas);
    expect(compareDocuments(before, reordered)).toEqual([]);

    const changed = structuredClone(reordered);
    const dog = ((changed.components as Doc).schemas as Record<string, Schema>).Dog!;
    dog.properties = { ...(dog.properties as object), name: { type: 'string' } };
    dog.required = [...(dog.required as string[]), 'name'];
    const findings = compareDocuments(before, changed);
    expect(rules(findings)).toEqual(['request-property-added-required', 'response-property-added-required']);
    expect(findings.every((finding) => finding.path === '#/components/schemas/Dog/properties/name')).toBe(true);
  });

  test('a new member of a discriminated union breaks clients in a response and implementations in a request', () => {
    const union = (...names: string[]) => ({
      oneOf: names.map(ref),
      discriminator: { propertyName: 'kind', mapping: Object.fromEntries(names.map((name) => [name.toLowerCase(), `#/components/schemas/${name}`])) },
    });
    const schemas = { Cat: pet('cat'), Dog: pet('dog'), Bird: pet('bird') };
    const findings = compareDocuments(api(union('Cat', 'Dog'), union('Cat', 'Dog'), schemas), api(union('Cat', 'Dog', 'Bird'), union('Cat', 'Dog', 'Bird'), schemas));
    expect(findings.map((finding) => [finding.rule, finding.severity, finding.detail])).toEqual([
      ['response-property-discriminator-tag-added', 'breaking-client', 'discriminator `kind`: new tag "bird" (`Bird`)'],
      ['request-property-discriminator-tag-added', 'breaking-implementation', 'discriminator `kind`: new tag "bird" (`Bird`)'],
    ]);
  });

  test('a plain schema that becomes a union is a new alternative, the old one matched by type', () => {
    const before = api({ type: 'object', properties: { spaces: { type: 'array', items: { type: 'string' } } } }, { type: 'string' }, {});
    const after = api(
      { type: 'object', properties: { spaces: { anyOf: [{ type: 'array', items: { type: 'string' } }, { type: 'string', enum: ['new'] }] } } },
      { anyOf: [{ type: 'string' }, ref('Site')] },
      { Site: { type: 'object', properties: { id: { type: 'string' } } } },
    );
    expect(compareDocuments(before, after).map((finding) => [finding.rule, finding.message])).toEqual([
      ['response-property-variant-added', '`response body`: new alternative `Site`'],
      ['request-property-variant-added', '`spaces`: new alternative string "new"'],
    ]);
  });
});

describe('reading schemas: nullability, maps, arrays, recursion, shared components, direction', () => {
  test('nullable written as a type list, as anyOf with null, and as the emitter writes it (anyOf + siblings) compare equal', () => {
    const spellings = [
      { type: ['string', 'null'], maxLength: 10 },
      { anyOf: [{ type: 'string' }, { type: 'null' }], maxLength: 10 },
      { anyOf: [{ type: 'string', maxLength: 10 }, { type: 'null' }] },
      { oneOf: [{ type: 'null' }, { type: 'string', maxLength: 10 }] },
    ];
    const place = (title: unknown) => api({ type: 'object', properties: { title } }, { type: 'object', properties: { title } }, {});
    for (const spelling of spellings.slice(1)) expect(compareDocuments(place(spellings[0]), place(spelling))).toEqual([]);

    const role = { Role: { type: 'string', enum: ['admin', 'reader'] } };
    const plain = api({ type: 'object', properties: { role: ref('Role') } }, { type: 'object', properties: { role: ref('Role') } }, role);
    const nullable = api(
      { type: 'object', properties: { role: { anyOf: [ref('Role'), { type: 'null' }], description: 'Or null.' } } },
      { type: 'object', properties: { role: { anyOf: [ref('Role'), { type: 'null' }] } } },
      role,
    );
    expect(compareDocuments(plain, nullable).map((finding) => [finding.rule, finding.severity, finding.path])).toEqual([
      ['response-property-became-nullable', 'breaking-client', '#/paths/~1things~1{id}/get/responses/200/content/application~1json/schema/properties/role'],
      ['request-property-became-nullable', 'breaking-implementation', '#/paths/~1things/post/requestBody/content/application~1json/schema/properties/role'],
    ]);
  });

  test("maps (unevaluatedProperties / additionalProperties) compare their values' schemas", () => {
    const map = (value: unknown) => ({ type: 'object', properties: { labels: { type: 'object', unevaluatedProperties: value } } });
    const findings = compareDocuments(
      api(map({ type: 'string', maxLength: 100 }), map({ type: 'string', enum: ['a'] }), {}),
      api(map({ type: 'string', maxLength: 50 }), map({ type: 'string', enum: ['a', 'b'] }), {}),
    );
    expect(findings.map((finding) => [finding.rule, finding.message])).toEqual([
      ['request-property-max-length-decreased', '`labels.*`: maxLength 100 → 50'],
      ['response-property-enum-value-added', '`labels.*`: new value "b"'],
    ]);
    expect(findings[0]!.path).toBe('#/paths/~1things/post/requestBody/content/application~1json/schema/properties/labels/unevaluatedProperties');
    expect(findings[1]!.severity).toBe('warning');
  });

  test("arrays compare their items' schemas", () => {
    const tags = (items: unknown) => ({ type: 'object', properties: { tags: { type: 'array', items } } });
    const findings = compareDocuments(api(tags({ type: 'string' }), tags(ref('Tag')), { Tag: { type: 'string' } }), api(tags({ type: 'integer' }), tags(ref('Tag')), { Tag: { type: 'string', format: 'uuid' } }));
    expect(findings.map((finding) => [finding.rule, finding.message])).toEqual([
      ['request-property-type-changed', '`tags[]`: type string → integer'],
      ['response-property-format-added', '`tags[]`: format none → uuid'],
    ]);
  });

  test('recursive schemas are walked once, and a change deep inside is found once', () => {
    const node = (nameLength: number) => ({
      Node: {
        type: 'object',
        required: ['name'],
        properties: { name: { type: 'string', maxLength: nameLength }, children: { type: 'array', items: ref('Node') }, parent: ref('Tree') },
      },
      Tree: { type: 'object', properties: { root: ref('Node'), nodes: { type: 'object', unevaluatedProperties: ref('Node') } } },
    });
    const before = api(ref('Tree'), ref('Node'), node(100));
    expect(compareDocuments(before, structuredClone(before))).toEqual([]);
    const findings = compareDocuments(before, api(ref('Tree'), ref('Node'), node(50)));
    expect(findings.map((finding) => [finding.rule, finding.path, finding.fields])).toEqual([
      ['request-property-max-length-decreased', '#/components/schemas/Node/properties/name', ['Node.name']],
      ['response-property-max-length-decreased', '#/components/schemas/Node/properties/name', ['Node.name']],
    ]);
  });

  test('a change in a shared component is one finding naming every operation it affects', () => {
    const schemas = { Thing: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } } };
    const list = { type: 'object', properties: { items: { type: 'array', items: ref('Thing') } } };
    const paths = {
      '/things': { get: { operationId: 'listThings', responses: ok(list) } },
      '/things/{id}': { get: { operationId: 'getThing', parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }], responses: ok(ref('Thing')) } },
    };
    const findings = compareDocuments(doc(paths, schemas), doc(paths, { Thing: { type: 'object', properties: { id: { type: 'string' } } } }));
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ rule: 'response-property-became-optional', schema: 'Thing', fields: ['Thing.id'] });
    expect(findings[0]!.operations.map((operation) => operation.operationId)).toEqual(['getThing', 'listThings']);
  });

  test('read-only fields travel only in responses, write-only fields only in requests', () => {
    const thingWith = (extra: Record<string, unknown>) => ({ Thing: { type: 'object', properties: { name: { type: 'string' }, ...extra } } });
    const base = api(ref('Thing'), ref('Thing'), thingWith({}));
    expect(rules(compareDocuments(base, api(ref('Thing'), ref('Thing'), thingWith({ createdAt: { type: 'string', readOnly: true } }))))).toEqual([
      'response-property-added',
    ]);
    expect(rules(compareDocuments(base, api(ref('Thing'), ref('Thing'), thingWith({ secret: { type: 'string', writeOnly: true } }))))).toEqual([
      'request-property-added',
    ]);
  });
});

// ---- composed schemas, renames, where changes are reported ---------------------------------------------------

describe('allOf members intersected on every keyword, as a client and an implementation see them', () => {
  const modes = { EditMode: { type: 'string', enum: ['live', 'locked'] } };
  const withMode = (editMode: unknown) =>
    api(
      { type: 'object', properties: { editMode } },
      { type: 'object', required: ['editMode'], properties: { editMode } },
      modes,
    );

  test('a second allOf member that restricts an enum removes the values it leaves out', () => {
    const findings = compareDocuments(
      withMode({ allOf: [ref('EditMode')], description: 'How it is edited.' }),
      withMode({ allOf: [ref('EditMode'), { enum: ['live'] }], description: 'How it is edited.' }),
    );
    expect(findings.map((finding) => [finding.rule, finding.severity, finding.message])).toEqual([
      ['request-property-enum-value-removed', 'breaking-client', '`editMode`: value "locked" removed'],
      ['response-property-enum-value-removed', 'breaking-implementation', '`editMode`: value "locked" removed'],
    ]);
    expect(findings[0]!.path).toBe('#/paths/~1things/post/requestBody/content/application~1json/schema/properties/editMode/allOf/1');
  });

  test('a second member that tightens a property’s maxLength tightens it', () => {
    const schemas = { Base: { type: 'object', properties: { title: { type: 'string', maxLength: 255 } } } };
    const findings = compareDocuments(
      api(ref('Thing'), ref('Thing'), { ...schemas, Thing: { allOf: [ref('Base')] } }),
      api(ref('Thing'), ref('Thing'), { ...schemas, Thing: { allOf: [ref('Base'), { properties: { title: { maxLength: 50 } } }] } }),
    );
    expect(findings.map((finding) => [finding.rule, finding.path, finding.schema, finding.message])).toEqual([
      ['request-property-max-length-decreased', '#/components/schemas/Thing/allOf/1/properties/title', 'Thing', '`Thing.title`: maxLength 255 → 50'],
      ['response-property-max-length-decreased', '#/components/schemas/Thing/allOf/1/properties/title', 'Thing', '`Thing.title`: maxLength 255 → 50'],
    ]);
  });

  test('formats, patterns, other keywords and types of every member hold together', () => {
    const base = { type: 'string', format: 'uri', pattern: '^h' };
    const before = api({ type: 'object', properties: { link: base } }, { type: 'string' }, {});
    const after = api(
      { type: 'object', properties: { link: { allOf: [base, { format: 'uri', pattern: '^https:', multipleOf: 2, type: ['string', 'integer'] }] } } },
      { type: 'string' },
      {},
    );
    expect(compareDocuments(before, after).map((finding) => [finding.rule, finding.detail])).toEqual([
      ['request-property-constraint-tightened', 'multipleOf none → 2'],
      ['request-property-pattern-added', 'pattern "^h" → "^h" and "^https:"'],
    ]);
  });

  test('members whose enums do not meet accept nothing but what they share; null only when every member allows it', () => {
    const before = api({ type: 'object', properties: { kind: { type: ['string', 'null'], enum: ['a', 'b', null] } } }, { type: 'string' }, {});
    const after = api(
      { type: 'object', properties: { kind: { allOf: [{ type: ['string', 'null'], enum: ['a', 'b', null] }, { enum: ['b', 'c'] }] } } },
      { type: 'string' },
      {},
    );
    expect(compareDocuments(before, after).map((finding) => [finding.rule, finding.detail])).toEqual([
      ['request-property-became-not-nullable', 'no longer nullable'],
      ['request-property-enum-value-removed', 'value "a" removed'],
    ]);
  });

  test('additionalProperties: false in one member refuses the properties another member declares (what a validator does)', () => {
    const thing = (second: Schema) => api(ref('Thing'), { type: 'string' }, { Thing: { allOf: [{ type: 'object', properties: { a: { type: 'string' } } }, second] } });
    const findings = compareDocuments(
      thing({ type: 'object', properties: { b: { type: 'string' } } }),
      thing({ type: 'object', properties: { b: { type: 'string' } }, additionalProperties: false }),
    );
    expect(findings.map((finding) => [finding.rule, finding.path])).toEqual([
      ['request-property-removed', '#/components/schemas/Thing/allOf/0/properties/a'],
      ['request-property-sealed', '#/components/schemas/Thing/allOf/1'],
    ]);
    expect(findings[0]!.fields).toEqual(['Thing.a']);
  });

  test('two unions in allOf are one union of the alternatives that can meet', () => {
    const plain = api({ type: 'object', properties: { v: { type: 'string', maxLength: 5 } } }, { type: 'string' }, {});
    const unions = api(
      {
        type: 'object',
        properties: { v: { allOf: [{ anyOf: [{ type: 'string' }, { type: 'integer' }] }, { anyOf: [{ type: 'string', maxLength: 5 }, { type: 'boolean' }] }] } },
      },
      { type: 'string' },
      {},
    );
    expect(compareDocuments(plain, unions)).toEqual([]);
  });
});

describe('equivalent rewrites give no difference', () => {
  const name = { type: 'string', maxLength: 50 };
  const id = { type: 'string', readOnly: true };
  const flat = api(ref('Thing'), ref('Thing'), {
    Thing: { type: 'object', required: ['id', 'name'], properties: { id, name }, unevaluatedProperties: { not: {} } },
  });

  test.each([
    [
      'allOf members split and merged, a $ref extracted',
      {
        Thing: {
          allOf: [ref('Ids'), { type: 'object', required: ['name'], properties: { name: { allOf: [{ maxLength: 80 }, { type: 'string', maxLength: 50 }] } } }],
          unevaluatedProperties: false,
        },
        Ids: { type: 'object', required: ['id'], properties: { id } },
      },
    ],
    [
      'unevaluatedProperties written as additionalProperties where nothing is composed',
      { Thing: { type: 'object', required: ['id', 'name'], properties: { id, name }, additionalProperties: false } },
    ],
    [
      'properties declared twice, once in each member',
      { Thing: { allOf: [{ type: 'object', properties: { name } }, { type: 'object', required: ['id', 'name'], properties: { id, name } }], unevaluatedProperties: { not: {} } } },
    ],
  ])('%s', (_, schemas) => {
    expect(compareDocuments(flat, api(ref('Thing'), ref('Thing'), schemas))).toEqual([]);
  });

  test('a $ref inlined, and parameters moved between the operation and its path item', () => {
    const parameter = { name: 'id', in: 'path', required: true, schema: { type: 'string' } };
    const before = doc(
      { '/things/{id}': { get: { operationId: 'getThing', parameters: [parameter, { name: 'q', in: 'query', schema: ref('Query') }], responses: ok(ref('Thing')) } } },
      { Thing: { type: 'object', properties: { name: { type: 'string' } } }, Query: { type: 'string', enum: ['a'] } },
    );
    const after = doc(
      {
        '/things/{id}': {
          parameters: [{ $ref: '#/components/parameters/Id' }],
          get: { operationId: 'getThing', parameters: [{ name: 'q', in: 'query', schema: { const: 'a' } }], responses: ok({ type: 'object', properties: { name: { type: 'string' } } }) },
        },
      },
      {},
      { components: { schemas: {}, parameters: { Id: parameter } } },
    );
    expect(compareDocuments(before, after).filter((finding) => finding.rule !== 'schema-removed')).toEqual([]);
  });

  test('an OpenAPI 3.0 document and its 3.1 spelling', () => {
    const v31 = api(
      { type: 'object', properties: { note: { type: ['string', 'null'] }, size: { type: 'integer', exclusiveMaximum: 10 } } },
      { type: 'object', properties: { note: { anyOf: [{ type: 'string' }, { type: 'null' }] } } },
      {},
    );
    const v30 = {
      ...api(
        { type: 'object', properties: { note: { type: 'string', nullable: true }, size: { type: 'integer', maximum: 10, exclusiveMaximum: true } } },
        { type: 'object', properties: { note: { type: 'string', nullable: true } } },
        {},
      ),
      openapi: '3.0.3',
    };
    expect(compareDocuments(v31, v30)).toEqual([]);
    expect(compareDocuments(v30, v31)).toEqual([]);
  });

  test('not equivalent: additionalProperties beside allOf refuses what the members declare; unevaluatedProperties does not', () => {
    const base = { Base: { type: 'object', properties: { id: { type: 'string' } } } };
    const with_ = (keyword: string) => api(ref('Thing'), { type: 'string' }, { ...base, Thing: { allOf: [ref('Base')], properties: { name: { type: 'string' } }, [keyword]: false } });
    expect(compareDocuments(with_('unevaluatedProperties'), with_('additionalProperties')).map((finding) => [finding.rule, finding.fields])).toEqual([
      ['request-property-removed', ['Thing.id']],
    ]);
  });
});

describe('renames and where changes are reported', () => {
  const urls = { type: 'object', required: ['app'], properties: { app: { type: 'string', format: 'uri' } } };
  const space = (name: string) => ({ type: 'object', properties: { title: { type: 'string' }, urls: { allOf: [ref(name)], readOnly: true } } });
  const spaces = (name: string) =>
    doc(
      {
        '/spaces': { get: { operationId: 'listSpaces', responses: ok(ref('SpaceList')) } },
        '/spaces/{id}': { get: { operationId: 'getSpace', parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }], responses: ok(ref('Space')) } },
        '/other': { get: { operationId: 'getOther', responses: ok({ type: 'string' }) } },
      },
      { Space: space(name), SpaceList: { type: 'object', properties: { items: { type: 'array', items: ref('Space') } } }, [name]: urls },
    );

  test('a component renamed with the same shape is a rename naming both and every operation whose types name it', () => {
    const findings = compareDocuments(spaces('SpaceUrls'), spaces('SpaceLinks'));
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({
      rule: 'schema-renamed',
      severity: 'breaking-source',
      path: '#/components/schemas/SpaceLinks',
      schema: 'SpaceLinks',
      renamed: { from: 'SpaceUrls', to: 'SpaceLinks' },
      detail: 'schema `SpaceUrls` renamed `SpaceLinks` (the same shape); the generated types of 2 operations name it',
    });
    expect(findings[0]!.operations.map((operation) => operation.operationId)).toEqual(['getSpace', 'listSpaces']);
  });

  test('a component removed while one of another shape is added is a removal, with what changed where it is used', () => {
    const after = spaces('SpaceLinks');
    ((after.components as Doc).schemas as Record<string, Schema>).SpaceLinks = { type: 'object', properties: { app: { type: 'string', format: 'uri' } } };
    const findings = compareDocuments(spaces('SpaceUrls'), after);
    expect(findings.map((finding) => [finding.rule, finding.path, finding.message])).toEqual([
      ['response-property-became-optional', '#/components/schemas/Space/properties/urls', '`Space.urls.app`: now optional'],
      ['schema-removed', '#/components/schemas/SpaceUrls', 'schema `SpaceUrls` removed; the generated types of 2 operations name it'],
    ]);
  });

  test('a field dropped from an inline copy that replaced a $ref is reported where clients reach it, not in the unchanged component', () => {
    const after = spaces('SpaceUrls');
    const schemas = (after.components as Doc).schemas as Record<string, Schema>;
    const inline = structuredClone(schemas.Space!) as { properties: Record<string, unknown> };
    delete inline.properties.title;
    schemas.SpaceList = { type: 'object', properties: { items: { type: 'array', items: inline } } };
    const findings = compareDocuments(spaces('SpaceUrls'), after);
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({
      rule: 'response-property-removed',
      path: '#/components/schemas/SpaceList/properties/items/items',
      document: 'revision',
      schema: 'SpaceList',
      fields: ['SpaceList.items[].title'],
    });
    expect(findings[0]!.operations.map((operation) => operation.operationId)).toEqual(['listSpaces']);
  });

  test('a reference switched to another component is reported where it refers, not in the component it now names', () => {
    const modes = (mode: string) =>
      api({ type: 'object', properties: { mode: { allOf: [ref(mode)], description: 'The mode.' } } }, { type: 'string' }, {
        EditMode: { type: 'string', enum: ['live', 'locked'] },
        Visibility: { type: 'string', enum: ['live', 'private'] },
      });
    const findings = compareDocuments(modes('EditMode'), modes('Visibility'));
    expect(findings.map((finding) => [finding.rule, finding.path, finding.schema])).toEqual([
      ['request-property-enum-value-removed', '#/paths/~1things/post/requestBody/content/application~1json/schema/properties/mode', undefined],
      ['request-property-enum-value-added', '#/paths/~1things/post/requestBody/content/application~1json/schema/properties/mode', undefined],
    ]);
  });

  test('a change in the component itself stays the component’s, named after it', () => {
    const after = spaces('SpaceUrls');
    (((after.components as Doc).schemas as Record<string, Schema>).Space!.properties as Record<string, Schema>).title = { type: 'string', maxLength: 10 };
    const [finding, ...rest] = compareDocuments(spaces('SpaceUrls'), after);
    expect(rest).toEqual([]);
    expect(finding).toMatchObject({ path: '#/components/schemas/Space/properties/title', schema: 'Space', fields: ['Space.title'] });
    expect(finding!.operations.map((operation) => operation.operationId)).toEqual(['getSpace', 'listSpaces']);
  });

  test('a request field that became readOnly is named so, not “removed”', () => {
    const request = (title: Schema) => api({ type: 'object', properties: { title, note: { type: 'string' } } }, { type: 'string' }, {});
    const findings = compareDocuments(request({ type: 'string' }), request({ type: 'string', readOnly: true }));
    expect(findings.map((finding) => [finding.rule, finding.severity, finding.message])).toEqual([
      ['request-property-became-read-only', 'breaking-client', '`title`: now read-only: set by the server, no longer sent'],
    ]);
  });

  test('a renamed operation id and a renamed path parameter are renames: breaking for typed clients’ source', () => {
    for (const rule of ['operation-id-changed', 'request-parameter-renamed', 'schema-renamed', 'schema-removed'] as const) {
      expect(RULES.get(rule)!.severity).toBe('breaking-source');
    }
  });
});

// ---- the gate and the notes ----------------------------------------------------------------------------------

describe('the gate', () => {
  const title = (maxLength: number) => objectPlaced('request', { type: 'object', properties: { title: { type: 'string', maxLength } } });
  const findings = compareDocuments(title(255), title(100));
  const declaration = { rule: 'request-property-max-length-decreased', schema: 'Thing', path: '#/components/schemas/Thing/properties/title', reason: 'Titles were cut.' };

  test('an undeclared breaking change fails; declared, it passes with its reason', () => {
    expect(evaluateGate(findings, { baseVersion: '1.0.0', revisionVersion: '1.1.0' })).toMatchObject({ passed: false, undeclared: findings });
    const verdict = evaluateGate(findings, { baseVersion: '1.0.0', revisionVersion: '1.1.0', declarations: [declaration] });
    expect(verdict.passed).toBe(true);
    expect(verdict.judged[0]).toMatchObject({ allowedBy: 'declaration', declaration });
  });

  test('a higher major version allows breaking changes', () => {
    const verdict = evaluateGate(findings, { baseVersion: '1.4.2', revisionVersion: '2.0.0' });
    expect(verdict).toMatchObject({ passed: true, majorBump: true });
    expect(verdict.judged[0]!.allowedBy).toBe('major-version');
    expect(evaluateGate(findings, { baseVersion: '1.4.2', revisionVersion: '1.5.0' }).passed).toBe(false);
  });

  test('a declaration must match rule, owner and path exactly; one that matches nothing is stale and fails', () => {
    for (const wrong of [{ ...declaration, path: '#/components/schemas/Thing' }, { ...declaration, schema: 'Other' }, { ...declaration, rule: 'request-property-max-length-increased' }]) {
      const verdict = evaluateGate(findings, { declarations: [wrong] });
      expect(verdict.passed).toBe(false);
      expect(verdict.stale).toEqual([wrong]);
      expect(verdict.undeclared).toEqual(findings);
    }
    expect(evaluateGate([], { declarations: [declaration] })).toMatchObject({ passed: false, stale: [declaration] });
  });

  test('--fail-on: client fails on client and source breaks only; implementation on every break; warning on warnings too', () => {
    const finding = (severity: Finding['severity']) => ({ ...findings[0]!, severity });
    const all = (['breaking-client', 'breaking-source', 'breaking-implementation', 'warning', 'non-breaking'] as const).map(finding);
    const failing = (failOn: 'client' | 'implementation' | 'warning') =>
      evaluateGate(all, { failOn }).undeclared.map((entry) => entry.severity);
    expect(failing('client')).toEqual(['breaking-client', 'breaking-source']);
    expect(failing('implementation')).toEqual(['breaking-client', 'breaking-source', 'breaking-implementation']);
    expect(failing('warning')).toEqual(['breaking-client', 'breaking-source', 'breaking-implementation', 'warning']);
    expect(evaluateGate([finding('warning')], { failOn: 'warning', baseVersion: '1.0.0', revisionVersion: '2.0.0' }).passed).toBe(true);
  });

  test('a revision below the release fails', () => {
    expect(evaluateGate([], { baseVersion: '1.2.0', revisionVersion: '1.1.9' })).toMatchObject({
      passed: false,
      problems: ['info.version 1.1.9 is lower than the last release 1.2.0'],
    });
  });

  test('a change of the schema dialect is judged on its own: a declared dialect is the default one, another fails until declared for the document', () => {
    const base = one(getThing());
    // Declaring the default changes nothing anyone reads: OpenAPI 3.1's default, and a 3.0 document's schemas.
    expect(rules(compareDocuments(base, one(getThing(), { jsonSchemaDialect: OAS_DIALECT })))).toEqual(['schema-dialect-declared']);
    expect(rules(compareDocuments({ ...base, openapi: '3.0.3' }, one(getThing(), { jsonSchemaDialect: OAS_DIALECT })))).toEqual(['schema-dialect-declared']);
    expect(compareDocuments(one(getThing(), { jsonSchemaDialect: OAS_DIALECT }), one(getThing(), { jsonSchemaDialect: OAS_DIALECT }))).toEqual([]);
    // Another dialect, declared where none was: a change, found in the revision.
    const other = compareDocuments(base, one(getThing(), { jsonSchemaDialect: 'https://json-schema.org/draft/2019-09/schema' }));
    expect(other).toMatchObject([{ rule: 'schema-dialect-changed', severity: 'breaking-client', document: 'revision', operations: [] }]);
    expect(other[0]!.message).toContain('(undeclared: the default) → https://json-schema.org/draft/2019-09/schema');
    expect(evaluateGate(other, { baseVersion: '1.0.0', revisionVersion: '1.1.0' }).passed).toBe(false);
    // Declared for the document (neither an operation nor a schema), it passes; given an owner, the entry is refused.
    const entry = { rule: 'schema-dialect-changed', path: '#/jsonSchemaDialect', reason: 'Validators read 2019-09.' };
    const { declarations, problems } = parseDeclarations([entry, { ...entry, operation: 'getThing' }]);
    expect(problems).toEqual(['entry 2: schema-dialect-changed is a change of the whole document: give neither `operation` nor `schema`']);
    expect(declarations).toEqual([entry]);
    const verdict = evaluateGate(other, { baseVersion: '1.0.0', revisionVersion: '1.1.0', declarations });
    expect(verdict).toMatchObject({ passed: true, stale: [], judged: [{ allowedBy: 'declaration' }] });
    // An operation's declaration never matches a finding of the document.
    expect(evaluateGate(other, { declarations: [{ ...entry, operation: 'getThing' }] }).passed).toBe(false);
  });

  test('invalid declarations are refused, naming the entry and the field', () => {
    const { problems } = parseDeclarations([
      { rule: 'no-such-rule', schema: 'Thing', path: '#/x', reason: 'r' },
      { rule: 'request-property-added', path: '#/x', reason: 'r' },
      { rule: 'request-property-added', schema: 'Thing', operation: 'createThing', path: 'x', reason: 'TODO: why' },
      { rule: 'request-property-added', schema: 'Thing', path: '#/x', reason: 'r', note: 'extra' },
    ]);
    expect(problems).toEqual([
      'entry 1: `rule` no-such-rule is not a rule id (see breaking/README.md)',
      'entry 2: give exactly one of `operation` and `schema`',
      'entry 3: `path` must be a JSON path starting with #/',
      'entry 3: `reason` still says TODO: say why the break is accepted',
      'entry 3: give exactly one of `operation` and `schema`',
      'entry 4: unknown field `note` (expected rule, operation or schema, path, reason)',
    ]);
    expect(parseDeclarations({ rule: 'x' }).problems).toEqual(['the declarations must be a YAML list (`[]` for none)']);
    expect(parseDeclarations(null)).toEqual({ declarations: [], problems: [] });
  });
});

describe('release notes', () => {
  test('breaking changes come first with what to do and why, then added operations, then the other changes', () => {
    const before = doc({ '/things': { post: { operationId: 'createThing', requestBody: { required: true, content: json(ref('ThingRequest')) }, responses: ok(ref('Thing')) } } }, {
      ThingRequest: { type: 'object', properties: { title: { type: 'string', maxLength: 255 } } },
      Thing: { type: 'object', properties: { title: { type: 'string' } } },
    });
    const after = structuredClone(before);
    const schemas = (after.components as Doc).schemas as Record<string, Schema>;
    (schemas.ThingRequest!.properties as Record<string, Schema>).title!.maxLength = 100;
    (schemas.Thing!.properties as Record<string, Schema>).nickname = { type: 'string' };
    (after.paths as Doc)['/things/{id}'] = { get: { operationId: 'getThing', responses: ok(ref('Thing')) } };
    const judged = evaluateGate(compareDocuments(before, after), {
      declarations: [{ rule: 'request-property-max-length-decreased', schema: 'ThingRequest', path: '#/components/schemas/ThingRequest/properties/title', reason: 'Titles were cut.' }],
    }).judged;
    const notes = renderNotes({ version: '1.1.0', date: '2026-02-03', previous: '1.0.0', judged });
    expect(notes).toBe(
      [
        '## 1.1.0 (2026-02-03)',
        '',
        'Compared with 1.0.0: 1 breaking change, 1 new operation, 0 removed operations, 0 warnings, 1 other change.',
        '',
        '### Breaking changes',
        '',
        '#### `ThingRequest`, used by `createThing`',
        '',
        '- **Breaking for clients** (`request-property-max-length-decreased`): `ThingRequest.title`: maxLength 255 → 100.',
        '  What to do: Send values no longer than the new maximum.',
        '  Why: Titles were cut.',
        '',
        '### Added operations',
        '',
        '- `getThing` (GET /things/{id})',
        '',
        '### Changed',
        '',
        '#### `Thing`, used by `createThing`',
        '',
        '- **Change** (`response-property-added`): `Thing.nickname`: new optional field.',
        '',
      ].join('\n'),
    );
  });

  test('renames have a section of their own; a change made by an allOf member is named by the field clients reach', () => {
    const before = doc(
      { '/things': { post: { operationId: 'createThing', requestBody: { required: true, content: json(ref('ThingRequest')) }, responses: ok(ref('Thing')) } } },
      {
        ThingRequest: { type: 'object', properties: { mode: { allOf: [ref('Mode')], description: 'The mode.' } } },
        Thing: { type: 'object', properties: { urls: ref('Urls') } },
        Mode: { type: 'string', enum: ['live', 'locked'] },
        Urls: { type: 'object', properties: { app: { type: 'string' } } },
      },
    );
    const after = JSON.parse(JSON.stringify(before).replaceAll('#/components/schemas/Urls', '#/components/schemas/Links')) as Doc;
    const schemas = (after.components as Doc).schemas as Record<string, Schema>;
    schemas.Links = schemas.Urls!;
    delete schemas.Urls;
    ((schemas.ThingRequest!.properties as Record<string, Schema>).mode!.allOf as unknown[]).push({ enum: ['live'] });
    const notes = notesBetween({ base: before, revision: after, previous: '1.0.0', version: '1.1.0' });
    expect(notes).toContain('Compared with 1.0.0: 1 breaking change, 0 new operations, 0 removed operations, 0 warnings, 0 other changes, 1 rename.');
    const parts = [
      '### Breaking changes',
      '- **Breaking for clients** (`request-property-enum-value-removed`): `ThingRequest.mode`: value "locked" removed.',
      '### Renamed (the same requests and answers; new names in the generated types)',
      '#### `Links`, used by `createThing`',
      "- **Breaking for typed clients' source** (`schema-renamed`): schema `Urls` renamed `Links` (the same shape); the generated types of 1 operation name it.",
      '  What to do: Rename the type where your code names it',
    ];
    const positions = parts.map((part) => notes.indexOf(part));
    expect(positions.every((position) => position >= 0), notes).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  });

  test('a new release goes above the previous ones', () => {
    const once = prependNotes(undefined, '## 1.0.0\n\nFirst.\n');
    const twice = prependNotes(once, '## 1.1.0\n\nSecond.\n');
    expect(twice.indexOf('## 1.1.0')).toBeLessThan(twice.indexOf('## 1.0.0'));
    expect(twice.startsWith('# Changelog\n')).toBe(true);
  });

  test('the hand-written entries under Unreleased move into the release, and the heading stays on top, empty', () => {
    const before = prependNotes(undefined, '## 1.0.0\n\nFirst.\n').replace('## 1.0.0', '## Unreleased\n\n- A server package.\n\n## 1.0.0');
    const after = prependNotes(before, '## 1.1.0\n\nSecond.\n');
    expect(after).toContain('## Unreleased\n\n## 1.1.0\n\nSecond.\n\n### Also in this release\n\n- A server package.\n\n## 1.0.0');
    expect(after.match(/A server package/g)).toHaveLength(1);
    // Nothing unreleased: the release's notes alone, under the heading.
    expect(prependNotes(after, '## 1.2.0\n\nThird.\n')).toContain('## Unreleased\n\n## 1.2.0\n\nThird.\n\n## 1.1.0');
  });

  test("the notes a package carries leave out what is not released yet; at a release's tag, they are the file as it is", () => {
    const released = prependNotes(undefined, '## 1.0.0\n\nFirst.\n').replace('## 1.0.0', '## Unreleased\n\n## 1.0.0');
    const pending = released.replace('## Unreleased\n\n', '## Unreleased\n\n- A server package.\n- A registry.\n\n');
    expect(releasedNotes(pending)).toBe(released);
    expect(releasedNotes(released)).toBe(released);
    // The next release's file, as the release command writes it, is carried whole.
    const tagged = prependNotes(pending, '## 1.1.0\n\nSecond.\n');
    expect(releasedNotes(tagged)).toBe(tagged);
    // Entries with no release below them yet: left out all the same.
    expect(releasedNotes('# Changelog\n\n## Unreleased\n\n- A server package.\n')).toBe('# Changelog\n\n## Unreleased\n\n');
  });
});
