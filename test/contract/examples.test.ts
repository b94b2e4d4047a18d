// The contract's examples (`@example` on models, `@opExample` on operations): every request body has one to start
// from, the main responses have one, and each is valid against its schema in the generated document (Ajv, JSON
// Schema 2020-12, formats on), a request example checked as a request (read-only fields neither required nor allowed).
// What a body to start from is: test/README.md, "Examples valid against their schemas".
import { readFileSync } from 'node:fs';
import type { ErrorObject } from 'ajv';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { CORE_SCHEMA, load } from 'js-yaml';
import { describe, expect, test } from 'vitest';
import { operationExamples as examplesOfOperation } from '../../server/http/example-answers.ts';
import { openapiPath } from '../support/repo.ts';

const Ajv2020 = Ajv2020Module.default;
const addFormats = addFormatsModule.default;

type Schema = Record<string, any>;
const document = load(readFileSync(openapiPath, 'utf8'), { schema: CORE_SCHEMA }) as {
  paths: Record<string, Record<string, Schema>>;
  components: { schemas: Record<string, Schema> };
};
const schemas = document.components.schemas;

/** The document as a request sees it: read-only properties removed from `required` and not allowed. */
function asRequests(source: typeof document): typeof document {
  const copy = structuredClone(source);
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (typeof node !== 'object' || node === null) return;
    const schema = node as Schema;
    if (schema.properties && typeof schema.properties === 'object') {
      const readOnly = Object.keys(schema.properties).filter((name) => schema.properties[name]?.readOnly === true);
      for (const name of readOnly) schema.properties[name] = false;
      if (Array.isArray(schema.required)) schema.required = schema.required.filter((name: string) => !readOnly.includes(name));
    }
    Object.values(schema).forEach(visit);
  };
  visit(copy.components);
  return copy;
}

const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
addFormats(ajv);
ajv.addSchema({ ...document, $id: 'urn:docs-platform:contract' });
ajv.addSchema({ ...asRequests(document), $id: 'urn:docs-platform:requests' });

/** The problems of `value` against the schema at `pointer` (a JSON pointer into the document), as a request or not. */
function problems(value: unknown, pointer: string, as: 'request' | 'response'): string[] {
  const validate = ajv.getSchema(`urn:docs-platform:${as === 'request' ? 'requests' : 'contract'}#${pointer}`)!;
  if (validate(value)) return [];
  return (validate.errors as ErrorObject[]).map((error) => `${error.instancePath || '/'} ${error.message} ${JSON.stringify(error.params)}`);
}

const pointerPart = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');
const resolve = (schema: Schema | undefined): Schema | undefined =>
  schema?.$ref ? schemas[String(schema.$ref).split('/').pop()!] : schema?.allOf?.length === 1 && !schema.properties ? resolve(schema.allOf[0]) : schema;

/** The body a client starts from, as /docs fills it in; undefined when the contract offers none. */
function firstBody(media: Schema): unknown {
  if (media.example !== undefined) return media.example;
  if (media.examples) return (Object.values(media.examples)[0] as { value: unknown }).value;
  const fromSchema = (schema: Schema | undefined): unknown => {
    const target = resolve(schema);
    if (!target) return undefined;
    if (Array.isArray(target.examples) && target.examples.length > 0) return target.examples[0];
    if (!target.properties) return undefined;
    const body: Record<string, unknown> = {};
    for (const [name, property] of Object.entries(target.properties as Record<string, Schema>)) {
      if (property.readOnly) continue;
      const value = fromSchema(property);
      if (value === undefined) {
        if ((target.required ?? []).includes(name)) return undefined;
        continue;
      }
      body[name] = value;
    }
    return Object.keys(body).length > 0 ? body : undefined;
  };
  return fromSchema(media.schema);
}

const operations = Object.entries(document.paths).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([method]) => ['get', 'put', 'post', 'patch', 'delete'].includes(method))
    .map(([method, operation]) => ({ path, method, operation, pointer: `/paths/${pointerPart(path)}/${method}` })),
);

describe('the examples of the contract', () => {
  test('every request body has one to start from, valid as a request', () => {
    const bodies = operations.filter(({ operation }) => operation.requestBody);
    expect(bodies.length).toBeGreaterThan(40);
    const missing: string[] = [];
    const invalid: string[] = [];
    for (const { operation, pointer } of bodies) {
      const media = operation.requestBody.content['application/json'] as Schema;
      const body = firstBody(media);
      if (body === undefined) {
        missing.push(operation.operationId);
        continue;
      }
      const found = problems(body, `${pointer}/requestBody/content/application~1json/schema`, 'request');
      if (found.length > 0) invalid.push(`${operation.operationId}: ${found.join('; ')}`);
    }
    expect(missing, 'request bodies without an example').toEqual([]);
    expect(invalid, 'request examples the server would refuse').toEqual([]);
  });

  test('every operation has one in the document: its required parameters, its body, its success answer', () => {
    const incomplete = operations.flatMap(({ path, method, operation }) => {
      const [example] = examplesOfOperation(document as never, { path, method: method as never, operationId: operation.operationId });
      if (example === undefined) return [`${operation.operationId}: no example`];
      const missing: string[] = [];
      for (const parameter of (operation.parameters ?? []) as Schema[]) {
        const value = parameter.in === 'path' || parameter.in === 'query' ? example.parameters[parameter.in as 'path' | 'query'][parameter.name] : undefined;
        if (parameter.required && value === undefined) missing.push(`parameter ${parameter.name}`);
      }
      if (operation.requestBody?.required && example.body === undefined) missing.push('body');
      const [, success] = Object.entries(operation.responses as Record<string, Schema>).find(([status]) => status.startsWith('2'))!;
      if (success.content && example.response === undefined) missing.push('answer');
      return missing.length > 0 ? [`${operation.operationId}: its example has no ${missing.join(', ')}`] : [];
    });
    expect(incomplete).toEqual([]);
  });

  test("each schema's examples are valid against it", () => {
    const withExamples = Object.entries(schemas).filter(([, schema]) => Array.isArray(schema.examples));
    expect(withExamples.length).toBeGreaterThan(50);
    const invalid = withExamples.flatMap(([name, schema]) =>
      (schema.examples as unknown[]).flatMap((example, index) =>
        problems(example, `/components/schemas/${pointerPart(name)}`, 'response').map((problem) => `${name} example ${index}: ${problem}`),
      ),
    );
    expect(invalid).toEqual([]);
  });

  test("each operation's examples are valid against their media type's schema (requests as requests)", () => {
    const checked: string[] = [];
    const invalid: string[] = [];
    for (const { operation, pointer } of operations) {
      const media: [string, Schema, 'request' | 'response'][] = [];
      if (operation.requestBody) media.push([`${pointer}/requestBody`, operation.requestBody, 'request']);
      for (const [status, response] of Object.entries(operation.responses as Record<string, Schema>)) media.push([`${pointer}/responses/${status}`, response, 'response']);
      for (const [at, holder, as] of media) {
        const json = holder.content?.['application/json'] as Schema | undefined;
        if (!json) continue;
        const values = [...(json.example !== undefined ? [json.example] : []), ...Object.values((json.examples ?? {}) as Record<string, { value: unknown }>).map((entry) => entry.value)];
        for (const value of values) {
          checked.push(`${operation.operationId} ${at}`);
          const found = problems(value, `${at}/content/application~1json/schema`, as);
          if (found.length > 0) invalid.push(`${operation.operationId} (${as}): ${found.join('; ')}`);
        }
      }
    }
    expect(checked.length).toBeGreaterThan(0);
    expect(invalid).toEqual([]);
  });

  test('an example that breaks its schema is caught (the check can fail)', () => {
    const space = structuredClone(schemas.Space!.examples[0]) as Record<string, unknown>;
    space.visibility = 'everyone';
    expect(problems(space, '/components/schemas/Space', 'response').join('\n')).toMatch(/visibility must be equal to one of the allowed values/);
    const request = { ...(schemas.CreateSpaceRequest!.examples[0] as object), id: 'abc' };
    expect(problems(request, '/components/schemas/CreateSpaceRequest', 'request').length).toBeGreaterThan(0);
    // A read-only field in a request body is refused, as the server refuses it.
    expect(problems({ object: 'site-adaptive-schema', jsonSchema: schemas.AdaptiveJsonSchema!.examples[0] }, '/components/schemas/SiteAdaptiveSchema', 'request')).not.toEqual([]);
    expect(problems({ jsonSchema: schemas.AdaptiveJsonSchema!.examples[0] }, '/components/schemas/SiteAdaptiveSchema', 'request')).toEqual([]);
  });
});
