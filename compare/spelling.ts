// Whether two schemas (or parameters, headers, answers, bodies) are written alike as far as a comparison reads them:
// two nodes written alike, reaching only components written alike, compare equal without being walked
// (compare/components.ts). What counts and what does not: breaking/README.md ("How documents are compared").

/** Keywords the comparison never reads (nor does any rule): left out. */
const IGNORED = new Set(['description', 'title', '$comment', 'examples', 'example', 'externalDocs', 'xml']);

/** Keywords whose value is a schema. */
const SCHEMA = new Set([
  'items',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'additionalItems',
  'propertyNames',
  'contentSchema',
]);

/** Keywords whose value is a list of schemas. */
const SCHEMA_LIST = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);

/** Keywords whose value maps names to schemas. */
const SCHEMA_MAP = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const skipped = (key: string) => IGNORED.has(key) || key.startsWith('x-');

/** Whether two values are the same JSON data, keys in any order. */
export function sameData(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let index = 0; index < a.length; index += 1) if (!sameData(a[index], b[index])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let count = 0;
  for (const key in x) {
    if (x[key] === undefined) continue;
    count += 1;
    if (!Object.hasOwn(y, key) || !sameData(x[key], y[key])) return false;
  }
  for (const key in y) if (y[key] !== undefined) count -= 1;
  return count === 0;
}

function sameEntries(a: Record<string, unknown>, b: Record<string, unknown>, same: (key: string, x: unknown, y: unknown) => boolean): boolean {
  let count = 0;
  for (const key in a) {
    if (skipped(key) || a[key] === undefined) continue;
    count += 1;
    if (!Object.hasOwn(b, key) || b[key] === undefined || !same(key, a[key], b[key])) return false;
  }
  for (const key in b) if (!skipped(key) && b[key] !== undefined) count -= 1;
  return count === 0;
}

function sameMap(a: unknown, b: unknown, same: (x: unknown, y: unknown) => boolean): boolean {
  if (!isObject(a) || !isObject(b)) return sameData(a, b);
  let count = 0;
  for (const key in a) {
    count += 1;
    if (!Object.hasOwn(b, key) || !same(a[key], b[key])) return false;
  }
  for (const _key in b) count -= 1;
  return count === 0;
}

function unwrapped(node: Record<string, unknown>, legacy: boolean): Record<string, unknown> {
  if (legacy || node.$ref !== undefined || !Array.isArray(node.allOf) || node.allOf.length !== 1) return node;
  const [member] = node.allOf;
  if (!isObject(member) || typeof member.$ref !== 'string' || Object.keys(member).length !== 1) return node;
  const { allOf: _allOf, ...rest } = node;
  return { $ref: member.$ref, ...rest };
}

/** Whether two schemas are written alike. `legacy`: OpenAPI 3.0, where a `$ref`'s siblings are ignored (no wrapper). */
export function alikeSchemas(a: unknown, b: unknown, legacy = false): boolean {
  if (a === b) return true;
  if (!isObject(a) || !isObject(b)) return sameData(a, b);
  return sameEntries(unwrapped(a, legacy), unwrapped(b, legacy), (key, x, y) => {
    if (SCHEMA.has(key)) return alikeSchemas(x, y, legacy);
    if (SCHEMA_LIST.has(key) && Array.isArray(x) && Array.isArray(y)) return x.length === y.length && x.every((member, index) => alikeSchemas(member, y[index], legacy));
    if (SCHEMA_MAP.has(key)) return sameMap(x, y, (m, n) => alikeSchemas(m, n, legacy));
    if (key === 'discriminator' && isObject(x) && isObject(y)) return x.propertyName === y.propertyName && sameData(x.mapping, y.mapping);
    return sameData(x, y);
  });
}

function alikeContent(a: unknown, b: unknown, legacy: boolean): boolean {
  return sameMap(a, b, (x, y) => (isObject(x) && isObject(y) ? sameEntries(x, y, (key, m, n) => (key === 'schema' ? alikeSchemas(m, n, legacy) : sameData(m, n))) : sameData(x, y)));
}

function alikeParameters(a: unknown, b: unknown, legacy: boolean): boolean {
  if (!isObject(a) || !isObject(b)) return sameData(a, b);
  return sameEntries(a, b, (key, x, y) => (key === 'schema' ? alikeSchemas(x, y, legacy) : key === 'content' ? alikeContent(x, y, legacy) : sameData(x, y)));
}

function alikeMessages(a: unknown, b: unknown, legacy: boolean): boolean {
  if (!isObject(a) || !isObject(b)) return sameData(a, b);
  return sameEntries(a, b, (key, x, y) => {
    if (key === 'content') return alikeContent(x, y, legacy);
    if (key === 'headers') return sameMap(x, y, (m, n) => alikeParameters(m, n, legacy));
    if (key === 'links') return true;
    return sameData(x, y);
  });
}

/** Whether two components of `kind` (`schemas`, `parameters`, …) are written alike; other kinds as data. */
export function alikeComponents(kind: string, a: unknown, b: unknown, legacy = false): boolean {
  if (kind === 'schemas') return alikeSchemas(a, b, legacy);
  if (kind === 'parameters' || kind === 'headers') return alikeParameters(a, b, legacy);
  if (kind === 'responses' || kind === 'requestBodies') return alikeMessages(a, b, legacy);
  return sameData(a, b);
}
