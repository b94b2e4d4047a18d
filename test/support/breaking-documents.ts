// Tiny OpenAPI documents for the tests of the breaking-change comparison, its gate and its notes: a document from
// its paths and schemas, the pieces its operations are made of, and the rules of what the comparison finds.
import type { Finding } from '../../breaking/index.ts';

export type Schema = Record<string, unknown>;
export type Doc = Record<string, unknown>;

export function doc(paths: Record<string, unknown>, schemas: Record<string, unknown> = {}, extra: Doc = {}): Doc {
  return { openapi: '3.1.0', info: { title: 'Things', version: '1.0.0' }, paths, components: { schemas }, ...extra };
}

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const json = (schema: unknown) => ({ 'application/json': { schema } });
export const noContent = { '204': { description: 'Done.' } };
export const ok = (schema: unknown, more: Record<string, unknown> = {}) => ({ '200': { description: 'OK.', content: json(schema), ...more } });

/** The rules of the findings. */
export const rules = (findings: Finding[]) => findings.map((finding) => finding.rule);

/** An object whose `kind` and `type` both hold the one value `kind`: two tags a discriminator may name. */
export const pet = (kind: string) => ({
  type: 'object',
  required: ['kind', 'type'],
  properties: { kind: { type: 'string', enum: [kind] }, type: { type: 'string', enum: [kind] } },
});

/** `schema` as component `Thing`: the body of POST /things (createThing), or the answer of GET /things (getThing). */
export function objectPlaced(direction: 'request' | 'response', schema: Schema): Doc {
  return direction === 'request'
    ? doc({ '/things': { post: { operationId: 'createThing', requestBody: { required: true, content: json(ref('Thing')) }, responses: noContent } } }, { Thing: schema })
    : doc({ '/things': { get: { operationId: 'getThing', responses: ok(ref('Thing')) } } }, { Thing: schema });
}

export const thing = { type: 'object', properties: { name: { type: 'string' } } };
/** GET /things/{thingId} answering a `Thing`, with `more` in the operation. */
export const getThing = (more: Record<string, unknown> = {}) => ({ operationId: 'getThing', responses: ok(ref('Thing')), ...more });
/** A document of one operation at `route`, its path parameter `thingId` declared, `extra` at the top. */
export const one = (operation: Record<string, unknown>, extra: Doc = {}, route = '/things/{thingId}') =>
  doc({ [route]: { get: { parameters: [{ name: 'thingId', in: 'path', required: true, schema: { type: 'string' } }], ...operation } } }, { Thing: thing }, extra);

/** OpenAPI 3.1's default JSON Schema dialect. */
export const OAS_DIALECT = 'https://spec.openapis.org/oas/3.1/dialect/base';
