// A usage record judged against a contract alone, without the one it was made against: whether the contract still
// accepts all the record says the consumer sent (operations by method and path template, path parameters by position;
// parameters and fields, values, types, lengths, ranges, sizes; media types; the security scheme; all it now requires)
// and guarantees all it read (statuses, media types, headers, fields, types, nullability, bounds, alternatives). Used by
// can-i-deploy without the base, and beside judgement.ts with it; what only a change shows stays judgement.ts's.
import { at, type Contract, declaredResponse, type Operation, type Parameter, type Schema } from '../contract/contract.ts';
import { alternatives, declaredTypes, promiseAt, requiredInParent, requires, responseSchema, schemasAt, securityOf, typeAllowed } from '../records/usage-fields.ts';
import type { Facts, OperationUsage, UsageRecord } from '../records/usage-format.ts';

/** What the record shows the contract no longer accepts or guarantees, and where a version-1 record made it judge less. */
export interface RecordJudgement {
  /** Each break: the operation, what the contract no longer accepts or guarantees (`code`, at `pointer`: a field's JSON pointer, or a parameter's or header's key), in words (`what`). */
  breaks: RecordBreak[];
  /** What could not be judged for what the record does not hold (a version-1 record). */
  notes: string[];
}

/** One break a record shows against a contract alone. */
export interface RecordBreak {
  operationId: string;
  code: RecordBreakCode;
  pointer?: string;
  what: string;
}

export type RecordBreakCode =
  | 'operation-gone' | 'security-changed' | 'parameter-not-accepted' | 'parameter-value-refused' | 'parameter-refuses' | 'parameter-required' | 'default-changed'
  | 'body-required' | 'body-not-accepted' | 'media-type-not-accepted' | 'request-field-not-accepted' | 'request-value-refused' | 'request-field-refuses'
  | 'request-field-required' | 'status-gone' | 'header-gone' | 'header-optional' | 'response-media-type-gone' | 'alternative-added' | 'response-field-gone'
  | 'response-field-optional' | 'response-field-type' | 'response-field-format' | 'response-field-bound';

type Broken = (what: string, code: RecordBreakCode, pointer: string | undefined) => void;

/** A path template with its parameters' names taken out: `/spaces/{}`, so that a renamed path parameter matches. */
const shapeOfPath = (template: string) => template.replace(/\{[^}]+\}/g, '{}');
const pathNames = (template: string) => [...template.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);

/** The operation of `contract` a record's use is of: by method and path template where the record has them, else by id. */
function operationFor(contract: Contract, operationId: string, usage: OperationUsage): Operation | undefined {
  if (usage.method === undefined || usage.path === undefined) return contract.operations.get(operationId);
  const wanted = shapeOfPath(usage.path);
  return [...contract.operations.values()].find((operation) => operation.method === usage.method && shapeOfPath(operation.path) === wanted);
}

/** The parameter `key` (`query.limit`, `path.spaceId`) of the record names in `operation`: a path parameter by its position in the template. */
export function parameterFor(operation: Operation, key: string, recordedPath: string | undefined): Parameter | undefined {
  const place = key.slice(0, key.indexOf('.'));
  let name = key.slice(key.indexOf('.') + 1);
  if (place === 'path' && recordedPath !== undefined) {
    const position = pathNames(recordedPath).indexOf(name);
    if (position >= 0) name = pathNames(operation.path)[position] ?? name;
  }
  return operation.parameters.find((parameter) => parameter.in === place && parameter.name.toLowerCase() === name.toLowerCase());
}

/** The constraints that hold at one schema: its own and its allOf members', the tightest of each. */
interface Limits {
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minItems?: number;
  maxItems?: number;
}
const LOWER = ['minLength', 'minimum', 'exclusiveMinimum', 'minItems'] as const;
const UPPER = ['maxLength', 'maximum', 'exclusiveMaximum', 'maxItems'] as const;

function limitsOf(contract: Contract, schema: Schema, seen = new Set<Schema>()): Limits {
  const resolved = contract.resolve(schema);
  if (seen.has(resolved)) return {};
  seen.add(resolved);
  const limits: Limits = {};
  for (const part of [resolved, ...(resolved.allOf ?? []).map((member) => limitsOf(contract, member, seen) as Schema)]) {
    for (const key of LOWER) if (typeof part[key] === 'number') limits[key] = Math.max(limits[key] ?? -Infinity, part[key]);
    for (const key of UPPER) if (typeof part[key] === 'number') limits[key] = Math.min(limits[key] ?? Infinity, part[key]);
  }
  return limits;
}

/** Why the schemas at a place refuse something the facts say was sent there, or undefined when one of them accepts it all. */
export function refusal(contract: Contract, schemas: Schema[], facts: Facts): string | undefined {
  const reasons: string[] = [];
  for (const schema of schemas) {
    const why: string[] = [];
    const types = declaredTypes(contract, [schema]);
    const refusedTypes = types ? (facts.types ?? []).filter((type) => !typeAllowed(types, type)) : [];
    if (refusedTypes.length > 0) why.push(`it sent ${refusedTypes.join(', ')}, and it accepts ${types!.join(', ')}`);
    const limits = limitsOf(contract, schema);
    if (facts.lengths && limits.maxLength !== undefined && facts.lengths[1] > limits.maxLength) why.push(`it sent strings of up to ${facts.lengths[1]} characters, and it accepts at most ${limits.maxLength}`);
    if (facts.lengths && limits.minLength !== undefined && facts.lengths[0] < limits.minLength) why.push(`it sent strings of ${facts.lengths[0]} characters, and it accepts at least ${limits.minLength}`);
    if (facts.numbers) {
      const [least, most] = facts.numbers;
      if (limits.minimum !== undefined && least < limits.minimum) why.push(`it sent ${least}, below its minimum ${limits.minimum}`);
      if (limits.exclusiveMinimum !== undefined && least <= limits.exclusiveMinimum) why.push(`it sent ${least}, not above ${limits.exclusiveMinimum}`);
      if (limits.maximum !== undefined && most > limits.maximum) why.push(`it sent ${most}, above its maximum ${limits.maximum}`);
      if (limits.exclusiveMaximum !== undefined && most >= limits.exclusiveMaximum) why.push(`it sent ${most}, not below ${limits.exclusiveMaximum}`);
    }
    if (facts.sizes && limits.maxItems !== undefined && facts.sizes[1] > limits.maxItems) why.push(`it sent ${facts.sizes[1]} items, and it accepts at most ${limits.maxItems}`);
    if (facts.sizes && limits.minItems !== undefined && facts.sizes[0] < limits.minItems) why.push(`it sent ${facts.sizes[0]} items, and it accepts at least ${limits.minItems}`);
    if (why.length === 0) return undefined;
    reasons.push(why.join('; '));
  }
  return reasons[0];
}

/** Whether the schemas at a place still allow `value` (an enumeration that lost it does not). */
export function allows(contract: Contract, schemas: Schema[], value: string | number | boolean): boolean {
  return schemas.some((schema) => {
    const enums = alternatives(contract, schema).filter((each) => Array.isArray(each.enum) || 'const' in each);
    return enums.length === 0 || enums.some((each) => (Array.isArray(each.enum) ? each.enum.includes(value) : each.const === value));
  });
}

/** The schemas a request field sent is read against now: none when the contract no longer accepts it there. */
export function fieldSchemas(contract: Contract, root: Schema | undefined, pointer: string): Schema[] {
  const found = schemasAt(contract, root, pointer);
  if (found.length > 0 || pointer === '') return found;
  // A field of an object that declares no fields and does not seal itself is accepted as anything.
  const parents = schemasAt(contract, root, pointer.slice(0, pointer.lastIndexOf('/')));
  const open = parents.some((parent) => alternatives(contract, parent).every((each) => each.properties === undefined && each.additionalProperties !== false && each.unevaluatedProperties !== false));
  return open ? [{}] : [];
}

/** The keys the schemas at an object's place require (each alternative requiring it). */
function requiredKeys(contract: Contract, schemas: Schema[]): string[] {
  const candidates = new Set(schemas.flatMap((schema) => alternatives(contract, schema).flatMap((each) => each.required ?? [])));
  return [...candidates].filter((key) => schemas.length > 0 && schemas.every((schema) => requires(contract, schema, key)));
}

const segment = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** The request media types an operation accepts, from its document. */
function requestMediaTypes(contract: Contract, operation: Operation): { required: boolean; mediaTypes: string[] } | undefined {
  const raw = (at(contract.document, operation.pointer) as { requestBody?: unknown } | undefined)?.requestBody;
  if (!raw) return undefined;
  const body = contract.resolve(raw) as { required?: boolean; content?: Record<string, unknown> };
  return { required: body.required === true, mediaTypes: Object.keys(body.content ?? {}) };
}

function judgeRequest(contract: Contract, operation: Operation, usage: OperationUsage, broken: Broken): void {
  for (const [key, used] of Object.entries(usage.parameters)) {
    const declared = parameterFor(operation, key, usage.path);
    if (!declared) {
      broken(`it sends parameter ${key}, which the contract does not accept`, 'parameter-not-accepted', key);
      continue;
    }
    const schemas = declared.schema ? [declared.schema] : [];
    const items = schemas.flatMap((schema) => alternatives(contract, schema).flatMap((each) => (each.items ? [each.items as Schema] : [])));
    for (const value of used.values ?? []) if (!allows(contract, schemas, value) && (items.length === 0 || !allows(contract, items, value))) broken(`it sent ${JSON.stringify(value)} as parameter ${key}, which the contract does not accept`, 'parameter-value-refused', key);
    const why = schemas.length > 0 ? refusal(contract, schemas, used) : undefined;
    if (why && (items.length === 0 || refusal(contract, items, used))) broken(`parameter ${key} refuses what it sends: ${why}`, 'parameter-refuses', key);
  }
  for (const parameter of operation.parameters) {
    if (!parameter.required || parameter.in === 'path') continue;
    const sent = Object.keys(usage.parameters).some((key) => parameterFor(operation, key, usage.path) === parameter);
    if (!sent) broken(`the contract requires parameter ${parameter.in}.${parameter.name}, and it does not send it`, 'parameter-required', `${parameter.in}.${parameter.name}`);
  }
  for (const [key, relied] of Object.entries(usage.defaults ?? {})) {
    const declared = parameterFor(operation, key, usage.path);
    // A parameter it also sends it knows how to say itself, as the change judgement holds.
    if (!declared || key in usage.parameters) continue;
    const now = alternatives(contract, declared.schema).find((schema) => 'default' in schema)?.default;
    if (JSON.stringify(now) !== JSON.stringify(relied)) broken(`it leaves parameter ${key} out, relying on its default ${JSON.stringify(relied)}, where the contract ${now === undefined ? 'declares none' : `declares ${JSON.stringify(now)}`}`, 'default-changed', key);
  }
  const bodySent = usage.mediaTypes.length > 0 || Object.keys(usage.body).length > 0;
  const body = requestMediaTypes(contract, operation);
  if (!bodySent) {
    if (body?.required) broken('it sends no body, and the contract requires one', 'body-required', '');
    return;
  }
  if (!body) {
    broken('it sends a body, and the operation takes none', 'body-not-accepted', '');
    return;
  }
  for (const mediaType of usage.mediaTypes) if (!body.mediaTypes.includes(mediaType)) broken(`it sends ${mediaType}, which the operation does not accept (it accepts ${body.mediaTypes.join(', ')})`, 'media-type-not-accepted', '');
  const root = operation.body?.schema;
  if (!root) return;
  const objects = new Set<string>(['']);
  for (const [pointer, used] of Object.entries(usage.body)) {
    const schemas = fieldSchemas(contract, root, pointer);
    if (schemas.length === 0) {
      broken(`it sends request field ${pointer}, which the contract does not accept`, 'request-field-not-accepted', pointer);
      continue;
    }
    for (const value of used.values ?? []) if (!allows(contract, schemas, value)) broken(`it sent ${JSON.stringify(value)} at request field ${pointer}, which the contract does not accept`, 'request-value-refused', pointer);
    const why = refusal(contract, schemas, used);
    if (why) broken(`request field ${pointer} refuses what it sends: ${why}`, 'request-field-refuses', pointer);
    if (used.types?.includes('object')) objects.add(pointer);
    const parent = pointer.slice(0, pointer.lastIndexOf('/'));
    if (!pointer.endsWith('/*')) objects.add(parent);
  }
  for (const object of objects) {
    for (const key of requiredKeys(contract, schemasAt(contract, root, object))) {
      const pointer = `${object}/${segment(key)}`;
      if (!(pointer in usage.body)) broken(`the contract requires request field ${pointer}, and it does not send it`, 'request-field-required', pointer);
    }
  }
}

function judgeSecurity(contract: Contract, operation: Operation, usage: OperationUsage, broken: Broken): void {
  // A use that never carried credentials (a test of the refusal of the unauthenticated) tells nothing of a scheme.
  if (usage.security === undefined || usage.security.length === 0) return;
  const requirements = securityOf(contract, operation);
  if (requirements.length === 0) return;
  const met = requirements.some((requirement) => Object.keys(requirement).every((scheme) => usage.security!.includes(scheme)));
  if (!met) {
    broken(`it authenticated with ${usage.security.join(' and ')}, and the operation requires ${requirements.map((requirement) => Object.keys(requirement).join(' and ') || 'none').join(' or ')}`, 'security-changed', undefined);
  }
}

function judgeResponses(contract: Contract, operation: Operation, usage: OperationUsage, broken: Broken): void {
  for (const [key, answer] of Object.entries(usage.responses)) {
    const [statusText, mediaType] = key.split(' ') as [string, string | undefined];
    const status = Number(statusText);
    const declared = declaredResponse(operation, status);
    if (!declared) {
      // A status no longer declared that it received as an error can only be received less; a success that is gone comes as another.
      if (/^2/.test(statusText)) broken(`it received ${statusText}, which the operation does not answer (it answers ${operation.successStatuses.join(', ') || 'no success'})`, 'status-gone', undefined);
      continue;
    }
    const headers = declared.response.headers;
    for (const header of answer.headers ?? []) if (!(header in headers)) broken(`it received header ${header} with ${statusText}, which the contract does not declare`, 'header-gone', `header.${header}`);
    for (const header of answer.requiredHeaders ?? []) if (header in headers && headers[header]!.required !== true) broken(`header ${header} of ${statusText} may be absent (the contract does not require it)`, 'header-optional', `header.${header}`);
    if (!mediaType) continue;
    if (!declared.response.contentTypes.includes(mediaType)) {
      broken(`it received ${statusText} as ${mediaType}, which the contract does not give (it gives ${declared.response.contentTypes.join(', ') || 'no body'})`, 'response-media-type-gone', undefined);
      continue;
    }
    const schema = responseSchema(contract, operation, status, mediaType);
    const used = answer.read ?? answer.present;
    // An answer that may now be an alternative it never could be: named components of a oneOf or anyOf at a place it read at or below.
    for (const [place, names] of Object.entries(answer.schemas ?? {})) {
      if (!used.some((pointer) => pointer === place || pointer.startsWith(`${place}/`))) continue;
      // The members it could have been when recorded: `choices` (a record before them: the members it names).
      const known = [...names, ...(answer.choices?.[place] ?? [])];
      const added = schemasAt(contract, schema, place).flatMap((each) => choiceNames(contract, each)).filter((name) => !known.includes(name));
      if (added.length > 0) broken(`${place === '' ? 'the answer' : `response field ${place}`} (${key}) may be ${[...new Set(added)].join(', ')}, an alternative it was not when recorded`, 'alternative-added', place);
    }
    for (const pointer of used) {
      const where = `response field ${pointer || 'the body'} (${key})`;
      if (pointer !== '' && schemasAt(contract, schema, pointer).length === 0) {
        broken(`${where}, which its code ${answer.read ? 'reads' : 'received'}, is not in what the contract answers`, 'response-field-gone', pointer);
        continue;
      }
      const promised = answer.promised?.[pointer];
      if (!promised) continue;
      const now = promiseAt(contract, schema, pointer);
      if (promised.required && !requiredInParent(contract, schema, pointer)) broken(`${where} may be absent (the contract does not require it)`, 'response-field-optional', pointer);
      const handled = [...(promised.types ?? []), ...(answer.facts?.[pointer]?.types ?? [])];
      if (promised.types) {
        const other = now.types ? now.types.filter((type) => !typeAllowed(handled, type)) : ['any type'];
        if (other.length > 0) broken(`${where} may be ${other.join(', ')}, where it was ${promised.types.join(', ')} when recorded`, 'response-field-type', pointer);
      }
      if (promised.format !== undefined && now.format !== promised.format) broken(`${where} has format ${now.format ?? 'none'} in the contract, where it had ${promised.format} when recorded`, 'response-field-format', pointer);
      if (promised.maximum !== undefined && (now.maximum === undefined || now.maximum > promised.maximum)) broken(`${where} may be above ${promised.maximum}, its maximum when recorded`, 'response-field-bound', pointer);
      if (promised.minimum !== undefined && (now.minimum === undefined || now.minimum < promised.minimum)) broken(`${where} may be below ${promised.minimum}, its minimum when recorded`, 'response-field-bound', pointer);
      if (promised.maxLength !== undefined && (now.maxLength === undefined || now.maxLength > promised.maxLength)) broken(`${where} may be longer than ${promised.maxLength}, its maximum length when recorded`, 'response-field-bound', pointer);
    }
  }
}

/** The component names of the alternatives (oneOf, anyOf) a schema may be, followed through allOf and references. */
function choiceNames(contract: Contract, schema: Schema, seen = new Set<Schema>()): string[] {
  const resolved = contract.resolve(schema);
  if (seen.has(resolved)) return [];
  seen.add(resolved);
  const named = (part: Schema) => (typeof part.$ref === 'string' ? [decodeURIComponent(part.$ref.replace(/^#\/components\/schemas\//, '')).replace(/~1/g, '/').replace(/~0/g, '~')] : []);
  const choices = [...(resolved.oneOf ?? []), ...(resolved.anyOf ?? [])];
  return [...choices.flatMap(named), ...[...choices, ...(resolved.allOf ?? [])].flatMap((part) => choiceNames(contract, part, seen))];
}

/** A version-1 record's uses, judged with less: what it does not hold, for the output to say. */
function v1Notes(record: UsageRecord): string[] {
  if (record.version >= 2) return [];
  return [
    `${record.consumer.name}'s record is of version ${record.version} of the format, which keeps no types, lengths or ranges of what it sent or received, no security scheme, no response headers, no defaults it relied on and no promises of the fields it received: only operations by id, parameters, fields and their enumerated values, required ones, statuses and media types were judged`,
  ];
}

/** `record` judged against `contract` alone: each use the contract no longer accepts or guarantees. */
export function judgeRecord(record: UsageRecord, contract: Contract): RecordJudgement {
  const breaks: RecordJudgement['breaks'] = [];
  for (const [operationId, usage] of Object.entries(record.operations)) {
    const broken: Broken = (what, code, pointer) => breaks.push({ operationId, code, ...(pointer === undefined ? {} : { pointer }), what });
    const operation = operationFor(contract, operationId, usage);
    if (!operation) {
      broken(usage.method && usage.path ? `${usage.method.toUpperCase()} ${usage.path} is no operation of the contract` : 'it is no operation of the contract', 'operation-gone', undefined);
      continue;
    }
    judgeSecurity(contract, operation, usage, broken);
    judgeRequest(contract, operation, usage, broken);
    judgeResponses(contract, operation, usage, broken);
  }
  return { breaks, notes: v1Notes(record) };
}
