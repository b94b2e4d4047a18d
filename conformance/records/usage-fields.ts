// What a request or an answer used of the contract, as a usage record keeps it (usage-format.ts): the fields of a JSON
// value as pointers (`*` for every item of an array and every key of a map), with the values of enumerated ones.
import { at, type Contract, declaredResponse, type Operation, pointerSegment, type Schema } from '../contract/contract.ts';
import { type Facts, mergeFacts, type OperationUsage, type Promised, type ResponseUsage, emptyOperationUsage, isObject } from './usage-format.ts';

type Scalar = string | number | boolean;
/** The fields of a value: each pointer, with the values seen where the schema declares an enum. */
export type Fields = Map<string, Scalar[] | undefined>;


/**
 * The schemas `schema` stands for at this place: itself and what its allOf, oneOf and anyOf hold, references followed.
 * With `of`, a value there: of a oneOf or anyOf, only the members the value can be (`membersFor`), the names of all
 * its named members added to `of.choices`.
 */
export function alternatives(contract: Contract, schema: Schema | undefined, seen = new Set<Schema>(), names?: Set<string>, of?: { value: unknown; choices: Set<string> }): Schema[] {
  if (!schema) return [];
  const component = componentName(schema);
  if (component) names?.add(component);
  const resolved = contract.resolve(schema);
  if (seen.has(resolved)) return [];
  seen.add(resolved);
  // The schemas of one field or item merged from each alternative that declares it are no choice the contract made.
  const choice = MERGED.has(resolved) ? [] : [...(resolved.oneOf ?? []), ...(resolved.anyOf ?? [])];
  if (of) for (const member of choice) if (componentName(member)) of.choices.add(componentName(member)!);
  const members = of && choice.length > 0 ? membersFor(contract, resolved, choice, of.value) : choice;
  const merged = MERGED.has(resolved) ? (resolved.anyOf ?? []) : [];
  return [resolved, ...[...(resolved.allOf ?? []), ...merged, ...members].flatMap((part) => alternatives(contract, part, seen, names, of))];
}

/** The `anyOf`s a shape makes of the schemas each alternative declares for one field or for the items (`shapeFrom`). */
const MERGED = new WeakSet<Schema>();
const merged = (schemas: Schema[]): Schema => {
  const schema = { anyOf: schemas };
  MERGED.add(schema);
  return schema;
};

const COMPONENT = /^#\/components\/schemas\/([^/]+)$/;
const componentName = (schema: Schema) => (typeof schema.$ref === 'string' ? COMPONENT.exec(schema.$ref)?.[1]?.replace(/~1/g, '/').replace(/~0/g, '~') : undefined);

/**
 * The members of a oneOf or anyOf (`choice`, of `container`) that `value` can be: the one its discriminator's mapping
 * names, else those whose types, required fields and constant or enumerated fields it fits; all of them when it fits
 * none (what was received is then told by none, and every member is kept).
 */
function membersFor(contract: Contract, container: Schema, choice: Schema[], value: unknown): Schema[] {
  const discriminator = container.discriminator as { propertyName?: string; mapping?: Record<string, string> } | undefined;
  const tag = isObject(value) && discriminator?.propertyName ? value[discriminator.propertyName] : undefined;
  const mapped = typeof tag === 'string' ? discriminator?.mapping?.[tag] : undefined;
  const fitting = mapped ? choice.filter((member) => member.$ref === mapped) : choice.filter((member) => canBe(contract, member, value, 1));
  return fitting.length > 0 ? fitting : choice;
}

/** Whether `value` fits `schema` by its types, constants, enumerations, required fields and (`depth` levels down) fields. */
function canBe(contract: Contract, schema: Schema, value: unknown, depth: number, seen = new Set<Schema>()): boolean {
  const resolved = contract.resolve(schema);
  if (seen.has(resolved)) return true;
  seen.add(resolved);
  const types = resolved.type === undefined ? undefined : Array.isArray(resolved.type) ? resolved.type : [resolved.type];
  if (types && !typeAllowed(types, jsonType(value))) return false;
  const same = (other: unknown) => JSON.stringify(other) === JSON.stringify(value);
  if ('const' in resolved && !same(resolved.const)) return false;
  if (Array.isArray(resolved.enum) && !resolved.enum.some(same)) return false;
  if (isObject(value)) {
    if ((resolved.required ?? []).some((key) => !Object.hasOwn(value, key))) return false;
    const properties = resolved.properties ?? {};
    if (resolved.additionalProperties === false && Object.keys(value).some((key) => !Object.hasOwn(properties, key))) return false;
    if (depth > 0 && Object.entries(properties).some(([key, property]) => Object.hasOwn(value, key) && !canBe(contract, property, value[key], depth - 1))) return false;
  }
  return (resolved.allOf ?? []).every((part) => canBe(contract, part, value, depth, seen));
}

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

/**
 * Adds the fields of `value`, under `pointer`, read against `schema`, to `fields` (the components met, to `components`:
 * of a oneOf or anyOf, the members the value was; the named members it could have been, to `choices`; each field's
 * facts, to `facts`).
 */
export function fieldsOf(
  contract: Contract,
  value: unknown,
  schema: Schema | undefined,
  fields: Fields = new Map(),
  pointer = '',
  components: Components = new Map(),
  facts?: Map<string, Facts>,
  choices?: Components,
): Fields {
  const shape = shapeOf(contract, schema, value);
  if (facts && value !== undefined) addFacts(facts, pointer, value);
  const add = (into: Components, names: readonly string[]) => {
    const met = into.get(pointer);
    if (met) for (const name of names) met.add(name);
    else into.set(pointer, new Set(names));
  };
  if (shape.components.length > 0) add(components, shape.components);
  if (choices && shape.choices && shape.choices.length > 0) add(choices, shape.choices);
  if (pointer !== '') {
    const values = fields.get(pointer);
    const scalar = typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
    fields.set(pointer, scalar && shape.enumerated ? [...new Set([...(values ?? []), value])] : values);
  }
  if (Array.isArray(value)) {
    const items = shape.items();
    for (const item of value) fieldsOf(contract, item, items, fields, `${pointer}/*`, components, facts, choices);
  } else if (isObject(value)) {
    for (const [key, item] of Object.entries(value)) {
      const place = shape.field(key);
      fieldsOf(contract, item, place.schema, fields, `${pointer}/${place.segment}`, components, facts, choices);
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
  /** Where the place is a oneOf or anyOf and its value known: the names of all its named members. */
  choices?: string[];
  enumerated: boolean;
  items(): Schema | undefined;
  field(key: string): FieldPlace;
}

const shapes = new WeakMap<Contract, WeakMap<Schema, Shape>>();

/** Shapes narrowed to the members of a oneOf or anyOf a value was: by schema, then by the members kept. */
const narrowedShapes = new WeakMap<Contract, WeakMap<Schema, Map<string, Shape>>>();

/**
 * The shape at a place (`value`: what was there): where the place is a oneOf or anyOf, of the members the value can be
 * (`alternatives`), its `choices` every named member.
 */
export function shapeOf(contract: Contract, schema: Schema | undefined, value?: unknown): Shape {
  const whole = wholeShapeOf(contract, schema);
  if (value === undefined || !schema || !whole.schemas.some((each) => each.oneOf || each.anyOf)) return whole;
  const names = new Set<string>();
  const choices = new Set<string>();
  const schemas = alternatives(contract, schema, new Set(), names, { value, choices });
  if (schemas.length === whole.schemas.length) return whole.choices ? whole : Object.assign(whole, { choices: [...choices] });
  let byContract = narrowedShapes.get(contract);
  if (!byContract) narrowedShapes.set(contract, (byContract = new WeakMap()));
  let bySchema = byContract.get(schema);
  if (!bySchema) byContract.set(schema, (bySchema = new Map()));
  const key = schemas.map((each) => whole.schemas.indexOf(each)).join(',');
  let shape = bySchema.get(key);
  if (!shape) bySchema.set(key, (shape = { ...shapeFrom(schemas, names), choices: [...choices] }));
  return shape;
}

function wholeShapeOf(contract: Contract, schema: Schema | undefined): Shape {
  const known = schema && shapes.get(contract)?.get(schema);
  if (known) return known;
  const names = new Set<string>();
  const shape = shapeFrom(alternatives(contract, schema, new Set(), names), names);
  if (schema) {
    let byContract = shapes.get(contract);
    if (!byContract) shapes.set(contract, (byContract = new WeakMap()));
    byContract.set(schema, shape);
  }
  return shape;
}

function shapeFrom(schemas: Schema[], names: Set<string>): Shape {
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
        items = declaredItems[0] ? merged(declaredItems) : undefined;
      }
      return items;
    },
    field(key) {
      const place = declared.get(key);
      if (place) return place;
      const found = schemas.flatMap((each) => (each.properties && Object.hasOwn(each.properties, key) ? [each.properties[key]!] : []));
      if (found.length > 0) {
        const named = { segment: pointerSegment(key), schema: merged(found), declared: true };
        declared.set(key, named);
        return named;
      }
      if (map === null) {
        const maps = schemas.flatMap((each) => (isObject(each.additionalProperties) ? [each.additionalProperties as Schema] : []));
        map = maps.length > 0 ? { segment: '*', schema: merged(maps), declared: false } : undefined;
      }
      return map ?? { segment: pointerSegment(key), schema: undefined, declared: false };
    },
  };
  return shape;
}

// ---- what the contract declares at a place ----------------------------------------------------------------------

const unescapeSegment = (segment: string) => segment.replace(/~1/g, '/').replace(/~0/g, '~');

/** The schemas declared at `pointer` (`/items/*\/title`) below `schema`, alternatives followed; empty when there is no such field. */
export function schemasAt(contract: Contract, schema: Schema | undefined, pointer: string, value?: unknown): Schema[] {
  let here: Schema[] = schema ? [schema] : [];
  // With the value there (an answer received), of each oneOf or anyOf on the way only the members it was; below an
  // array's items, which may each be another, every member.
  let current = value;
  for (const segment of pointer.split('/').slice(1).map(unescapeSegment)) {
    const next: Schema[] = [];
    const of = current === undefined ? undefined : { value: current, choices: new Set<string>() };
    current = segment !== '*' && isObject(current) ? current[segment] : undefined;
    for (const each of here.flatMap((one) => alternatives(contract, one, new Set(), undefined, of))) {
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
export function requiredInParent(contract: Contract, schema: Schema | undefined, pointer: string, value?: unknown): boolean {
  const last = pointer.lastIndexOf('/');
  if (last < 0) return true;
  const key = unescapeSegment(pointer.slice(last + 1));
  if (key === '*') return true;
  const parents = schemasAt(contract, schema, pointer.slice(0, last), value);
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

/**
 * What the contract promises of a received field at `pointer` below the answer's `schema` (usage-format.ts,
 * `Promised`); with `value`, the answer received, of the alternatives it was (`schemasAt`).
 */
export function promiseAt(contract: Contract, schema: Schema | undefined, pointer: string, value?: unknown): Promised {
  const schemas = schemasAt(contract, schema, pointer, value);
  const all = schemas.flatMap((each) => alternatives(contract, each));
  const promise: Promised = {};
  if (requiredInParent(contract, schema, pointer, value)) promise.required = true;
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
    const choices: Components = new Map();
    const schema = responseSchema(contract, exchange.operation, exchange.status, exchange.response.mediaType);
    const fields = fieldsOf(contract, exchange.response.body, schema, new Map(), '', components, facts, choices);
    answered.present = [...fields.keys()].sort();
    if (answered.present.length > 0) {
      answered.facts = Object.fromEntries(answered.present.flatMap((pointer) => (facts.has(pointer) ? [[pointer, facts.get(pointer)!]] : [])));
      answered.promised = Object.fromEntries(answered.present.map((pointer) => [pointer, promiseAt(contract, schema, pointer, exchange.response!.body)]));
    }
    if (components.size > 0) answered.schemas = listed(components);
    if (choices.size > 0) answered.choices = listed(choices);
    const values = Object.fromEntries([...fields].flatMap(([pointer, seen]) => (seen ? [[pointer, sorted(seen)!]] : [])));
    if (Object.keys(values).length > 0) answered.values = values;
  }
  const declaredHeaders = declaredResponse(exchange.operation, exchange.status)?.response.headers ?? {};
  const headers = (exchange.responseHeaders ?? []).map((name) => name.toLowerCase()).filter((name) => name in declaredHeaders).sort();
  if (headers.length > 0) answered.headers = headers;
  const requiredHeaders = headers.filter((name) => declaredHeaders[name]!.required === true);
  if (requiredHeaders.length > 0) answered.requiredHeaders = requiredHeaders;
  usage.responses[key] = answered;
  const deprecated = deprecatedUses(contract, exchange, usage, answered);
  if (deprecated.length > 0) usage.deprecated = deprecated;
  return usage;
}

/** Whether a field at `pointer` below `schema` is deprecated, by schema and pointer, worked out once. */
const deprecatedPlaces = new WeakMap<Contract, WeakMap<Schema, Map<string, boolean>>>();
function deprecatedAt(contract: Contract, schema: Schema | undefined, pointer: string): boolean {
  if (!schema) return false;
  let bySchema = deprecatedPlaces.get(contract);
  if (!bySchema) deprecatedPlaces.set(contract, (bySchema = new WeakMap()));
  let byPointer = bySchema.get(schema);
  if (!byPointer) bySchema.set(schema, (byPointer = new Map()));
  let found = byPointer.get(pointer);
  if (found === undefined) {
    found = schemasAt(contract, schema, pointer).some((each) => each.deprecated === true || contract.resolve(each).deprecated === true);
    byPointer.set(pointer, found);
  }
  return found;
}

/**
 * What of the deprecated parts of the contract an exchange used (a record's `deprecated`): `operation`, each parameter
 * sent (`parameter query.name`), each body field sent (`body /pointer`) and each response field received
 * (`response /pointer`) that the contract deprecates, sorted. A request the contract refused still called the operation.
 */
function deprecatedUses(contract: Contract, exchange: Exchange, usage: OperationUsage, answered: ResponseUsage): string[] {
  const { operation } = exchange;
  const uses: string[] = [];
  if ((at(contract.document, operation.pointer) as { deprecated?: unknown } | undefined)?.deprecated === true) uses.push('operation');
  for (const key of Object.keys(usage.parameters)) {
    const declared = operation.parameters.find((each) => `${each.in}.${each.name}` === key) as { deprecated?: unknown } | undefined;
    if (declared?.deprecated === true) uses.push(`parameter ${key}`);
  }
  for (const pointer of Object.keys(usage.body)) if (deprecatedAt(contract, operation.body?.schema, pointer)) uses.push(`body ${pointer}`);
  if (exchange.response && answered.present.length > 0) {
    const schema = responseSchema(contract, operation, exchange.status, exchange.response.mediaType);
    for (const pointer of answered.present) if (deprecatedAt(contract, schema, pointer)) uses.push(`response ${pointer}`);
  }
  return uses.sort();
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
