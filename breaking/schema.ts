// One level of a schema, normalised so that equivalent spellings compare equal: `$ref` followed, `allOf` members
// merged into one, `null` taken out of `type` arrays and of `anyOf`/`oneOf` (into `nullable`), a union left with a
// single member merged into its parent, `const` read as a one-value `enum`. Every keyword remembers the location
// that declared it, so a finding points at the schema that holds the changed keyword. Children (properties, items,
// map values, union members) stay unnormalised locations: the comparison descends into them lazily, which is what
// lets it walk recursive schemas.
import { child, isObject, resolvePointer, type JsonObject } from './pointer.ts';

/** A schema and where it is in its document. */
export interface Located {
  node: unknown;
  path: string;
}

export interface Keyword {
  value: unknown;
  path: string;
}

export interface Normalized {
  /** The location of the schema itself (the target of a `$ref`). */
  path: string;
  /** Where the schema was reached, before following a `$ref` (the property, parameter or body that holds it). */
  origin: string;
  /** The component it is (or wraps), for telling union members apart: `Site` for `$ref: '#/components/schemas/Site'`. */
  refName?: string;
  /** Allowed JSON types; undefined for any. `null` is never in it: see `nullable`. */
  types?: Set<string>;
  typesPath: string;
  nullable: boolean;
  nullablePath: string;
  /** `enum`, or `const` as a one-value enum, without `null`. */
  enumValues?: Keyword & { value: unknown[] };
  /** Validation keywords (`format`, `pattern`, bounds, `default`, …) with where each was declared. */
  keywords: Map<string, Keyword>;
  readOnly: boolean;
  writeOnly: boolean;
  deprecated: boolean;
  properties: Map<string, Located>;
  required: Set<string>;
  /** `additionalProperties`, else `unevaluatedProperties`: `sealed` for `false` or `{not: {}}`. */
  additional?: { sealed: true; path: string } | { sealed: false; schema: Located; path: string };
  items?: Located;
  /** Two or more non-null members of `anyOf`/`oneOf`. */
  variants?: { keyword: 'anyOf' | 'oneOf'; members: Located[]; path: string };
  discriminator?: Keyword;
}

/** Bounds: merged by keeping the tighter one. */
export const UPPER_BOUNDS = ['maxLength', 'maxItems', 'maximum', 'exclusiveMaximum'] as const;
export const LOWER_BOUNDS = ['minLength', 'minItems', 'minimum', 'exclusiveMinimum'] as const;

/** Validation keywords without a rule of their own: any change is `…-constraint-changed`. */
export const OTHER_CONSTRAINTS = [
  'multipleOf',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'propertyNames',
  'patternProperties',
  'dependentRequired',
  'dependentSchemas',
  'contains',
  'minContains',
  'maxContains',
  'prefixItems',
  'not',
  'if',
  'then',
  'else',
  'contentEncoding',
  'contentMediaType',
  'contentSchema',
] as const;

const SCALAR_KEYWORDS = ['format', 'pattern', 'default', ...UPPER_BOUNDS, ...LOWER_BOUNDS, ...OTHER_CONSTRAINTS];

function empty(path: string, origin = path): Normalized {
  return {
    path,
    origin,
    typesPath: path,
    nullable: false,
    nullablePath: path,
    keywords: new Map(),
    readOnly: false,
    writeOnly: false,
    deprecated: false,
    properties: new Map(),
    required: new Set(),
  };
}

const SCHEMA_REF = /^#\/components\/schemas\/([^/]+)$/;

function refName(ref: string): string | undefined {
  const match = SCHEMA_REF.exec(ref);
  return match ? decodeURIComponent(match[1]!).replace(/~1/g, '/').replace(/~0/g, '~') : undefined;
}

/** Whether a union member only admits `null`. */
function isNullSchema(document: unknown, node: unknown): boolean {
  const target = follow(document, { node, path: '' }).node;
  if (!isObject(target)) return false;
  if (target.type === 'null') return true;
  if (Array.isArray(target.type) && target.type.length === 1 && target.type[0] === 'null') return true;
  if (Object.hasOwn(target, 'const') && target.const === null) return true;
  return Array.isArray(target.enum) && target.enum.length === 1 && target.enum[0] === null;
}

/** Follows a chain of bare `$ref`s (a `$ref` with siblings is handled as `allOf` by `normalize`). */
function follow(document: unknown, at: Located, seen = new Set<string>()): Located & { name?: string } {
  let { node, path } = at;
  let name: string | undefined;
  while (isObject(node) && typeof node.$ref === 'string' && Object.keys(node).length === 1) {
    const ref = node.$ref;
    if (seen.has(ref)) break;
    seen.add(ref);
    name ??= refName(ref);
    node = resolvePointer(document, ref);
    path = ref;
  }
  return { node, path, name };
}

function typesOf(value: unknown): { types?: Set<string>; nullable: boolean } {
  if (value === undefined) return { nullable: false };
  const list = Array.isArray(value) ? value.map(String) : [String(value)];
  return { types: new Set(list.filter((type) => type !== 'null')), nullable: list.includes('null') };
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** Normalises the schema at `at` (one level; see the top of the file). */
export function normalize(document: unknown, at: Located, seen: ReadonlySet<string> = new Set()): Normalized {
  const followed = follow(document, at);
  const { node, path } = followed;
  if (seen.has(path)) return empty(path, at.path);
  const inside = new Set(seen).add(path);

  const result = empty(path, at.path);
  result.refName = followed.name;
  if (node === false) {
    result.types = new Set();
    return result;
  }
  if (!isObject(node)) return result;

  // A `$ref` with siblings means both: the siblings, and the referenced schema (as `allOf` does).
  const own: JsonObject = { ...node };
  const members: Located[] = [];
  if (typeof own.$ref === 'string') {
    members.push({ node: { $ref: own.$ref }, path });
    delete own.$ref;
  }
  if (Array.isArray(own.allOf)) {
    own.allOf.forEach((member, index) => members.push({ node: member, path: child(path, 'allOf', index) }));
  }

  applyOwn(result, own, path);

  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const list = own[keyword];
    if (!Array.isArray(list)) continue;
    const nonNull: Located[] = [];
    list.forEach((member, index) => {
      if (isNullSchema(document, member)) {
        result.nullable = true;
        result.nullablePath = path;
      } else nonNull.push({ node: member, path: child(path, keyword, index) });
    });
    if (nonNull.length === 1) members.push(nonNull[0]!);
    else if (nonNull.length > 1 && !result.variants) {
      result.variants = { keyword, members: nonNull, path: child(path, keyword) };
    }
  }

  for (const member of members) mergeMember(result, normalize(document, member, inside));

  if (!result.types) {
    if (result.properties.size > 0 || result.additional || result.required.size > 0) result.types = new Set(['object']);
    else if (result.items) result.types = new Set(['array']);
    else if (result.enumValues && result.enumValues.value.length > 0) {
      result.types = new Set(result.enumValues.value.map(jsonType));
    }
  }
  return result;
}

function applyOwn(result: Normalized, own: JsonObject, path: string): void {
  const { types, nullable } = typesOf(own.type);
  if (types) {
    result.types = types;
    result.typesPath = path;
  }
  if (nullable) {
    result.nullable = true;
    result.nullablePath = path;
  }

  const values = Object.hasOwn(own, 'const') ? [own.const] : Array.isArray(own.enum) ? own.enum : undefined;
  if (values) {
    if (values.includes(null)) {
      result.nullable = true;
      result.nullablePath = path;
    }
    result.enumValues = { value: values.filter((value) => value !== null), path };
  }

  for (const keyword of SCALAR_KEYWORDS) {
    if (own[keyword] !== undefined) result.keywords.set(keyword, { value: own[keyword], path });
  }
  // OpenAPI 3.0 writes exclusive bounds as booleans beside `maximum`/`minimum`.
  for (const [flag, bound] of [
    ['exclusiveMaximum', 'maximum'],
    ['exclusiveMinimum', 'minimum'],
  ] as const) {
    if (typeof own[flag] === 'boolean') {
      result.keywords.delete(flag);
      const value = own[bound];
      if (own[flag] === true && typeof value === 'number') {
        result.keywords.delete(bound);
        result.keywords.set(flag, { value, path });
      }
    }
  }

  if (own.readOnly === true) result.readOnly = true;
  if (own.writeOnly === true) result.writeOnly = true;
  if (own.deprecated === true) result.deprecated = true;
  if (own.discriminator !== undefined) result.discriminator = { value: own.discriminator, path };

  if (isObject(own.properties)) {
    for (const [name, schema] of Object.entries(own.properties)) {
      result.properties.set(name, { node: schema, path: child(path, 'properties', name) });
    }
  }
  if (Array.isArray(own.required)) for (const name of own.required) result.required.add(String(name));

  for (const keyword of ['additionalProperties', 'unevaluatedProperties'] as const) {
    if (result.additional || own[keyword] === undefined) continue;
    const value = own[keyword];
    const sealed = value === false || (isObject(value) && Object.keys(value).length === 1 && isObject(value.not) && Object.keys(value.not).length === 0);
    const at = child(path, keyword);
    result.additional = sealed
      ? { sealed: true, path }
      : { sealed: false, schema: { node: value === true ? {} : value, path: at }, path };
  }
  if (own.items !== undefined) result.items = { node: own.items, path: child(path, 'items') };
}

function tighter(keyword: string, a: unknown, b: unknown): boolean {
  if (typeof a !== 'number' || typeof b !== 'number') return false;
  return (UPPER_BOUNDS as readonly string[]).includes(keyword) ? a < b : a > b;
}

/** Merges an `allOf` member (or the single member of a union) into its parent: the parent's keywords win. */
function mergeMember(parent: Normalized, member: Normalized): void {
  parent.refName ??= member.refName;
  if (!parent.types) {
    parent.types = member.types;
    parent.typesPath = member.typesPath;
  } else if (member.types) {
    const both = new Set([...parent.types].filter((type) => member.types!.has(type)));
    if (parent.types.has('number') && member.types.has('integer')) both.add('integer');
    if (parent.types.has('integer') && member.types.has('number')) both.add('integer');
    parent.types = both;
  }
  if (member.nullable && !parent.nullable) {
    parent.nullable = true;
    parent.nullablePath = member.nullablePath;
  }
  parent.enumValues ??= member.enumValues;
  for (const [keyword, entry] of member.keywords) {
    const current = parent.keywords.get(keyword);
    if (!current || tighter(keyword, entry.value, current.value)) parent.keywords.set(keyword, entry);
  }
  parent.readOnly ||= member.readOnly;
  parent.writeOnly ||= member.writeOnly;
  parent.deprecated ||= member.deprecated;
  for (const [name, location] of member.properties) if (!parent.properties.has(name)) parent.properties.set(name, location);
  for (const name of member.required) parent.required.add(name);
  parent.additional ??= member.additional;
  parent.items ??= member.items;
  parent.variants ??= member.variants;
  parent.discriminator ??= member.discriminator;
}

/** Whether every value of types `inner` is one of types `outer` (undefined is any type). */
export function typesCover(outer: Set<string> | undefined, inner: Set<string> | undefined): boolean {
  if (!outer) return true;
  if (!inner) return false;
  return [...inner].every((type) => outer.has(type) || (type === 'integer' && outer.has('number')));
}

export function typesOverlap(a: Set<string> | undefined, b: Set<string> | undefined): boolean {
  if (!a || !b) return true;
  return [...a].some((type) => b.has(type) || (type === 'integer' && b.has('number')) || (type === 'number' && b.has('integer')));
}

export function showTypes(types: Set<string> | undefined): string {
  if (!types) return 'any';
  if (types.size === 0) return 'nothing';
  return [...types].sort().join(' | ');
}
