// Requests generated from the contract's schemas (fast-check arbitraries), boundary values of every limit the
// schemas state, and invalid values that break one rule each. Nothing here names an operation or a field: every
// value comes from a schema of the document (and the ids the scenario used, by parameter name).
import fc from 'fast-check';
import type { Contract, Operation, Parameter, Schema } from '../../contract/contract.ts';
import { objectShape, UNKNOWN_PROPERTY } from '../../contract/invalid.ts';

/** Real ids by path parameter name (`spaceId` → the spaces the scenario worked with). */
export type IdLookup = (name: string) => string[] | undefined;

export interface GenerateOptions {
  /** Ids the scenario used, by path parameter name; a body field `space` or `spaceId` takes a `spaceId`. */
  ids?: IdLookup;
  /** Top-level body fields always present (the round-trip of every field). */
  require?: string[];
}

/** A request of an operation, as the property phase sends it. */
export interface GeneratedRequest {
  path: Record<string, string>;
  query: Record<string, unknown>;
  body?: unknown;
  /** The rule an invalid request breaks (absent for a valid one). */
  invalid?: { where: string; rule: string };
}

const MAX_DEPTH = 6;
/** Strings and arrays generated longer than this only as boundary values (keeps requests small). */
const TYPICAL_LENGTH = 24;
const TYPICAL_ITEMS = 3;
/** An array boundary of maxItems is generated only up to this many items. */
const MAX_BOUNDARY_ITEMS = 64;

const typeOf = (schema: Schema): string | undefined => {
  const types = [schema.type].flat().filter((type): type is string => typeof type === 'string');
  return types.find((type) => type !== 'null') ?? types[0];
};

/** Follows `$ref` and a single-part `allOf` (the emitter's way of describing a referenced property). */
export function flatten(contract: Contract, raw: Schema): Schema {
  let schema = contract.resolve(raw);
  for (let hops = 0; hops < 16; hops++) {
    const only = schema.allOf?.length === 1 && !schema.properties && !schema.type ? schema.allOf[0] : undefined;
    if (!only) break;
    const { allOf: _allOf, ...rest } = schema;
    schema = { ...contract.resolve(only), ...rest, ...(schema.readOnly || only.readOnly ? { readOnly: true } : {}) };
  }
  return schema;
}

const idCandidates = (ids: IdLookup | undefined, name: string | undefined): string[] | undefined => {
  if (!ids || !name) return undefined;
  const found = ids(name) ?? ids(`${name}Id`) ?? (name.endsWith('s') ? undefined : undefined);
  return found && found.length > 0 ? found : undefined;
};

/**
 * The top-level domains that never name a real host (RFC 2606, RFC 6761): every host name the runner makes up ends
 * with one, so that a value it sends cannot make the implementation call a host that exists. `invalid` first, and
 * wherever a pattern allows it: a resolver answers it at once, as a name that does not exist (RFC 6761, section 6.4;
 * the reference server does not even look it up).
 */
const RESERVED_TLDS = ['invalid', 'test', 'example'] as const;

/** A host name under `.invalid`: fast-check's domains, their own top-level domain replaced. */
const INVALID_DOMAIN = fc.domain().map((domain) => `${domain.slice(0, domain.lastIndexOf('.'))}.invalid`);

/**
 * A value of `pattern` that starts with a host name (`docs.acme.io/guide`), with that name's top-level domain replaced
 * by the first reserved one the pattern accepts there; a value whose pattern accepts none stays as it is.
 */
function withReservedHost(value: string, pattern: RegExp): string {
  const host = /^((?:[a-z0-9-]+\.)+)[a-z0-9-]+(?=$|[/:?#])/i.exec(value);
  if (!host) return value;
  for (const tld of RESERVED_TLDS) {
    const candidate = `${host[1]}${tld}${value.slice(host[0].length)}`;
    if (pattern.test(candidate)) return candidate;
  }
  return value;
}

/**
 * Addresses for the `uri` and `url` formats: https, a host under `.invalid`, up to three path segments. Not
 * `fc.webUrl()`: it builds the reverse mapping of every percent-encodable character when first used, a noticeable
 * part of each run of the runner.
 */
const URL_SEGMENT = fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789-_'), minLength: 1, maxLength: 12 });
const WEB_URL = fc.tuple(INVALID_DOMAIN, fc.array(URL_SEGMENT, { maxLength: 3 })).map(([domain, segments]) => `https://${domain}/${segments.join('/')}`);

/** Addresses for the `email` format: fast-check's, at a domain under `.invalid`. */
const EMAIL = fc.emailAddress().map((address) => address.replace(/\.[^.@]+$/, '.invalid'));

/** Strings of a string schema: typical ones, and the boundary lengths. */
function stringArbitrary(schema: Schema): fc.Arbitrary<string> {
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : undefined;
  const format = typeof schema.format === 'string' ? schema.format : undefined;
  if (format === 'date-time') return fc.date({ min: new Date('2000-01-01'), max: new Date('2099-12-31'), noInvalidDate: true }).map((date) => date.toISOString());
  if (format === 'date') return fc.date({ min: new Date('2000-01-01'), max: new Date('2099-12-31'), noInvalidDate: true }).map((date) => date.toISOString().slice(0, 10));
  if (format === 'uri' || format === 'url') return WEB_URL;
  if (format === 'email') return EMAIL;
  if (format === 'uuid') return fc.uuid();
  if (typeof schema.pattern === 'string') {
    let pattern: RegExp | undefined;
    try {
      pattern = new RegExp(schema.pattern, 'u');
    } catch {
      pattern = undefined;
    }
    if (pattern) {
      const matching = pattern;
      return fc
        .stringMatching(matching)
        .map((value) => withReservedHost(value, matching))
        .filter((value) => value.length >= min && (max === undefined || value.length <= max));
    }
  }
  const typical = fc.string({ minLength: min, maxLength: Math.max(min, Math.min(max ?? TYPICAL_LENGTH, TYPICAL_LENGTH)) });
  const boundaries = [...new Set([min, ...(max !== undefined ? [max] : [])])].filter((length) => length > 0 || min === 0);
  return fc.oneof({ arbitrary: typical, weight: 3 }, { arbitrary: fc.constantFrom(...boundaries.map((length) => 'x'.repeat(length))), weight: 1 });
}

function numberArbitrary(schema: Schema, integer: boolean): fc.Arbitrary<number> {
  const exclusiveMin = typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum : undefined;
  const exclusiveMax = typeof schema.exclusiveMaximum === 'number' ? schema.exclusiveMaximum : undefined;
  const step = integer ? 1 : Number.EPSILON;
  const min = typeof schema.minimum === 'number' ? schema.minimum : exclusiveMin !== undefined ? exclusiveMin + step : integer ? -1000 : -1e6;
  const max = typeof schema.maximum === 'number' ? schema.maximum : exclusiveMax !== undefined ? exclusiveMax - step : integer ? 1000 : 1e6;
  const typical = integer ? fc.integer({ min, max }) : fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
  return fc.oneof({ arbitrary: typical, weight: 2 }, { arbitrary: fc.constantFrom(min, max), weight: 1 });
}

/** Valid values of a schema (boundary values included), for a field called `name`. */
export function arbitraryOf(contract: Contract, raw: Schema, options: GenerateOptions = {}, name?: string, depth = 0): fc.Arbitrary<unknown> {
  const schema = flatten(contract, raw);
  if (depth > MAX_DEPTH) return fc.constant(typeOf(schema) === 'object' ? {} : typeOf(schema) === 'array' ? [] : null);
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return fc.constantFrom(...(schema.enum as unknown[]));
  const branches = [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].filter((branch) => flatten(contract, branch).type !== 'null');
  if (branches.length > 0 && !schema.properties) {
    return fc.oneof(...branches.map((branch) => arbitraryOf(contract, branch, options, name, depth + 1)));
  }
  switch (typeOf(schema)) {
    case 'string': {
      const ids = idCandidates(options.ids, name);
      return ids ? fc.constantFrom(...ids) : stringArbitrary(schema);
    }
    case 'integer':
      return numberArbitrary(schema, true);
    case 'number':
      return numberArbitrary(schema, false);
    case 'boolean':
      return fc.boolean();
    case 'array': {
      const items = (schema.items as Schema | undefined) ?? {};
      const min = typeof schema.minItems === 'number' ? schema.minItems : 0;
      const max = typeof schema.maxItems === 'number' ? schema.maxItems : undefined;
      const singular = name?.replace(/s$/, '');
      const item = arbitraryOf(contract, items, options, singular, depth + 1);
      const typical = fc.array(item, { minLength: min, maxLength: Math.max(min, Math.min(max ?? TYPICAL_ITEMS, TYPICAL_ITEMS)) });
      if (max === undefined || max > MAX_BOUNDARY_ITEMS || max <= TYPICAL_ITEMS) return typical;
      return fc.oneof({ arbitrary: typical, weight: 3 }, { arbitrary: fc.array(item, { minLength: max, maxLength: max }), weight: 1 });
    }
    case 'object':
    case undefined: {
      if (!schema.properties && !schema.allOf) {
        const values = schema.additionalProperties ?? schema.unevaluatedProperties;
        if (values && typeof values === 'object' && !('not' in values)) {
          const maxKeys = typeof schema.maxProperties === 'number' ? Math.min(schema.maxProperties as number, TYPICAL_ITEMS) : TYPICAL_ITEMS;
          return fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), arbitraryOf(contract, values as Schema, options, undefined, depth + 1), { maxKeys });
        }
        return fc.constant({});
      }
      return objectArbitrary(contract, schema, options, depth);
    }
    default:
      return fc.constant(null);
  }
}

/** The writable properties of an object schema (read-only ones left out). */
export function writableProperties(contract: Contract, raw: Schema): { properties: Record<string, Schema>; required: string[] } {
  const shape = objectShape(contract, flatten(contract, raw));
  const properties: Record<string, Schema> = {};
  for (const [name, property] of Object.entries(shape.properties)) {
    if (property.readOnly === true || flatten(contract, property).readOnly === true) continue;
    properties[name] = property;
  }
  return { properties, required: shape.required.filter((name) => name in properties) };
}

function objectArbitrary(contract: Contract, schema: Schema, options: GenerateOptions, depth: number, also: string[] = []): fc.Arbitrary<Record<string, unknown>> {
  const { properties, required: own } = writableProperties(contract, schema);
  const required = [...new Set([...own, ...also.filter((name) => name in properties)])];
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, property] of Object.entries(properties)) model[name] = arbitraryOf(contract, property, options, name, depth + 1);
  return fc.record(model, { requiredKeys: required }) as fc.Arbitrary<Record<string, unknown>>;
}

/** A value that breaks one rule of a schema, and the rule. */
export interface InvalidValue {
  value: unknown;
  rule: string;
}

/** Strings that are not text the API takes: a NUL anywhere, and in a JSON body an unpaired surrogate too. */
export function invalidText(where: 'path' | 'query' | 'body'): InvalidValue[] {
  const values = [{ value: 'docs\u0000conformance', rule: 'holding the character U+0000 (NUL)' }];
  // A URL carries UTF-8 only: half a surrogate pair cannot be percent-encoded.
  if (where === 'body') values.push({ value: 'docs\ud800conformance', rule: 'holding an unpaired surrogate' });
  return values;
}

/** The spellings of a number that are not an integer a client may send in a query: each must be refused. */
export const NON_INTEGER_SPELLINGS = ['Infinity', '-Infinity', '1e400', '0x10', '1.5', '', 'abc'];

/** Values breaking one rule of the schema each: its limits just passed, the wrong type, a value outside the enum. */
export function invalidValuesOf(contract: Contract, raw: Schema, where: 'query' | 'body'): InvalidValue[] {
  const schema = flatten(contract, raw);
  const values: InvalidValue[] = [];
  if (Array.isArray(schema.enum)) values.push({ value: 'docs-conformance-not-in-enum', rule: 'a value outside its enum' });
  switch (typeOf(schema)) {
    case 'string':
      if (typeof schema.maxLength === 'number') values.push({ value: 'x'.repeat(schema.maxLength + 1), rule: `longer than its maxLength ${schema.maxLength}` });
      if (typeof schema.minLength === 'number' && schema.minLength > 0) values.push({ value: 'x'.repeat(schema.minLength - 1), rule: `shorter than its minLength ${schema.minLength}` });
      if (where === 'body') values.push({ value: 12345, rule: 'a number instead of a string' });
      // Text is whole Unicode characters without U+0000 (the contract's rule for every string a request carries):
      // PostgreSQL cannot store a NUL, and no engine stores an unpaired surrogate as sent.
      values.push(...invalidText(where));
      break;
    case 'integer':
    case 'number':
      if (typeof schema.minimum === 'number') values.push({ value: schema.minimum - 1, rule: `below its minimum ${schema.minimum}` });
      if (typeof schema.maximum === 'number') values.push({ value: schema.maximum + 1, rule: `above its maximum ${schema.maximum}` });
      if (where === 'query') {
        for (const spelling of NON_INTEGER_SPELLINGS) {
          if (typeOf(schema) === 'number' && /^(1\.5)$/.test(spelling)) continue;
          values.push({ value: spelling, rule: `spelt ${JSON.stringify(spelling)}` });
        }
        if (typeof schema.minimum === 'number' && schema.minimum > 0) values.push({ value: '-0', rule: 'spelt "-0", below its minimum' });
      } else {
        values.push({ value: 'docs-conformance', rule: 'a string instead of a number' });
        if (typeOf(schema) === 'integer') values.push({ value: 1.5, rule: 'not an integer' });
      }
      break;
    case 'boolean':
      values.push({ value: where === 'query' ? 'maybe' : 'true', rule: 'not a boolean' });
      break;
    case 'array':
      if (typeof schema.maxItems === 'number' && schema.maxItems <= 10_000) {
        const item = schema.items ? fc.sample(arbitraryOf(contract, schema.items as Schema), { numRuns: 1, seed: 1 })[0] : 'x';
        values.push({ value: Array.from({ length: schema.maxItems + 1 }, () => item), rule: `more than its maxItems ${schema.maxItems}` });
      }
      if (where === 'body') values.push({ value: 'docs-conformance', rule: 'a string instead of an array' });
      break;
    case 'object':
      if (where === 'body') values.push({ value: 'docs-conformance', rule: 'a string instead of an object' });
      break;
  }
  return values;
}

/** The plainest form of a request: its path parameters, and only the required query parameters and body fields. */
export function minimal(contract: Contract, operation: Operation, request: GeneratedRequest): GeneratedRequest {
  const required = new Set(operation.parameters.filter((parameter) => parameter.in === 'query' && parameter.required).map((parameter) => parameter.name));
  const query = Object.fromEntries(Object.entries(request.query).filter(([name]) => required.has(name)));
  let body = request.body;
  if (operation.body && typeof body === 'object' && body !== null && !Array.isArray(body)) {
    const keep = new Set(writableProperties(contract, operation.body.schema).required);
    body = Object.fromEntries(Object.entries(body).filter(([name]) => keep.has(name)));
  }
  return { ...request, query, ...(body !== undefined ? { body } : {}) };
}

/** Every invalid request of an operation: one rule broken at a time, on top of a valid request. */
export function invalidVariants(contract: Contract, operation: Operation): { where: string; rule: string; apply: (valid: GeneratedRequest) => GeneratedRequest }[] {
  const variants: { where: string; rule: string; apply: (valid: GeneratedRequest) => GeneratedRequest }[] = [];
  for (const parameter of operation.parameters) {
    if (parameter.in !== 'path' || !parameter.schema) continue;
    const schema = flatten(contract, parameter.schema);
    const where = `path.${parameter.name}`;
    if (typeof schema.maxLength === 'number') {
      const rule = `longer than its maxLength ${schema.maxLength}`;
      variants.push({ where, rule, apply: (valid) => ({ ...valid, path: { ...valid.path, [parameter.name]: 'x'.repeat((schema.maxLength as number) + 1) }, invalid: { where, rule } }) });
    }
    if (typeOf(schema) !== 'string') continue;
    for (const { value, rule } of invalidText('path')) {
      variants.push({ where, rule, apply: (valid) => ({ ...valid, path: { ...valid.path, [parameter.name]: value as string }, invalid: { where, rule } }) });
    }
  }
  for (const parameter of operation.parameters) {
    if (parameter.in !== 'query' || !parameter.schema) continue;
    for (const invalid of invalidValuesOf(contract, parameter.schema, 'query')) {
      const where = `query.${parameter.name}`;
      variants.push({ where, rule: invalid.rule, apply: (valid) => ({ ...valid, query: { ...valid.query, [parameter.name]: invalid.value }, invalid: { where, rule: invalid.rule } }) });
    }
  }
  if (operation.body) {
    const shape = objectShape(contract, flatten(contract, operation.body.schema));
    if (shape.sealed) {
      const where = `body.${UNKNOWN_PROPERTY}`;
      variants.push({ where, rule: 'an unknown property', apply: (valid) => ({ ...valid, body: { ...asObject(valid.body), [UNKNOWN_PROPERTY]: true }, invalid: { where, rule: 'an unknown property' } }) });
    }
    const { properties, required } = writableProperties(contract, operation.body.schema);
    for (const name of required) {
      const where = `body.${name}`;
      variants.push({
        where,
        rule: 'missing though required',
        apply: (valid) => {
          const { [name]: _left, ...rest } = asObject(valid.body);
          return { ...valid, body: rest, invalid: { where, rule: 'missing though required' } };
        },
      });
    }
    for (const [name, property] of Object.entries(properties)) {
      for (const invalid of invalidValuesOf(contract, property, 'body')) {
        const where = `body.${name}`;
        variants.push({ where, rule: invalid.rule, apply: (valid) => ({ ...valid, body: { ...asObject(valid.body), [name]: invalid.value }, invalid: { where, rule: invalid.rule } }) });
      }
    }
  }
  return variants;
}

const asObject = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

/** Valid requests of an operation: path parameters from `paths` (real ids), query and body from the schemas. */
export function requestArbitrary(contract: Contract, operation: Operation, paths: Record<string, string>[], options: GenerateOptions): fc.Arbitrary<GeneratedRequest> {
  const query: Record<string, fc.Arbitrary<unknown>> = {};
  const requiredQuery: string[] = [];
  for (const parameter of operation.parameters) {
    if (parameter.in !== 'query') continue;
    query[parameter.name] = parameter.schema ? queryValue(contract, parameter, options) : fc.constant('x');
    if (parameter.required) requiredQuery.push(parameter.name);
  }
  const body = operation.body
    ? operation.body.required || options.require
      ? options.require
        ? objectArbitrary(contract, flatten(contract, operation.body.schema), options, 0, options.require)
        : arbitraryOf(contract, operation.body.schema, options)
      : fc.option(arbitraryOf(contract, operation.body.schema, options), { nil: undefined, freq: 4 })
    : fc.constant(undefined);
  return fc
    .record({
      path: paths.length > 0 ? fc.constantFrom(...paths) : fc.constant({}),
      query: fc.record(query, { requiredKeys: requiredQuery }),
      body,
    })
    .map(({ path, query: q, body: b }) => ({ path, query: q as Record<string, unknown>, ...(b !== undefined ? { body: b } : {}) }));
}

function queryValue(contract: Contract, parameter: Parameter, options: GenerateOptions): fc.Arbitrary<unknown> {
  const schema = flatten(contract, parameter.schema!);
  // A page cursor is only meaningful as a server gave it: the pagination check follows real ones.
  if (parameter.name === 'page' && typeOf(schema) === 'string') return fc.constant(undefined);
  // An empty query value is not a value (OpenAPI's allowEmptyValue is false by default).
  if (typeOf(schema) === 'string' && !(typeof schema.minLength === 'number' && schema.minLength > 0)) {
    return arbitraryOf(contract, { ...schema, minLength: 1 }, options, parameter.name);
  }
  return arbitraryOf(contract, schema, options, parameter.name);
}
