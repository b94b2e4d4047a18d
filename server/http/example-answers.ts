// Answers from the contract for the operations not implemented yet (no handler, or listed in handlers/pending.ts), when
// ANSWER_FROM_CONTRACT is on: the request passes every check, and the answer is the success response's example, or a
// value made from its schema, with `x-contract-answer: example` (or `schema`); nothing is read or written
// (server/docs/design.md, "Answers from the contract").
import RandExpModule from 'randexp';
import { StartupError } from '../common/config.ts';
import type { ContractOperation, OpenApiDocument } from './contract.ts';

/** The response header of an answer from the contract: `example` or `schema`, where its body comes from. */
export const CONTRACT_ANSWER_HEADER = 'x-contract-answer';

/** The extension marking, in the served contract, an operation this server answers from the contract. */
export const CONTRACT_ANSWER_EXTENSION = 'x-answered-from-contract';

/** The setting that turns answers from the contract on, as a variable and as a flag. */
export const ANSWER_FROM_CONTRACT_SETTING = 'ANSWER_FROM_CONTRACT=true (or --answer-from-contract)';

export type ContractAnswerSource = 'example' | 'schema';

// randexp is a CommonJS module whose `module.exports` is its class, which Node, tsx and esbuild give as the default
// import; its declarations describe an ES module with a `default` export instead, which TypeScript then types as the
// default import's `default`.
const RandExp = RandExpModule as unknown as typeof RandExpModule.default;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type SchemaObject = Record<string, any>;
type Schema = SchemaObject | boolean;

/** The object a local `$ref` (`#/components/schemas/Team`) names in the document. */
function target(document: OpenApiDocument, ref: string): unknown {
  if (!ref.startsWith('#/')) throw new Error(`${ref}: only references within the contract are followed`);
  let node: unknown = document;
  for (const segment of ref.slice(2).split('/')) {
    node = (node as Record<string, unknown> | undefined)?.[segment.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  if (node === undefined) throw new Error(`${ref} names nothing in the contract`);
  return node;
}

/** An object of the document that may be a `$ref` (a response, a parameter, an example), followed. */
function followed<T>(document: OpenApiDocument, node: T): T {
  let current = node as T & { $ref?: string };
  for (let hops = 0; typeof current?.$ref === 'string' && hops < 16; hops++) current = target(document, current.$ref) as T & { $ref?: string };
  return current;
}

// ----------------------------------------------------------------------------------------------------------------
// Examples

/** One example of an operation, read from the emitted document: its request and its answer. */
export interface OperationExample {
  operationId: string;
  /** The example's title (the key of `examples`), `default` for an untitled one (`example`). */
  name: string;
  method: string;
  /** The path template, such as `/v1/spaces/{spaceId}`. */
  path: string;
  parameters: { path: Record<string, unknown>; query: Record<string, unknown> };
  body?: unknown;
  /** The operation's success status. */
  status: number;
  /** The success answer's body; absent for an answer without one, or an example without an answer. */
  response?: unknown;
}

type ExampleHolder = { example?: unknown; examples?: Record<string, { value?: unknown; $ref?: string }> };

/** The values a parameter or a media type carries, by example name (`default` for `example`). */
function named(document: OpenApiDocument, holder: ExampleHolder | undefined): Map<string, unknown> {
  const values = new Map<string, unknown>();
  if (!holder) return values;
  if (holder.example !== undefined) values.set('default', holder.example);
  for (const [name, example] of Object.entries(holder.examples ?? {})) {
    const value = followed(document, example).value;
    if (value !== undefined) values.set(name, value);
  }
  return values;
}

/** The operation object of the document. */
const operationObject = (document: OpenApiDocument, operation: ContractOperation): SchemaObject => {
  const found = document.paths[operation.path]?.[operation.method] as SchemaObject | undefined;
  if (!found) throw new Error(`${operation.method.toUpperCase()} ${operation.path} is not an operation of the contract`);
  return found;
};

/** The operation's success status (its lowest 2xx) and that response, `$ref` followed. */
function successResponse(document: OpenApiDocument, operation: ContractOperation): { status: number; response: SchemaObject } {
  const responses = (operationObject(document, operation).responses ?? {}) as Record<string, SchemaObject>;
  const status = Object.keys(responses)
    .filter((code) => /^2\d\d$/.test(code))
    .sort()[0];
  if (status === undefined) throw new Error(`${operation.operationId} declares no success status`);
  return { status: Number(status), response: followed(document, responses[status]!) };
}

/** The media type of a request body or response content: JSON's when declared, else the first one. */
function mediaType(content: Record<string, SchemaObject> | undefined): { type: string; media: SchemaObject } | undefined {
  const types = Object.keys(content ?? {});
  const type = types.find((candidate) => candidate === 'application/json') ?? types.find((candidate) => /[/+]json$/.test(candidate)) ?? types[0];
  return type === undefined ? undefined : { type, media: content![type]! };
}

/**
 * The examples of an operation, from the emitted document: for each example name, the values its parameters carry
 * under that name, its request body's, and its success response's. An operation without examples has none.
 */
export function operationExamples(document: OpenApiDocument, operation: ContractOperation): OperationExample[] {
  const object = operationObject(document, operation);
  const { status, response } = successResponse(document, operation);
  const responses = named(document, mediaType(response.content)?.media);
  const requestBody = followed(document, object.requestBody as SchemaObject | undefined);
  const bodies = named(document, mediaType(requestBody?.content)?.media);
  const parameters = ((object.parameters ?? []) as SchemaObject[]).map((parameter) => {
    const resolved = followed(document, parameter) as SchemaObject & ExampleHolder;
    return { parameter: resolved, values: named(document, resolved) };
  });
  const names = new Set([...responses.keys(), ...bodies.keys(), ...parameters.flatMap(({ values }) => [...values.keys()])]);
  return [...names].map((name) => {
    const example: OperationExample = {
      operationId: operation.operationId,
      name,
      method: operation.method,
      path: operation.path,
      parameters: { path: {}, query: {} },
      status,
    };
    for (const { parameter, values } of parameters) {
      if (!values.has(name) || (parameter.in !== 'path' && parameter.in !== 'query')) continue;
      example.parameters[parameter.in as 'path' | 'query'][parameter.name as string] = values.get(name);
    }
    if (bodies.has(name)) example.body = bodies.get(name);
    if (responses.has(name)) example.response = responses.get(name);
    return example;
  });
}

// ----------------------------------------------------------------------------------------------------------------
// Values made from schemas

/** Which side of an exchange a value is for: a request leaves out read-only fields, a response write-only ones. */
export type Direction = 'request' | 'response';

/** Fixed values of the string formats (JSON Schema's and OpenAPI's). */
const FORMATS: Record<string, string> = {
  'date-time': '2026-01-01T00:00:00.000Z',
  date: '2026-01-01',
  time: '00:00:00Z',
  duration: 'PT1M',
  email: 'user@example.com',
  'idn-email': 'user@example.com',
  hostname: 'example.com',
  'idn-hostname': 'example.com',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
  uri: 'https://example.com/',
  'uri-reference': 'https://example.com/',
  iri: 'https://example.com/',
  'iri-reference': 'https://example.com/',
  'uri-template': 'https://example.com/{id}',
  uuid: '00000000-0000-4000-8000-000000000000',
  'json-pointer': '/example',
  'relative-json-pointer': '0',
  regex: '^.*$',
  byte: 'c3RyaW5n',
};

/** Optional properties and array items are left out below this depth (a bound on what recursive schemas make). */
const OPTIONAL_DEPTH = 8;
/** Deeper than this, the schema's required parts recurse without end. */
const MAX_DEPTH = 64;

const BOUNDS_UP = ['minLength', 'minItems', 'minProperties', 'minimum', 'exclusiveMinimum'];
const BOUNDS_DOWN = ['maxLength', 'maxItems', 'maxProperties', 'maximum', 'exclusiveMaximum'];

/** Two schemas that both apply (`allOf`, a `$ref` with keywords beside it), as one. */
function merged(base: SchemaObject, extra: SchemaObject): SchemaObject {
  const out: SchemaObject = { ...base };
  for (const [key, value] of Object.entries(extra)) {
    const current = out[key];
    if (current === undefined) out[key] = value;
    else if (key === 'properties') {
      const properties: SchemaObject = { ...current };
      for (const [name, schema] of Object.entries(value as SchemaObject)) properties[name] = name in properties ? { allOf: [properties[name], schema] } : schema;
      out[key] = properties;
    } else if (key === 'required') out[key] = [...new Set([...(current as string[]), ...(value as string[])])];
    else if (BOUNDS_UP.includes(key)) out[key] = Math.max(current as number, value as number);
    else if (BOUNDS_DOWN.includes(key)) out[key] = Math.min(current as number, value as number);
    else if (key === 'allOf') out[key] = [...(current as Schema[]), ...(value as Schema[])];
    else if (key !== '$ref') out[key] = value;
  }
  return out;
}

/** A schema with its `$ref` and `allOf` resolved into one object, and the references it went through. */
function flatten(document: OpenApiDocument, schema: SchemaObject, refs: string[] = []): { schema: SchemaObject; refs: string[] } {
  let current = schema;
  const through = [...refs];
  for (let guard = 0; guard < MAX_DEPTH; guard++) {
    if (typeof current.$ref === 'string') {
      const { $ref, ...rest } = current;
      through.push($ref);
      current = merged(target(document, $ref) as SchemaObject, rest);
    } else if (Array.isArray(current.allOf)) {
      const { allOf, ...rest } = current;
      current = (allOf as Schema[]).reduce<SchemaObject>((all, part) => merged(all, part === true ? {} : (part as SchemaObject)), rest);
    } else return { schema: current, refs: through };
  }
  throw new Error(`a schema whose references go round: ${through.join(' → ')}`);
}

interface Walk {
  document: OpenApiDocument;
  direction: Direction;
  /** The references being made, outside in: one met again is a recursion. */
  stack: string[];
  depth: number;
  /** Which of several values that must differ (the items of a `uniqueItems` array). */
  variant: number;
}

/** The schema's example (`examples`' first, `example`, `default`), for the direction; undefined without one. */
function exampleOf(schema: SchemaObject, direction: Direction): unknown {
  const value = Array.isArray(schema.examples) && schema.examples.length > 0 ? schema.examples[0] : (schema.example ?? schema.default);
  if (value === undefined || direction === 'response' || typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  // A request leaves out what the server sets: the read-only properties the example shows.
  const properties = (schema.properties ?? {}) as Record<string, SchemaObject>;
  return Object.fromEntries(Object.entries(value).filter(([name]) => properties[name]?.readOnly !== true));
}

/** The JSON type a schema makes: its `type` (the first but null of a list), or the one its keywords imply. */
function typeOf(schema: SchemaObject): string | undefined {
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : schema.type === undefined ? [] : [schema.type as string];
  const type = types.find((candidate) => candidate !== 'null') ?? types[0];
  if (type !== undefined) return type;
  if (schema.properties || schema.required || schema.additionalProperties || schema.unevaluatedProperties) return 'object';
  if (schema.items || schema.prefixItems) return 'array';
  if (schema.pattern !== undefined || schema.format !== undefined || schema.minLength !== undefined || schema.maxLength !== undefined) return 'string';
  if (schema.minimum !== undefined || schema.maximum !== undefined || schema.multipleOf !== undefined) return 'number';
  return undefined;
}

function make(input: Schema | undefined, walk: Walk): unknown {
  if (input === undefined || input === true) return {};
  if (input === false) throw new Error('a schema that allows no value (false)');
  if (walk.depth > MAX_DEPTH) throw new Error(`a schema whose required parts recurse without end: ${walk.stack.join(' → ')}`);
  const { schema, refs } = flatten(walk.document, input);
  const inner: Walk = { ...walk, stack: [...walk.stack, ...refs], depth: walk.depth + 1 };
  if ('const' in schema) return schema.const;
  const example = exampleOf(schema, walk.direction);
  if (example !== undefined) return example;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[walk.variant % schema.enum.length];
  const choices = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (Array.isArray(choices) && choices.length > 0) return make(choice(schema, choices, inner), inner);
  switch (typeOf(schema)) {
    case 'null':
      return null;
    case 'boolean':
      return walk.variant % 2 === 0;
    case 'integer':
      return numberValue(schema, true, walk.variant);
    case 'number':
      return numberValue(schema, false, walk.variant);
    case 'string':
      return stringValue(schema, walk.variant);
    case 'array':
      return arrayValue(schema, inner);
    case 'object':
      return objectValue(schema, inner);
    default:
      return {};
  }
}

/** Whether a schema (not yet flattened) leads into a reference being made: making it would recurse. */
function recurses(document: OpenApiDocument, schema: Schema | undefined, stack: string[]): boolean {
  if (typeof schema !== 'object') return false;
  return flatten(document, schema).refs.some((ref) => stack.includes(ref));
}

/**
 * The alternative of an `anyOf` or `oneOf` to make, with the keywords beside the alternatives applied to it: the
 * first that is neither `null` nor a recursion, else the first that is not `null`, else the first.
 */
function choice(schema: SchemaObject, choices: Schema[], walk: Walk): Schema {
  const { anyOf: _anyOf, oneOf: _oneOf, description: _description, ...beside } = schema;
  const options = choices.map((option) => (option === true ? beside : option === false ? false : merged(beside, option)));
  const isNull = (option: Schema) => typeof option === 'object' && typeOf(flatten(walk.document, option).schema) === 'null';
  return (
    options.find((option) => !isNull(option) && !recurses(walk.document, option, walk.stack)) ??
    options.find((option) => !isNull(option)) ??
    options[0]!
  );
}

function numberValue(schema: SchemaObject, integer: boolean, variant: number): number {
  const step = integer ? 1 : 0.5;
  let low = typeof schema.minimum === 'number' ? schema.minimum : -Infinity;
  if (typeof schema.exclusiveMinimum === 'number') low = Math.max(low, schema.exclusiveMinimum + step);
  let high = typeof schema.maximum === 'number' ? schema.maximum : Infinity;
  if (typeof schema.exclusiveMaximum === 'number') high = Math.min(high, schema.exclusiveMaximum - step);
  if (integer) {
    low = Math.ceil(low);
    high = Math.floor(high);
  }
  if (low > high) throw new Error(`no number between ${schema.minimum ?? schema.exclusiveMinimum} and ${schema.maximum ?? schema.exclusiveMaximum}`);
  let value = Math.min(Math.max(variant, low), high);
  const multiple = schema.multipleOf as number | undefined;
  if (typeof multiple === 'number' && multiple > 0) {
    value = Math.ceil(value / multiple) * multiple;
    if (value > high) value -= multiple;
  }
  return value;
}

/** A string of `pattern` within the bounds: randexp's, with the fewest repetitions first, then a fixed sequence of draws. */
function patternValue(pattern: string, min: number, max: number): string {
  const matches = new RegExp(pattern, 'u');
  const fits = (value: string) => matches.test(value) && value.length >= min && value.length <= max;
  const generator = new RandExp(pattern);
  generator.max = 8;
  generator.randInt = (low) => low;
  const fewest = generator.gen();
  if (fits(fewest)) return fewest;
  // Park and Miller's generator from a fixed seed: the same draws on every run.
  let seed = 42;
  generator.max = Math.max(8, Math.min(max, min + 8));
  generator.randInt = (low, high) => {
    seed = (seed * 48_271) % 2_147_483_647;
    return low + (seed % (high - low + 1));
  };
  for (let draw = 0; draw < 500; draw++) {
    const value = generator.gen();
    if (fits(value)) return value;
  }
  throw new Error(`no string of the pattern ${pattern} from ${min} to ${max} characters long was found`);
}

function stringValue(schema: SchemaObject, variant: number): string {
  const min = (schema.minLength as number | undefined) ?? 0;
  const max = (schema.maxLength as number | undefined) ?? Infinity;
  if (typeof schema.pattern === 'string') return patternValue(schema.pattern, min, max);
  const format = typeof schema.format === 'string' ? FORMATS[schema.format] : undefined;
  if (format !== undefined) return variant === 0 ? format : format.replace(/^(\d{4})/, (year) => String(Number(year) + variant)).replace('user@', `user${variant}@`);
  const base = variant === 0 ? 'string' : `string${variant}`;
  return base.length > max ? base.slice(base.length - max) : base.padEnd(min, 'x');
}

function arrayValue(schema: SchemaObject, walk: Walk): unknown[] {
  const min = (schema.minItems as number | undefined) ?? 0;
  const max = (schema.maxItems as number | undefined) ?? Infinity;
  const prefix = (schema.prefixItems ?? []) as Schema[];
  const items = schema.items as Schema | undefined;
  const shallow = walk.depth > OPTIONAL_DEPTH || recurses(walk.document, items, walk.stack);
  const count = Math.min(Math.max(min, shallow ? 0 : 1, prefix.length > 0 ? Math.min(min, prefix.length) : 0), max);
  return Array.from({ length: count }, (_, index) =>
    make(index < prefix.length ? prefix[index] : items, { ...walk, variant: schema.uniqueItems === true ? index : walk.variant }),
  );
}

function objectValue(schema: SchemaObject, walk: Walk): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required ?? []) as string[]);
  const value: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(properties)) {
    const flat = typeof property === 'object' ? flatten(walk.document, property).schema : {};
    if (walk.direction === 'request' && flat.readOnly === true) continue;
    if (walk.direction === 'response' && flat.writeOnly === true) continue;
    if (!required.has(name) && (walk.depth > OPTIONAL_DEPTH || recurses(walk.document, property, walk.stack))) continue;
    value[name] = make(property, walk);
  }
  // Properties beyond the declared ones, where the schema wants more than it declares and allows them.
  const others = [schema.additionalProperties, schema.unevaluatedProperties].find((extra) => typeof extra === 'object') as SchemaObject | undefined;
  const wanted = (schema.minProperties as number | undefined) ?? 0;
  for (let index = 1; Object.keys(value).length < wanted && others && !('not' in others); index++) value[`key${index}`] = make(others, walk);
  return value;
}

/** A value valid against `schema` (a schema of `document`, or a `$ref` into it), the same every time. */
export function schemaValue(document: OpenApiDocument, schema: Schema, direction: Direction = 'response'): unknown {
  return make(schema, { document, direction, stack: [], depth: 0, variant: 0 });
}

// ----------------------------------------------------------------------------------------------------------------
// Answers

/** What the server answers, from the contract, for an operation it does not implement. */
export interface ContractAnswer {
  status: number;
  /** The headers the success response declares, from their examples or schemas. */
  headers: Record<string, string>;
  /** The body (absent for a response without one) and its media type. */
  body?: unknown;
  contentType?: string;
  /** Where the body comes from: the operation's example, or its schema (also for a body-less answer without an example). */
  source: ContractAnswerSource;
  /** Why no answer could be made (a schema no value meets): the answer is then a 500 saying so. */
  problem?: string;
}

/**
 * The answer to every request of `operation` that passes the contract's checks. An operation no answer can be made for
 * (a schema no value meets) is answered 500, naming why, rather than keeping the rest of the contract from being served.
 */
export function contractAnswer(document: OpenApiDocument, operation: ContractOperation): ContractAnswer {
  try {
    return madeAnswer(document, operation);
  } catch (error) {
    const problem = `${operation.operationId} cannot be answered from the contract: ${error instanceof Error ? error.message : String(error)}`;
    return { status: 500, headers: {}, body: { error: { code: 500, message: problem } }, contentType: 'application/json', source: 'schema', problem };
  }
}

function madeAnswer(document: OpenApiDocument, operation: ContractOperation): ContractAnswer {
  const { status, response } = successResponse(document, operation);
  const examples = operationExamples(document, operation);
  const headers: Record<string, string> = {};
  for (const [name, header] of Object.entries((response.headers ?? {}) as Record<string, SchemaObject>)) {
    const declared = followed(document, header);
    const value = named(document, declared as ExampleHolder).values().next().value ?? schemaValue(document, (declared.schema ?? {}) as Schema);
    headers[name.toLowerCase()] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  const content = mediaType(response.content);
  if (!content) return { status, headers, source: examples.length > 0 ? 'example' : 'schema' };
  const example = examples.find((candidate) => 'response' in candidate);
  if (example) return { status, headers, body: example.response, contentType: content.type, source: 'example' };
  return { status, headers, body: schemaValue(document, (content.media.schema ?? {}) as Schema), contentType: content.type, source: 'schema' };
}

/** Which operations an app answers from the contract, and what of its handler table fits no operation. */
export interface ContractAnswerPlan {
  /** The operations answered from the contract, each with why: its pending entry's reason, or that it has no handler. */
  answered: Map<string, string>;
  /** Handlers of no operation of the contract (served by nothing). */
  extra: string[];
  /** Pending entries of no operation of the contract. */
  stalePending: string[];
}

/**
 * The plan of an app: every operation of `operations` without a handler, or pending, is answered from the contract.
 * Without `answerFromContract`, any such operation, or any handler of no operation, refuses the start, naming them
 * and the setting.
 */
export function contractAnswerPlan(
  operations: readonly ContractOperation[],
  handlers: object,
  pending: Readonly<Record<string, string>>,
  answerFromContract: boolean,
): ContractAnswerPlan {
  const ids = new Set(operations.map((operation) => operation.operationId));
  const answered = new Map<string, string>();
  for (const { operationId } of operations) {
    if (Object.hasOwn(pending, operationId)) answered.set(operationId, `pending: ${pending[operationId]}`);
    else if (typeof (handlers as Record<string, unknown>)[operationId] !== 'function') answered.set(operationId, 'no handler');
  }
  const extra = Object.keys(handlers).filter((id) => !ids.has(id));
  const stalePending = Object.keys(pending).filter((id) => !ids.has(id));
  if (!answerFromContract && (answered.size > 0 || extra.length > 0)) {
    const missing = [...answered].filter(([, reason]) => reason === 'no handler').map(([id]) => id);
    const listed = [...answered.keys()].filter((id) => Object.hasOwn(pending, id));
    throw new StartupError(
      [
        missing.length > 0 && `operations without a handler: ${missing.join(', ')}`,
        listed.length > 0 && `operations pending (server/handlers/pending.ts): ${listed.join(', ')}`,
        extra.length > 0 && `handlers of no operation of the contract: ${extra.join(', ')}`,
      ]
        .filter(Boolean)
        .join('; ') +
        `. Serve the rest and answer the operations not implemented from the contract with ${ANSWER_FROM_CONTRACT_SETTING}, as npm run dev does.`,
    );
  }
  return { answered, extra, stalePending };
}

/** One line for the log: the operations answered from the contract, each with why. */
export const answeredLine = (plan: ContractAnswerPlan): string =>
  `answering from the contract, not implemented: ${[...plan.answered].map(([id, reason]) => `${id} (${reason})`).join(', ')}`;

/**
 * The contract as served by a server that answers some operations from it: each such operation marked (the
 * extension, its summary and description), and their list at the end of the document's description, so that a
 * reader of /docs sees what this server does not implement. `document` is not modified.
 */
export function markedContract(document: OpenApiDocument, plan: ContractAnswerPlan, answers: ReadonlyMap<string, ContractAnswer>): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = { ...document.paths };
  const listed: string[] = [];
  for (const [template, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const reason = typeof operation?.operationId === 'string' ? plan.answered.get(operation.operationId) : undefined;
      if (reason === undefined) continue;
      const source = answers.get(operation.operationId)?.source ?? 'schema';
      const from = source === 'example' ? 'its example' : 'a value made from its schema';
      paths[template] = {
        ...paths[template],
        [method]: {
          ...operation,
          summary: `${operation.summary ?? operation.operationId} (not implemented: answered from the contract)`,
          description: `**Not implemented by this server** (${reason}): it answers ${from}, with the header \`${CONTRACT_ANSWER_HEADER}: ${source}\`.${operation.description ? `\n\n${operation.description}` : ''}`,
          [CONTRACT_ANSWER_EXTENSION]: { answer: source, reason },
        },
      };
      listed.push(`- \`${operation.operationId}\` (${method.toUpperCase()} ${template}): ${reason}`);
    }
  }
  const info = (document.info ?? {}) as SchemaObject;
  const note = `**Not implemented by this server**: these operations are answered from the contract (their example, or a value made from their schema), with the header \`${CONTRACT_ANSWER_HEADER}\`:\n\n${listed.join('\n')}`;
  return { ...document, info: { ...info, description: info.description ? `${info.description}\n\n${note}` : note }, paths };
}
