// What a request or an answer used of the contract, as a usage record keeps it (usage-format.ts): the fields of a JSON
// value as pointers (`*` for every item of an array and every key of a map), with the values of enumerated ones.
import { at, type Contract, declaredResponse, type Operation, pointerSegment, type Schema } from './contract.ts';
import { type OperationUsage, type ResponseUsage, emptyOperationUsage, isObject } from './usage-format.ts';

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

/** Adds the fields of `value`, under `pointer`, read against `schema`, to `fields` (and the components met, to `components`). */
export function fieldsOf(contract: Contract, value: unknown, schema: Schema | undefined, fields: Fields = new Map(), pointer = '', components: Components = new Map()): Fields {
  const shape = shapeOf(contract, schema);
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
    for (const item of value) fieldsOf(contract, item, items, fields, `${pointer}/*`, components);
  } else if (isObject(value)) {
    for (const [key, item] of Object.entries(value)) {
      const place = shape.field(key);
      fieldsOf(contract, item, place.schema, fields, `${pointer}/${place.segment}`, components);
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
  for (const parameter of exchange.parameters) {
    const declared = exchange.operation.parameters.find((each) => each.in === parameter.in && each.name.toLowerCase() === parameter.name.toLowerCase());
    const key = `${parameter.in}.${declared?.name ?? parameter.name}`;
    const schemas = alternatives(contract, declared?.schema);
    const values = (Array.isArray(parameter.value) ? parameter.value : [parameter.value]).filter((value): value is Scalar => ['string', 'number', 'boolean'].includes(typeof value));
    usage.parameters[key] = declaresEnum(schemas) || schemas.some((schema) => declaresEnum(alternatives(contract, schema.items as Schema | undefined))) ? { values: sorted([...new Set(values)]) } : {};
  }
  const listed = (components: Components) => Object.fromEntries([...components].map(([pointer, names]) => [pointer, [...names].sort()]));
  if (exchange.request) {
    usage.mediaTypes = [exchange.request.mediaType];
    const components: Components = new Map();
    for (const [pointer, values] of fieldsOf(contract, exchange.request.body, exchange.operation.body?.schema, new Map(), '', components)) usage.body[pointer] = values ? { values: sorted(values) } : {};
    if (components.size > 0) usage.bodySchemas = listed(components);
  }
  const key = exchange.response ? `${exchange.status} ${exchange.response.mediaType}` : String(exchange.status);
  const answered: ResponseUsage = { present: [] };
  if (exchange.response) {
    const components: Components = new Map();
    const fields = fieldsOf(contract, exchange.response.body, responseSchema(contract, exchange.operation, exchange.status, exchange.response.mediaType), new Map(), '', components);
    answered.present = [...fields.keys()].sort();
    if (components.size > 0) answered.schemas = listed(components);
    const values = Object.fromEntries([...fields].flatMap(([pointer, seen]) => (seen ? [[pointer, sorted(seen)!]] : [])));
    if (Object.keys(values).length > 0) answered.values = values;
  }
  usage.responses[key] = answered;
  return usage;
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
  operation: Operation,
  pathParams: Record<string, string>,
  request: { search: string; headers: Record<string, string | string[] | undefined>; contentType?: string; text?: string },
  status: number,
  response: { contentType?: string; text?: string },
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
  return { operation, parameters, ...(sent ? { request: sent } : {}), status, ...(answered ? { response: answered } : {}) };
}
