// Finds what a client can send without a bound: every string needs `maxLength`, every array `maxItems`, every map
// (an object whose other properties have a schema) `maxProperties`, every number a minimum and a maximum. Constants
// and enumerations are bounded by themselves; free-form values (`{}`) are bounded by the server's depth and body
// limits, not by the document.
import { isReference, listOperations, resolve, type OpenApiDocument, type Parameter } from './openapi.ts';

type Node = Record<string, unknown>;

/** Keywords that bound a value; a composition (`anyOf` …) inherits them from the schema that holds it. */
const BOUNDS = ['maxLength', 'maxItems', 'maxProperties', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'];

const isObject = (value: unknown): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `{not: {}}` and `false`: no other property is allowed (a sealed object, not a map). */
const forbidsAll = (schema: unknown) =>
  schema === false || (isObject(schema) && isObject(schema.not) && Object.keys(schema.not).length === 0);

function typesOf(schema: Node): string[] {
  const type = schema.type;
  return Array.isArray(type) ? (type as string[]) : typeof type === 'string' ? [type] : [];
}

function missingBounds(schema: Node): string[] {
  if (schema.const !== undefined || Array.isArray(schema.enum)) return [];
  const types = typesOf(schema);
  const missing: string[] = [];
  if (types.includes('string') && schema.maxLength === undefined) missing.push('maxLength');
  if (types.includes('array') && schema.maxItems === undefined) missing.push('maxItems');
  if (types.includes('integer') || types.includes('number')) {
    if (schema.minimum === undefined && schema.exclusiveMinimum === undefined) missing.push('minimum');
    if (schema.maximum === undefined && schema.exclusiveMaximum === undefined) missing.push('maximum');
  }
  for (const keyword of ['additionalProperties', 'unevaluatedProperties']) {
    const other = schema[keyword];
    if (other !== undefined && other !== true && !forbidsAll(other) && schema.maxProperties === undefined) {
      missing.push(`maxProperties (${keyword} allows more entries)`);
    }
  }
  return missing;
}

/**
 * Every unbounded place of what clients send, one line each: `Component.property: needs maxLength` inside a named
 * schema (reported once, whichever operation reaches it), `operationId query.name: …` for parameters and inline bodies.
 */
export function findUnboundedInputs(document: OpenApiDocument): string[] {
  const offenders = new Set<string>();
  const visited = new Set<string>();

  const walk = (node: unknown, where: string): void => {
    if (!isObject(node)) return;
    // Read-only properties are never sent: the validator rejects them in requests.
    if (node.readOnly === true) return;
    if (isReference(node)) {
      const name = node.$ref.split('/').at(-1)!;
      if (visited.has(node.$ref)) return;
      visited.add(node.$ref);
      walk(resolve(document, node), name);
      return;
    }
    for (const keyword of missingBounds(node)) offenders.add(`${where}: needs ${keyword}`);
    if (isObject(node.items)) walk(node.items, `${where}[]`);
    for (const keyword of ['additionalProperties', 'unevaluatedProperties']) {
      if (isObject(node[keyword]) && !forbidsAll(node[keyword])) walk(node[keyword], `${where}{}`);
    }
    if (isObject(node.properties)) {
      for (const [name, property] of Object.entries(node.properties)) walk(property, `${where}.${name}`);
    }
    const inherited = Object.fromEntries(BOUNDS.filter((key) => node[key] !== undefined).map((key) => [key, node[key]]));
    for (const keyword of ['allOf', 'anyOf', 'oneOf']) {
      const variants = node[keyword];
      if (!Array.isArray(variants)) continue;
      for (const variant of variants) {
        walk(isObject(variant) && !isReference(variant) ? { ...inherited, ...variant } : variant, where);
      }
    }
  };

  for (const { pathItem, operation, name } of listOperations(document)) {
    const id = operation.operationId ?? name;
    for (const reference of [...(pathItem.parameters ?? []), ...(operation.parameters ?? [])]) {
      const parameter = resolve<Parameter>(document, reference);
      walk(parameter.schema, `${id} ${parameter.in}.${parameter.name}`);
    }
    const body = (operation as { requestBody?: unknown }).requestBody;
    const content = body ? (resolve<{ content?: Record<string, { schema?: unknown }> }>(document, body as never).content ?? {}) : {};
    for (const media of Object.values(content)) walk(media.schema, `${id} body`);
  }
  return [...offenders].sort();
}
