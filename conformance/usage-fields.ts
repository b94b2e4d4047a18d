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
  const names = new Set<string>();
  const schemas = alternatives(contract, schema, new Set(), names);
  if (names.size > 0) components.set(pointer, new Set([...(components.get(pointer) ?? []), ...names]));
  if (pointer !== '') {
    const values = fields.get(pointer);
    const scalar = typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
    fields.set(pointer, scalar && declaresEnum(schemas) ? [...new Set([...(values ?? []), value])] : values);
  }
  if (Array.isArray(value)) {
    const items = schemas.flatMap((each) => (each.items ? [each.items as Schema] : []));
    for (const item of value) fieldsOf(contract, item, items[0] ? { anyOf: items } : undefined, fields, `${pointer}/*`, components);
  } else if (isObject(value)) {
    for (const [key, item] of Object.entries(value)) {
      const declared = schemas.flatMap((each) => (each.properties?.[key] ? [each.properties[key]] : []));
      const map = schemas.flatMap((each) => (isObject(each.additionalProperties) ? [each.additionalProperties as Schema] : []));
      // A key of a map (additionalProperties) is any key: `*`.
      const [segment, itemSchemas] = declared.length > 0 || map.length === 0 ? [pointerSegment(key), declared] : ['*', map];
      fieldsOf(contract, item, itemSchemas.length > 0 ? { anyOf: itemSchemas } : undefined, fields, `${pointer}/${segment}`, components);
    }
  }
  return fields;
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
