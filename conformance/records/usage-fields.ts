// What a request or an answer used of the contract, as a usage record keeps it (usage-format.ts): the fields of a JSON
// value as pointers (`*` for every item of an array and every key of a map), with the values of enumerated ones.
import { at, type Contract, declaredResponse, type Operation, pointerSegment, type Schema } from '../contract/contract.ts';
import { type Facts, mergeFacts, type OperationUsage, type Promised, type ResponseUsage, emptyOperationUsage, isObject } from './usage-format.ts';

type Scalar = string | number | boolean;
/** The fields of a value: each pointer, with the values seen where the schema declares an enum. */
export type Fields = Map<string, Scalar[] | undefined>;


/** The schemas `schema` stands for at this place: itself and what its allOf, oneOf and anyOf hold, references followed. */
export function alternatives(contract: Contract, schema: Schema | undefined, seen = new Set<Schema>(), names?: Set<string>): Schema[] {
  if (!schema) return [];
  const component = typeof schema.$ref === 'string' ? COMPONENT.exec(schema.$ref)?.[1] : undefined;
  if (component) names?.add(component.replace(/~1/g, '/').replace(/~0/g, '~'));
  const resolved = contract.resolve(schema);
  if (seen.has(resolved)) return [];
  seen.add(resolved);
  return [resolved, ...[...(resolved.allOf ?? []), ...(resolved.oneOf ?? []), ...(resolved.anyOf ?? [])].flatMap((part) => alternatives(contract, part, seen, names))];
}

const COMPONENT = /^#\/components\/schemas\/([^/]+)$/;

const declaresEnum = (schemas: Schema[]) => schemas.some((schema) => Array.isArray(schema.enum) || 'const' in schema);

/** Where the contract's component schemas are in a value: pointer → the components declared there. */
export type Components = Map<string, Set<string>>;

/** The JSON type of a value: `integer` for a whole number. */
export function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** The facts of one value (usage-format.ts, `Facts`): its type, its length, number or size; never the value. */
export function factsOfValue(value: unknown): Facts {
  const type = jsonType(value);
  if (typeof value === 'string') return { types: [type], lengths: [value.length, value.length] };
  if (typeof value === 'number') return { types: [type], numbers: [value, value] };
  if (Array.isArray(value)) return { types: [type], sizes: [value.length, value.length] };
  return { types: [type] };
}

/** Adds the facts of `value` to what `facts` holds at `pointer`. */
function addFacts(facts: Map<string, Facts>, pointer: string, value: unknown): void {
  const current = facts.get(pointer);
  if (current) mergeFacts(current, factsOfValue(value));
  else facts.set(pointer, factsOfValue(value));
}

/** Adds the fields of `value`, under `pointer`, read against `schema`, to `fields` (the components met, to `components`; each field's facts, to `facts`). */
export function fieldsOf(contract: Contract, value: unknown, schema: Schema | undefined, fields: Fields = new Map(), pointer = '', components: Components = new Map(), facts?: Map<string, Facts>): Fields {
  const shape = shapeOf(contract, schema);
  if (facts && value !== undefined) addFacts(facts, pointer, value);
  if (shape.components.length > 0) {
    const met = components.get(pointer);
    if (met) for (const name of shape.components) met.add(name);
    else components.set(pointer, new Set(shape.components));
  }
  if (pointer !== '') {
    const values = fields.get(pointer);
    const scalar = typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
    fields.set(pointer, scalar && shape.enumerated ? [...new Set([...(values ?? []), value])] : values);
  }
  if (Array.isArray(value)) {
    const items = shape.items();
    for (const item of value) fieldsOf(contract, item, items, fields, `${pointer}/*`, components, facts);
  } else if (isObject(value)) {
    for (const [key, item] of Object.entries(value)) {
      const place = shape.field(key);
      fieldsOf(contract, item, place.schema, fields, `${pointer}/${place.segment}`, components, facts);
    }
  }
  return fields;
}

/** Where a field is below a place: its pointer segment, the schema declared for it, and whether it is declared by name. */
export interface FieldPlace {
  segment: string;
  schema: Schema | undefined;
  declared: boolean;
}

/**
 * What the contract declares at a place whose schema is `schema`, worked out once per schema: its alternatives, the
 * components they name, whether it is an enumeration, the schema of an array's items, and where each field of an
 * object is (a key of a map, additionalProperties, which is any key, is `*`). The schemas it gives its items and
 * fields are the same objects each time, so that what is below them is worked out once too.
 */
export interface Shape {
  schemas: Schema[];
  components: string[];
  enumerated: boolean;
  items(): Schema | undefined;
  field(key: string): FieldPlace;
}

const shapes = new WeakMap<Contract, WeakMap<Schema, Shape>>();

export function shapeOf(contract: Contract, schema: Schema | undefined): Shape {
  const known = schema && shapes.get(contract)?.get(schema);
  if (known) return known;
  const names = new Set<string>();
  const schemas = alternatives(contract, schema, new Set(), names);
  let items: Schema | undefined | null = null;
  let map: FieldPlace | undefined | null = null;
  const declared = new Map<string, FieldPlace>();
  const shape: Shape = {
    schemas,
    components: [...names],
    enumerated: declaresEnum(schemas),
    items() {
      if (items === null) {
        const declaredItems = schemas.flatMap((each) => (each.items ? [each.items as Schema] : []));
        items = declaredItems[0] ? { anyOf: declaredItems } : undefined;
      }
      return items;
    },
    field(key) {
      const place = declared.get(key);
      if (place) return place;
      const found = schemas.flatMap((each) => (each.properties && Object.hasOwn(each.properties, key) ? [each.properties[key]!] : []));
      if (found.length > 0) {
        const named = { segment: pointerSegment(key), schema: { anyOf: found }, declared: true };
        declared.set(key, named);
        return named;
      }
      if (map === null) {
        const maps = schemas.flatMap((each) => (isObject(each.additionalProperties) ? [each.additionalProperties as Schema] : []));
        map = maps.length > 0 ? { segment: '*', schema: { anyOf: maps }, declared: false } : undefined;
      }
      return map ?? { segment: pointerSegment(key), schema: undefined, declared: false };
    },
  };
  if (schema) {
    let byContract = shapes.get(contract);
    if (!byContract) shapes.set(contract, (byContract = new WeakMap()));
    byContract.set(schema, shape);
  }
  return shape;
}

// ---- what the contract declares at a place ----------------------------------------------------------------------

const unescapeSegment = (segment: string) => segment.replace(/~1/g, '/').replace(/~0/g, '~');

/** The schemas declared at `pointer` (`/items/*\/title`) below `schema`, alternatives followed; empty when there is no such field. */
export function schemasAt(contract: Contract, schema: Schema | undefined, pointer: string): Schema[] {
  let here: Schema[] = schema ? [schema] : [];
  for (const segment of pointer.split('/').slice(1).map(unescapeSegment)) {
    const next: Schema[] = [];
    for (const each of here.flatMap((one) => alternatives(contract, one))) {
      if (segment === '*') {
        if (each.items) next.push(each.items as Schema);
        if (isObject(each.additionalProperties)) next.push(each.additionalProperties as Schema);
      } else if (each.properties && Object.hasOwn(each.properties, segment)) next.push(each.properties[segment]!);
      else if (isObject(each.additionalProperties)) next.push(each.additionalProperties as Schema);
    }
    here = next;
    if (here.length === 0) return [];
  }
  return here;
}

/** Whether `schema` requires `key`: itself, a member of its allOf, or every alternative of its oneOf or its anyOf. */
export function requires(contract: Contract, schema: Schema | undefined, key: string, seen = new Set<Schema>()): boolean {
  if (!schema) return false;
  const resolved = contract.resolve(schema);
  if (seen.has(resolved)) return false;
  seen.add(resolved);
  if (resolved.required?.includes(key)) return true;
  if ((resolved.allOf ?? []).some((member) => requires(contract, member, key, seen))) return true;
  for (const choice of [resolved.oneOf, resolved.anyOf]) if (choice && choice.length > 0 && choice.every((member) => requires(contract, member, key, new Set(seen)))) return true;
  return false;
}

/**
 * Whether every object holding the field at `pointer` below `schema` holds it: every schema of its parent, each
 * alternative of it, requires it (an array's item, a map's value: always, where there is one).
 */
export function requiredInParent(contract: Contract, schema: Schema | undefined, pointer: string): boolean {
  const last = pointer.lastIndexOf('/');
  if (last < 0) return true;
  const key = unescapeSegment(pointer.slice(last + 1));
  if (key === '*') return true;
  const parents = schemasAt(contract, schema, pointer.slice(0, last));
  return parents.length > 0 && parents.every((parent) => requires(contract, parent, key));
}

/** The JSON types the schemas at a place allow (`integer` within `number`); undefined when one of them allows any. */
export function declaredTypes(contract: Contract, schemas: Schema[]): string[] | undefined {
  const types = new Set<string>();
  for (const top of schemas) {
    const all = alternatives(contract, top);
    const typed = all.filter((each) => each.type !== undefined || Array.isArray(each.enum) || 'const' in each);
    if (typed.length === 0) return undefined;
    for (const each of typed) {
      if (Array.isArray(each.type)) for (const type of each.type) types.add(type);
      else if (typeof each.type === 'string') types.add(each.type);
      else for (const value of Array.isArray(each.enum) ? each.enum : [each.const]) types.add(jsonType(value));
      if (each.nullable === true) types.add('null');
    }
  }
  return [...types].sort();
}

/** Whether a value of JSON type `type` is one of `types` (an `integer` is a `number`). */
export const typeAllowed = (types: readonly string[], type: string) => types.includes(type) || (type === 'integer' && types.includes('number'));

/** What the contract promises of a received field at `pointer` below the answer's `schema` (usage-format.ts, `Promised`). */
export function promiseAt(contract: Contract, schema: Schema | undefined, pointer: string): Promised {
  const schemas = schemasAt(contract, schema, pointer);
  const all = schemas.flatMap((each) => alternatives(contract, each));
  const promise: Promised = {};
  if (requiredInParent(contract, schema, pointer)) promise.required = true;
  const types = declaredTypes(contract, schemas);
  if (types) promise.types = types;
  const one = <K extends 'format' | 'minimum' | 'maximum' | 'maxLength'>(key: K) => {
    const found = all.map((each) => each[key]).filter((value) => value !== undefined);
    return found.length > 0 && found.length === all.filter((each) => each.type !== undefined).length && new Set(found).size === 1 ? (found[0] as Promised[K]) : undefined;
  };
  for (const key of ['format', 'minimum', 'maximum', 'maxLength'] as const) {
    const value = one(key);
    if (value !== undefined) (promise as Record<string, unknown>)[key] = value;
  }
  return promise;
}

// ---- how a request authenticated ---------------------------------------------------------------------------------

type SecurityRequirement = Record<string, string[]>;

/** The security requirements of an operation: its own, else the document's. */
export function securityOf(contract: Contract, operation: Operation): SecurityRequirement[] {
  const own = (at(contract.document, operation.pointer) as { security?: SecurityRequirement[] } | undefined)?.security;
  return own ?? (contract.document.security as SecurityRequirement[] | undefined) ?? [];
}

/** The request as the security schemes see it: its headers (names in lower case), its query and its cookies. */
export interface Credentials {
  headers: Record<string, string | string[] | undefined>;
  query?: URLSearchParams;
}

/**
 * The security schemes (of those the operation's requirements name) whose credentials `request` carried: an HTTP
 * scheme's Authorization of its kind, an API key in its header, query or cookie. A credential's value is not kept.
 */
export function authenticatedBy(contract: Contract, operation: Operation, request: Credentials): string[] {
  const schemes = (contract.document.components as { securitySchemes?: Record<string, Record<string, unknown>> } | undefined)?.securitySchemes ?? {};
  const header = (name: string) => {
    const value = request.headers[name.toLowerCase()];
    return Array.isArray(value) ? value[0] : value;
  };
  const used = new Set<string>();
  for (const name of new Set(securityOf(contract, operation).flatMap((requirement) => Object.keys(requirement)))) {
    const scheme = contract.resolve(schemes[name]);
    if (!scheme) continue;
    const authorization = header('authorization');
    if (scheme.type === 'http') {
      if (authorization?.toLowerCase().startsWith(`${String(scheme.scheme).toLowerCase()} `)) used.add(name);
    } else if (scheme.type === 'oauth2' || scheme.type === 'openIdConnect') {
      if (authorization?.toLowerCase().startsWith('bearer ')) used.add(name);
    } else if (scheme.type === 'apiKey') {
      const key = String(scheme.name);
      const carried =
        scheme.in === 'header' ? header(key) !== undefined : scheme.in === 'query' ? request.query?.has(key) : new RegExp(`(^|;\\s*)${key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}=`).test(header('cookie') ?? '');
      if (carried) used.add(name);
    }
  }
  return [...used].sort();
}

/** One exchange as a recorder sees it: what was sent, and what came back. */
export interface Exchange {
  operation: Operation;
  /** Parameters sent, by place and name (a header's name in lower case). */
  parameters: { in: 'path' | 'query' | 'header' | 'cookie'; name: string; value: unknown }[];
  /** The request's media type and parsed JSON body, when it had one. */
  request?: { mediaType: string; body: unknown };
  status: number;
  /** The answer's media type (without parameters) and parsed JSON body, when it had one. */
  response?: { mediaType: string; body: unknown };
  /** The security schemes whose credentials the request carried (`authenticatedBy`); unknown when not given. */
  security?: string[];
  /** The names of the answer's headers, lower case. */
  responseHeaders?: string[];
  /** A request the contract refused: what it sent is not recorded, nor the defaults it would have relied on, nor its credentials. */
  refused?: boolean;
}

const sorted = (values: Scalar[] | undefined) => values && [...values].sort((a, b) => String(a).localeCompare(String(b)));

/** The response schema the contract declares for `status` and `mediaType` (the status, its class `4XX`, or `default`). */
export function responseSchema(contract: Contract, operation: Operation, status: number, mediaType: string): Schema | undefined {
  const declared = declaredResponse(operation, status)?.response;
  if (!declared) return undefined;
  const response = contract.resolve(at(contract.document, declared.pointer)) as { content?: Record<string, { schema?: Schema }> };
  return response.content?.[mediaType]?.schema;
}

/** The usage of one exchange, to merge into a record (usage-format.ts, `mergeOperationUsage`). */
export function usageOf(contract: Contract, exchange: Exchange): OperationUsage {
  const usage = emptyOperationUsage();
  usage.calls = 1;
  usage.method = exchange.operation.method;
  usage.path = exchange.operation.path;
  if (exchange.security && !exchange.refused) usage.security = [...exchange.security].sort();
  for (const parameter of exchange.parameters) {
    const declared = exchange.operation.parameters.find((each) => each.in === parameter.in && each.name.toLowerCase() === parameter.name.toLowerCase());
    const key = `${parameter.in}.${declared?.name ?? parameter.name}`;
    const schemas = alternatives(contract, declared?.schema);
    const sent = Array.isArray(parameter.value) ? parameter.value : [parameter.value];
    const values = sent.filter((value): value is Scalar => ['string', 'number', 'boolean'].includes(typeof value));
    const used: OperationUsage['parameters'][string] = declaresEnum(schemas) || schemas.some((schema) => declaresEnum(alternatives(contract, schema.items as Schema | undefined))) ? { values: sorted([...new Set(values)]) } : {};
    // A parameter's facts are of the value the contract's schema reads from the text sent (a number for an integer).
    for (const value of sent) mergeFacts(used, factsOfValue(parameterValue(contract, declared?.schema, value)));
    usage.parameters[key] = used;
  }
  for (const declared of exchange.refused ? [] : exchange.operation.parameters) {
    if (exchange.parameters.some((each) => each.in === declared.in && each.name.toLowerCase() === declared.name.toLowerCase())) continue;
    const fallback = alternatives(contract, declared.schema).find((schema) => 'default' in schema)?.default;
    if (fallback !== undefined) (usage.defaults ??= {})[`${declared.in}.${declared.name}`] = fallback;
  }
  const listed = (components: Components) => Object.fromEntries([...components].map(([pointer, names]) => [pointer, [...names].sort()]));
  if (exchange.request) {
    usage.mediaTypes = [exchange.request.mediaType];
    const components: Components = new Map();
    const facts = new Map<string, Facts>();
    for (const [pointer, values] of fieldsOf(contract, exchange.request.body, exchange.operation.body?.schema, new Map(), '', components, facts)) usage.body[pointer] = { ...(values ? { values: sorted(values) } : {}), ...facts.get(pointer) };
    if (components.size > 0) usage.bodySchemas = listed(components);
  }
  const key = exchange.response ? `${exchange.status} ${exchange.response.mediaType}` : String(exchange.status);
  const answered: ResponseUsage = { present: [] };
  if (exchange.response) {
    const components: Components = new Map();
    const facts = new Map<string, Facts>();
    const schema = responseSchema(contract, exchange.operation, exchange.status, exchange.response.mediaType);
    const fields = fieldsOf(contract, exchange.response.body, schema, new Map(), '', components, facts);
    answered.present = [...fields.keys()].sort();
    if (answered.present.length > 0) {
      answered.facts = Object.fromEntries(answered.present.flatMap((pointer) => (facts.has(pointer) ? [[pointer, facts.get(pointer)!]] : [])));
      answered.promised = Object.fromEntries(answered.present.map((pointer) => [pointer, promiseAt(contract, schema, pointer)]));
    }
    if (components.size > 0) answered.schemas = listed(components);
    const values = Object.fromEntries([...fields].flatMap(([pointer, seen]) => (seen ? [[pointer, sorted(seen)!]] : [])));
    if (Object.keys(values).length > 0) answered.values = values;
  }
  const declaredHeaders = declaredResponse(exchange.operation, exchange.status)?.response.headers ?? {};
  const headers = (exchange.responseHeaders ?? []).map((name) => name.toLowerCase()).filter((name) => name in declaredHeaders).sort();
  if (headers.length > 0) answered.headers = headers;
  const requiredHeaders = headers.filter((name) => declaredHeaders[name]!.required === true);
  if (requiredHeaders.length > 0) answered.requiredHeaders = requiredHeaders;
  usage.responses[key] = answered;
  return usage;
}

/** A parameter's text as its schema reads it: a number where it declares a number or an integer, else the text. */
function parameterValue(contract: Contract, schema: Schema | undefined, value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const types = declaredTypes(contract, schema ? [schema] : []) ?? [];
  if ((types.includes('integer') || types.includes('number')) && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  if (types.includes('boolean') && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

const JSON_MEDIA = /^application\/(.+\+)?json$/;
const mediaTypeOf = (contentType: string | undefined) => contentType?.split(';')[0]!.trim().toLowerCase() || undefined;
/** A JSON body as sent (undefined when it is not JSON, or not whole: the usage keeps its media type only). */
function jsonBody(contentType: string | undefined, text: string | undefined): { mediaType: string; body: unknown } | undefined {
  const mediaType = mediaTypeOf(contentType);
  if (!mediaType || text === undefined || text === '') return undefined;
  if (!JSON_MEDIA.test(mediaType)) return { mediaType, body: undefined };
  try {
    return { mediaType, body: JSON.parse(text) as unknown };
  } catch {
    return { mediaType, body: undefined };
  }
}

/** An exchange as HTTP carried it: the operation and path parameters matched, the request's query and headers, the bodies' texts. */
export function httpExchange(
  contract: Contract,
  operation: Operation,
  pathParams: Record<string, string>,
  request: { search: string; headers: Record<string, string | string[] | undefined>; contentType?: string; text?: string },
  status: number,
  response: { contentType?: string; text?: string; headers?: Record<string, unknown> },
): Exchange {
  const parameters: Exchange['parameters'] = Object.entries(pathParams).map(([name, value]) => ({ in: 'path', name, value }));
  const query = new URLSearchParams(request.search);
  for (const name of new Set(query.keys())) parameters.push({ in: 'query', name, value: query.getAll(name) });
  for (const declared of operation.parameters) {
    const value = declared.in === 'header' ? request.headers[declared.name.toLowerCase()] : undefined;
    if (value !== undefined) parameters.push({ in: 'header', name: declared.name, value });
  }
  const sent = jsonBody(request.contentType, request.text);
  const answered = jsonBody(response.contentType, response.text);
  const security = authenticatedBy(contract, operation, { headers: request.headers, query });
  return { operation, parameters, ...(sent ? { request: sent } : {}), status, ...(answered ? { response: answered } : {}), security, ...(response.headers ? { responseHeaders: Object.keys(response.headers) } : {}) };
}
