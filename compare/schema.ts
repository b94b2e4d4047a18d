// One level of a schema, read as a validator reads it, so that equivalent spellings compare equal and a constraint
// counts wherever it is written: `$ref` followed, `allOf` members intersected keyword by keyword, `null` read into one
// flag. Every keyword remembers the location that declared it; children stay unnormalised locations, walked lazily.
// How, and why: breaking/README.md ("How documents are compared").
import { canonical, child, componentOf, isObject, resolvePointer, type JsonObject } from './pointer.ts';

/**
 * A schema and where it is in its document. `and` holds further schemas the value must also match (a property two
 * `allOf` members declare, the values of two maps, a union alternative with what its parent requires besides);
 * `outside` applies to every property that none of them declares (`unevaluatedProperties` of the parent).
 */
export interface Located {
  node: unknown;
  path: string;
  and?: readonly Located[];
  outside?: Located;
  /** The node without its `allOf`, `anyOf`, `oneOf` and `$ref` (a part of its own conjunction). */
  atom?: boolean;
}

export interface Keyword {
  value: unknown;
  path: string;
}

/** What properties that an object does not declare may hold. */
export type Additional = { kind: 'open' } | { kind: 'sealed'; path: string } | { kind: 'schema'; schema: Located; path: string };

export interface Normalized {
  /** The location of the schema itself (the target of a `$ref`). */
  path: string;
  /** Where the schema was reached, before following a `$ref` (the property, parameter or body that holds it). */
  origin: string;
  /** Identifies the schema with its conjoined parts: two equal ids are the same schema. */
  id: string;
  /** The component it is (or wraps), for telling union members apart: `Site` for `$ref: '#/components/schemas/Site'`. */
  refName?: string;
  /** Allowed JSON types other than `null`; undefined for any. */
  types?: Set<string>;
  typesPath: string;
  /** Whether `null` is a valid value. */
  nullable: boolean;
  /** Where `null` is allowed in so many words (a type list, a `null` member or value, `nullable: true`). */
  nullablePath?: string;
  /** `enum`, or `const` as a one-value enum, without `null`; the intersection of every member's. */
  enumValues?: Keyword & { value: unknown[] };
  formats: Keyword[];
  patterns: Keyword[];
  /** `maxLength`, `minimum`, …: the tightest of each. */
  bounds: Map<string, Keyword>;
  /** Validation keywords without a rule of their own, every member's value. */
  others: Map<string, Keyword[]>;
  default?: Keyword;
  /** Where each annotation is set, when it is. */
  readOnly?: string;
  writeOnly?: string;
  deprecated?: string;
  properties: Map<string, Located>;
  required: Set<string>;
  /** Where `required` is declared (the last member that declares it). */
  requiredPath?: string;
  /** What the properties it does not declare may hold. */
  additional: Additional;
  items?: Located;
  /** The alternatives of `anyOf`/`oneOf`, each complete (what the rest of the schema requires conjoined). */
  variants?: { keyword: 'anyOf' | 'oneOf'; members: Located[]; path: string };
  discriminator?: Keyword;
  /** The components it draws on (where its keywords are declared): itself, and what it refers to. */
  sources: Set<string>;
  /** A recursion was cut while reading it (it is then not remembered). */
  cut?: boolean;
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

/** The most alternatives a distributed union may have; past it, only the first union is distributed. */
const MAX_ALTERNATIVES = 64;

const COMPOSITION = new Set(['allOf', 'anyOf', 'oneOf', '$ref']);

function empty(path: string, origin = path, id = path): Normalized {
  const component = componentOf(path);
  return {
    sources: new Set(component === undefined ? [] : [component]),
    path,
    origin,
    id,
    typesPath: path,
    nullable: true,
    formats: [],
    patterns: [],
    bounds: new Map(),
    others: new Map(),
    properties: new Map(),
    required: new Set(),
    additional: { kind: 'open' },
  };
}

const SCHEMA_REF = /^#\/components\/schemas\/([^/]+)$/;

export function refName(ref: string): string | undefined {
  const match = SCHEMA_REF.exec(ref);
  return match ? decodeURIComponent(match[1]!).replace(/~1/g, '/').replace(/~0/g, '~') : undefined;
}

/** `3.0` for OpenAPI 3.0 documents (a `$ref`'s siblings are ignored, `nullable: true` allows `null`), else `3.1`. */
export function dialectOf(document: unknown): '3.0' | '3.1' {
  return isObject(document) && typeof document.openapi === 'string' && document.openapi.startsWith('3.0') ? '3.0' : '3.1';
}

/** Follows a chain of bare `$ref`s (in 3.1 a `$ref` with siblings is a conjunction, read by `normalize`). */
function follow(document: unknown, at: { node: unknown; path: string }, legacy: boolean): { node: unknown; path: string; name?: string } {
  let { node, path } = at;
  let name: string | undefined;
  const seen = new Set<string>();
  while (isObject(node) && typeof node.$ref === 'string' && (legacy || Object.keys(node).length === 1)) {
    const ref = node.$ref;
    if (seen.has(ref)) break;
    seen.add(ref);
    name ??= refName(ref);
    node = resolvePointer(document, ref);
    path = ref;
  }
  return { node, path, name };
}

/** Identifies a location with its conjoined parts. */
export function locatedId(at: Located): string {
  let id = at.atom ? `${at.path}#` : at.path;
  if (at.and && at.and.length > 0) id += `&(${at.and.map(locatedId).join(',')})`;
  if (at.outside) id += `!${locatedId(at.outside)}`;
  return id;
}

/** `a` and `b` both: the location of a value that must match both. */
export function conjoin(a: Located | undefined, b: Located | undefined): Located | undefined {
  if (!a) return b;
  if (!b) return a;
  return { ...a, and: [...(a.and ?? []), b] };
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

const cache = new WeakMap<object, Map<string, Normalized>>();

/** Normalises the schema at `at` (one level; see the top of the file). */
export function normalize(document: unknown, at: Located, seen: ReadonlySet<string> = new Set()): Normalized {
  const key = locatedId(at);
  const memory = isObject(document) ? cache.get(document) ?? cache.set(document, new Map()).get(document)! : undefined;
  const known = memory?.get(key);
  if (known) return known;
  const result = compute(document, at, seen);
  if (!result.cut) memory?.set(key, result);
  return result;
}

function compute(document: unknown, at: Located, seen: ReadonlySet<string>): Normalized {
  if ((at.and && at.and.length > 0) || at.outside) {
    const result = copy(normalize(document, { node: at.node, path: at.path, ...(at.atom ? { atom: true } : {}) }, seen));
    result.id = locatedId(at);
    for (const part of at.and ?? []) intersect(result, normalize(document, part, seen));
    if (at.outside) result.additional = meetAdditional(result.additional, additionalOf(at.outside.node, at.outside.path));
    finish(result);
    return result;
  }

  const legacy = dialectOf(document) === '3.0';
  if (!at.atom) {
    const followed = follow(document, at, legacy);
    if (followed.path !== at.path) {
      // Remembered once per target, whatever refers to it.
      const target = normalize(document, { node: followed.node, path: followed.path }, seen);
      return { ...target, origin: at.path, refName: followed.name ?? target.refName };
    }
  }
  const { node, path } = at;
  const id = locatedId(at);
  if (seen.has(id)) return { ...empty(path, path, id), cut: true };
  const inside = new Set(seen).add(id);

  const result = empty(path, path, id);
  if (!at.atom) result.refName = refName(path);
  if (node === false) {
    result.types = new Set();
    result.nullable = false;
    return result;
  }
  if (!isObject(node)) return result;
  if (at.atom || !Object.keys(node).some((keyword) => COMPOSITION.has(keyword))) {
    applyOwn(result, node, path, legacy);
    if (!at.atom && node.unevaluatedProperties !== undefined) {
      result.additional = meetAdditional(result.additional, additionalOf(node.unevaluatedProperties, child(path, 'unevaluatedProperties')));
    }
    finish(result);
    return result;
  }

  // The schema is the conjunction of its own keywords, its \`allOf\` members, the schema its \`$ref\` names (3.1),
  // and its unions; a union with one alternative besides \`null\` is a member like the others.
  const parts: Located[] = [{ node, path, atom: true }];
  if (typeof node.$ref === 'string' && !legacy) parts.push({ node: { $ref: node.$ref }, path });
  if (Array.isArray(node.allOf)) node.allOf.forEach((member, index) => parts.push({ node: member, path: child(path, 'allOf', index) }));

  const unions: { keyword: 'anyOf' | 'oneOf'; members: Located[]; path: string }[] = [];
  /** Parts that are a union's only alternative besides \`null\`: the union, not they, says whether \`null\` is valid. */
  const alone = new Set<number>();
  let unionNull: boolean | undefined;
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const list = node[keyword];
    if (!Array.isArray(list)) continue;
    const members = list.map((member, index) => ({ node: member, path: child(path, keyword, index) }));
    const normalized = members.map((member) => normalize(document, member, inside));
    const admitsNull = normalized.some((member) => member.nullable);
    unionNull = (unionNull ?? true) && admitsNull;
    const nonNull = members.filter((_, index) => !isNullOnly(normalized[index]!));
    if (nonNull.length === 1) {
      alone.add(parts.length);
      parts.push(nonNull[0]!);
    } else if (nonNull.length === 0) {
      parts.push({ node: { type: 'null' }, path: child(path, keyword) });
    } else unions.push({ keyword, members: nonNull, path: child(path, keyword) });
  }

  const normalizedParts = parts.map((part, index) => {
    const schema = normalize(document, part, inside);
    return alone.has(index) ? { ...schema, nullable: true, nullablePath: undefined } : schema;
  });
  const merged = copy(normalizedParts[0]!);
  merged.id = id;
  merged.refName = result.refName;
  for (const part of normalizedParts.slice(1)) intersect(merged, part);
  if (unionNull === false) merged.nullable = false;
  else if (unionNull === true && merged.nullable) merged.nullablePath ??= path;
  const outside: Located | undefined =
    node.unevaluatedProperties === undefined ? undefined : { node: node.unevaluatedProperties, path: child(path, 'unevaluatedProperties') };
  if (outside) merged.additional = meetAdditional(merged.additional, additionalOf(outside.node, outside.path));

  // Unions: every alternative is made whole with what the rest of the schema requires, so alternatives compare whole.
  const lists = [...unions];
  const plain: Located[] = [];
  parts.forEach((part, index) => {
    const variants = normalizedParts[index]!.variants;
    if (variants) lists.push(variants);
    else plain.push(part);
  });
  if (lists.length > 0) {
    let combinations: Located[][] = [[]];
    for (const list of lists) {
      if (combinations.length > 1 && combinations.length * list.members.length > MAX_ALTERNATIVES) continue;
      combinations = combinations.flatMap((combination) => list.members.map((member) => [...combination, member]));
    }
    merged.variants = {
      keyword: lists[0]!.keyword,
      path: lists[0]!.path,
      members: combinations.map(([head, ...rest]) => ({ ...head!, and: [...(head!.and ?? []), ...rest, ...plain], ...(outside ? { outside } : {}) })),
    };
  }
  finish(merged);
  return merged;
}

function isNullOnly(schema: Normalized): boolean {
  return schema.types !== undefined && schema.types.size === 0 && schema.nullable;
}

function copy(schema: Normalized): Normalized {
  return {
    ...schema,
    types: schema.types && new Set(schema.types),
    formats: [...schema.formats],
    patterns: [...schema.patterns],
    bounds: new Map(schema.bounds),
    others: new Map([...schema.others].map(([keyword, values]) => [keyword, [...values]])),
    properties: new Map(schema.properties),
    required: new Set(schema.required),
    sources: new Set(schema.sources),
    cut: schema.cut,
  };
}

function typesOf(value: unknown): { types?: Set<string>; nullable: boolean } {
  if (value === undefined) return { nullable: true };
  const list = Array.isArray(value) ? value.map(String) : [String(value)];
  return { types: new Set(list.filter((type) => type !== 'null')), nullable: list.includes('null') };
}

function applyOwn(result: Normalized, own: JsonObject, path: string, legacy: boolean): void {
  const { types, nullable } = typesOf(own.type);
  let admitsNull = nullable;
  let explicit = types !== undefined && nullable;
  if (types) {
    result.types = types;
    result.typesPath = path;
  }
  if (legacy && own.nullable === true) {
    admitsNull = true;
    explicit = true;
  }
  const values = Object.hasOwn(own, 'const') ? [own.const] : Array.isArray(own.enum) ? own.enum : undefined;
  if (values) {
    if (values.includes(null)) explicit = true;
    else admitsNull = false;
    result.enumValues = { value: values.filter((value) => value !== null), path };
  }
  result.nullable = admitsNull;
  if (admitsNull && explicit) result.nullablePath = path;

  if (typeof own.format === 'string') result.formats.push({ value: own.format, path });
  if (typeof own.pattern === 'string') result.patterns.push({ value: own.pattern, path });
  for (const keyword of [...UPPER_BOUNDS, ...LOWER_BOUNDS]) {
    if (typeof own[keyword] === 'number') result.bounds.set(keyword, { value: own[keyword], path });
  }
  // OpenAPI 3.0 writes exclusive bounds as booleans beside `maximum`/`minimum`.
  for (const [flag, bound] of [
    ['exclusiveMaximum', 'maximum'],
    ['exclusiveMinimum', 'minimum'],
  ] as const) {
    if (own[flag] === true && typeof own[bound] === 'number') {
      result.bounds.delete(bound);
      result.bounds.set(flag, { value: own[bound], path });
    }
  }
  for (const keyword of OTHER_CONSTRAINTS) {
    if (own[keyword] !== undefined) result.others.set(keyword, [{ value: own[keyword], path }]);
  }
  if (own.default !== undefined) result.default = { value: own.default, path };

  if (own.readOnly === true) result.readOnly = path;
  if (own.writeOnly === true) result.writeOnly = path;
  if (own.deprecated === true) result.deprecated = path;
  if (own.discriminator !== undefined) result.discriminator = { value: own.discriminator, path };

  if (isObject(own.properties)) {
    for (const [name, schema] of Object.entries(own.properties)) {
      result.properties.set(name, { node: schema, path: child(path, 'properties', name) });
    }
  }
  if (Array.isArray(own.required)) {
    for (const name of own.required) result.required.add(String(name));
    result.requiredPath = path;
  }

  // `additionalProperties` applies to the properties this schema object declares itself; `unevaluatedProperties`
  // to those that none of the parts of its conjunction declares (`normalize` applies it after the members).
  if (own.additionalProperties !== undefined) result.additional = additionalOf(own.additionalProperties, child(path, 'additionalProperties'));
  if (own.items !== undefined) result.items = { node: own.items, path: child(path, 'items') };
}

/** What `additionalProperties`/`unevaluatedProperties` at `at` allow; a sealing is reported at the object. */
function additionalOf(value: unknown, at: string): Additional {
  const owner = at.slice(0, at.lastIndexOf('/'));
  if (value === true) return { kind: 'open' };
  if (value === false) return { kind: 'sealed', path: owner };
  if (isObject(value) && Object.keys(value).length === 0) return { kind: 'open' };
  if (isObject(value) && Object.keys(value).length === 1 && isObject(value.not) && Object.keys(value.not).length === 0) {
    return { kind: 'sealed', path: owner };
  }
  return { kind: 'schema', schema: { node: value, path: at }, path: owner };
}

function meetAdditional(a: Additional, b: Additional): Additional {
  if (a.kind === 'sealed') return a;
  if (b.kind === 'sealed') return b;
  if (a.kind === 'open') return b;
  if (b.kind === 'open') return a;
  return { kind: 'schema', schema: conjoin(a.schema, b.schema)!, path: a.path };
}

/** What a property that `schema` does not declare must also match, or undefined when anything goes. */
function outsideSchema(additional: Additional): Located | undefined {
  if (additional.kind === 'open') return undefined;
  if (additional.kind === 'sealed') return { node: false, path: additional.path };
  return additional.schema;
}

function tighter(keyword: string, a: unknown, b: unknown): boolean {
  if (typeof a !== 'number' || typeof b !== 'number') return false;
  return (UPPER_BOUNDS as readonly string[]).includes(keyword) ? a < b : a > b;
}

function addDistinct(list: Keyword[], entries: readonly Keyword[]): void {
  for (const entry of entries) if (!list.some((known) => canonical(known.value) === canonical(entry.value))) list.push(entry);
}

/** Intersects `part` into `target`: a value must now match both. */
function intersect(target: Normalized, part: Normalized): void {
  target.refName ??= part.refName;
  if (!target.types) {
    if (part.types) {
      target.types = new Set(part.types);
      target.typesPath = part.typesPath;
    }
  } else if (part.types) {
    const both = new Set([...target.types].filter((type) => part.types!.has(type)));
    if (target.types.has('number') && part.types.has('integer')) both.add('integer');
    if (target.types.has('integer') && part.types.has('number')) both.add('integer');
    if (both.size < target.types.size) target.typesPath = part.typesPath;
    target.types = both;
  }
  if (!part.nullable) {
    target.nullable = false;
    target.nullablePath = undefined;
  } else if (target.nullable) target.nullablePath ??= part.nullablePath;

  if (!target.enumValues) target.enumValues = part.enumValues && { ...part.enumValues, value: [...part.enumValues.value] };
  else if (part.enumValues) {
    const allowed = new Set(part.enumValues.value.map(canonical));
    const kept = target.enumValues.value.filter((value) => allowed.has(canonical(value)));
    target.enumValues = { value: kept, path: kept.length < target.enumValues.value.length ? part.enumValues.path : target.enumValues.path };
  }

  addDistinct(target.formats, part.formats);
  addDistinct(target.patterns, part.patterns);
  for (const [keyword, entry] of part.bounds) {
    const current = target.bounds.get(keyword);
    if (!current || tighter(keyword, entry.value, current.value)) target.bounds.set(keyword, entry);
  }
  for (const [keyword, entries] of part.others) addDistinct(target.others.get(keyword) ?? target.others.set(keyword, []).get(keyword)!, entries);
  target.default ??= part.default;
  target.readOnly ??= part.readOnly;
  target.writeOnly ??= part.writeOnly;
  target.deprecated ??= part.deprecated;
  target.discriminator ??= part.discriminator;

  // Properties: one declared by both is both; one declared by one side only must also match what the other side
  // allows for properties it does not declare (nothing, when it is sealed).
  const properties = new Map<string, Located>();
  const targetOutside = outsideSchema(target.additional);
  const partOutside = outsideSchema(part.additional);
  for (const [name, location] of target.properties) {
    const other = part.properties.get(name);
    properties.set(name, other ? conjoin(location, other)! : partOutside ? conjoin(location, partOutside)! : location);
  }
  for (const [name, location] of part.properties) {
    if (target.properties.has(name)) continue;
    properties.set(name, targetOutside ? conjoin(location, targetOutside)! : location);
  }
  target.properties = properties;
  for (const name of part.required) target.required.add(name);
  if (part.requiredPath && part.required.size > 0) target.requiredPath = part.requiredPath;
  target.additional = meetAdditional(target.additional, part.additional);
  target.items = conjoin(target.items, part.items);
  for (const source of part.sources) target.sources.add(source);
  if (part.cut) target.cut = true;
}

/** Completes a merged schema: its types inferred when no member gave any, its values limited to its types. */
function finish(result: Normalized): void {
  if (!result.types) {
    if (result.properties.size > 0 || result.additional.kind !== 'open' || result.required.size > 0) result.types = new Set(['object']);
    else if (result.items) result.types = new Set(['array']);
    else if (result.enumValues && result.enumValues.value.length > 0) result.types = new Set(result.enumValues.value.map(jsonType));
  }
  // `multipleOf` an integer: only integers are numbers it accepts (`type: number, multipleOf: 1` is `type: integer`).
  const multiples = result.others.get('multipleOf');
  if (
    result.types?.has('number') &&
    multiples !== undefined &&
    multiples.length > 0 &&
    multiples.every((entry) => typeof entry.value === 'number' && Number.isInteger(entry.value) && entry.value > 0)
  ) {
    result.types = new Set([...result.types].map((type) => (type === 'number' ? 'integer' : type)));
  }
  if (result.enumValues && result.types) {
    const types = result.types;
    const kept = result.enumValues.value.filter((value) => {
      const type = jsonType(value);
      return types.has(type) || (type === 'integer' && types.has('number'));
    });
    if (kept.length < result.enumValues.value.length) result.enumValues = { ...result.enumValues, value: kept };
  }
  // No value is listed (members whose enums do not meet): only `null`, if that.
  if (result.enumValues && result.enumValues.value.length === 0) result.types = new Set();
}

/** Whether a schema admits no value at all. */
export function isNever(schema: Normalized): boolean {
  return schema.types !== undefined && schema.types.size === 0 && !schema.nullable;
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

/** Forgets what was remembered of a document's schemas (it may have changed). */
export function forget(document: object): void {
  cache.delete(document);
}
