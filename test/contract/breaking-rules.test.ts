// Every rule of the breaking-change comparison, each on a tiny pair of documents built here: a schema rule in each of
// the contexts that have it (a request body's property, a parameter, a response body's property, a response header),
// then the rules of operations, parameters, bodies, responses, security and components. Every rule has its case
// here, and breaking/README.md lists each with its severity, meaning and example.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { RULES, SCHEMA_CONTEXTS, compareDocuments, schemaRule, type Finding, type RuleId, type SchemaContext, type SchemaKind } from '../../breaking/index.ts';
import { OAS_DIALECT, doc, getThing, json, noContent, objectPlaced, ok, one, pet, ref, rules, thing, type Doc, type Schema } from '../support/breaking-documents.ts';
import { repoRoot } from '../support/repo.ts';

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

// ---- removals held to their deprecation (compare/removals.ts), on a given day ---------------------------------

const DAY = '2026-06-01';
/** `deprecated: true` with a reason, and `x-sunset` when given. */
const deprecated = (sunset?: string) => ({ deprecated: true, 'x-deprecation': { reason: 'Gone soon.', since: '2026-01-01' }, ...(sunset ? { 'x-sunset': sunset } : {}) });
const listThings = (more: Record<string, unknown> = {}) => doc({ ...(one(getThing()).paths as object), '/things': { get: { operationId: 'listThings', responses: noContent, ...more } } }, { Thing: thing });
const withNick = (direction: 'request' | 'response', more: Record<string, unknown> = {}) => objectPlaced(direction, { type: 'object', properties: { name: { type: 'string' }, nick: { type: 'string', ...more } } });

/** Each held rule: what the release had (undeprecated, or deprecated with a sunset after DAY), and what goes. */
const REMOVAL_CASES: Record<string, { before: Doc; after: Doc; path: string; message: RegExp }> = {
  'operation-removed-without-deprecation': { before: listThings(), after: one(getThing()), path: '#/paths/~1things/get', message: /GET \/things removed, never deprecated in a release/ },
  'operation-removed-before-sunset': { before: listThings(deprecated('2026-09-01')), after: one(getThing()), path: '#/paths/~1things/get', message: /GET \/things removed before its sunset 2026-09-01 \(deprecated since 2026-01-01; sunset 2026-09-01: Gone soon\.\)/ },
  'request-parameter-removed-without-deprecation': { before: withParameters(query('search')), after: withParameters(), path: '#/paths/~1things~1{thingId}/get/parameters/1', message: /`search`: query parameter removed, never deprecated/ },
  'request-parameter-removed-before-sunset': { before: withParameters(query('search', deprecated('2026-09-01'))), after: withParameters(), path: '#/paths/~1things~1{thingId}/get/parameters/1', message: /before its sunset 2026-09-01/ },
  'request-property-removed-without-deprecation': { before: withNick('request'), after: objectPlaced('request', thing), path: '#/components/schemas/Thing/properties/nick', message: /`Thing\.nick`: removed, never deprecated/ },
  'request-property-removed-before-sunset': { before: withNick('request', deprecated('2026-09-01')), after: objectPlaced('request', thing), path: '#/components/schemas/Thing/properties/nick', message: /`Thing\.nick`: removed before its sunset 2026-09-01/ },
  'response-property-removed-without-deprecation': { before: withNick('response'), after: objectPlaced('response', thing), path: '#/components/schemas/Thing/properties/nick', message: /`Thing\.nick`: removed, never deprecated/ },
  'response-property-removed-before-sunset': { before: withNick('response', deprecated('2026-09-01')), after: objectPlaced('response', thing), path: '#/components/schemas/Thing/properties/nick', message: /`Thing\.nick`: removed before its sunset 2026-09-01/ },
};

describe('removals held to their deprecation, on a given day', () => {
  for (const [rule, entry] of Object.entries(REMOVAL_CASES)) {
    tested.add(rule as RuleId);
    test(rule, () => {
      const findings = compareDocuments(entry.before, entry.after, { today: DAY });
      expect(rules(findings)).toEqual([rule]);
      const [finding] = findings as [Finding];
      expect(finding.severity).toBe(RULES.get(rule as RuleId)!.severity);
      expect(finding.path).toBe(entry.path);
      expect(finding.message).toMatch(entry.message);
      // Without a day, the comparison does not hold removals: the plain removal.
      expect(rules(compareDocuments(entry.before, entry.after))[0]).toBe(rule.replace(/-(without-deprecation|before-sunset)$/, ''));
    });
  }

  test('after its sunset (or deprecated without one), a removal is the plain removal, naming its deprecation', () => {
    const passed = compareDocuments(listThings(deprecated('2026-05-01')), one(getThing()), { today: DAY });
    expect(passed.map((finding) => [finding.rule, finding.message])).toEqual([['operation-removed', 'GET /things removed after its sunset 2026-05-01 (deprecated since 2026-01-01; sunset 2026-05-01: Gone soon.)']]);
    // The sunset's own day is past it.
    expect(rules(compareDocuments(listThings(deprecated(DAY)), one(getThing()), { today: DAY }))).toEqual(['operation-removed']);
    const unsunset = compareDocuments(withNick('response', deprecated()), objectPlaced('response', thing), { today: DAY });
    expect(unsunset.map((finding) => [finding.rule, finding.message])).toEqual([['response-property-removed', '`Thing.nick`: removed as deprecated, without a sunset (deprecated since 2026-01-01: Gone soon.)']]);
  });
});

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
