// Checks of a request against the contract, for the validating proxy (proxy.ts): its operation (method and path
// against the path templates), its path, query and header parameters, its credentials when the operation declares
// security, and its body; schemas compiled with Ajv (2020-12, with formats) from the same document by JSON pointer,
// as validate.ts compiles the response schemas. What each check refuses: conformance/README.md ("Proxy").
import type { ErrorObject, ValidateFunction } from 'ajv';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { at, type Contract, type Operation, type Parameter, pointerSegment, type Schema } from './contract.ts';
import { describe } from './validate.ts';

// CommonJS modules whose exports carry `default`: see validate.ts.
const Ajv2020 = Ajv2020Module.default;
const addFormats = addFormatsModule.default;

export type RequestProblemKind =
  | 'unknown-operation'
  | 'missing-parameter'
  | 'unknown-parameter'
  | 'parameter-schema'
  | 'security'
  | 'missing-body'
  | 'unexpected-body'
  | 'content-type'
  | 'invalid-json'
  | 'body-schema';

/**
 * One thing wrong with a request (or, in proxy-checks.ts, with an answer): `pointer` is a JSON pointer into the
 * exchange seen as `{path, query, headers, body}` (`/query/limit`, `/body/title`; `/status` for an answer's status) and
 * `value` what was found there (absent when the thing is missing).
 */
export interface Finding<Kind extends string = string> {
  kind: Kind;
  message: string;
  pointer?: string;
  value?: unknown;
}

/** The request as the proxy saw it: method, the path as sent (percent-encoded), the query string, the headers. */
export interface RequestHead {
  method: string;
  /** The path of the request target, as sent (`/v1/spaces/abc`). */
  pathname: string;
  /** The query string without `?` ('' when none). */
  search: string;
  /** Headers, names in lower case (node:http's `IncomingMessage.headers`). */
  headers: Record<string, string | string[] | undefined>;
}

/** What was received of a request body. */
export interface ReceivedBody {
  /** Bytes received (0: no body). */
  bytes: number;
  /** The body as text, or undefined when it was not kept for checking (larger than the cap, or encoded unreadably). */
  text: string | undefined;
}

export interface Match {
  operation: Operation;
  /** Path parameters, percent-decoded. */
  pathParams: Record<string, string>;
}

const CONTRACT_ID = 'urn:docs-platform:contract:requests';
/** Pointers reported per request at most (the rest are counted in the last finding's message). */
const MAX_FINDINGS = 10;
const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const JSON_MEDIA = /^application\/(.+\+)?json$/;

interface Route {
  operation: Operation;
  pattern: RegExp;
  names: string[];
  /** Per segment: 0 literal, 1 literal and parameters, 2 a parameter alone; a lower rank is a more specific route. */
  rank: number[];
}

interface Compiled {
  /** Parameters by `in:name`, each with the JSON pointer of its schema. */
  parameters: { parameter: Parameter; schemaPointer?: string }[];
  /** Declared request media types, each with the pointer of its schema (none: the operation takes no body). */
  body?: { required: boolean; media: { type: string; schemaPointer?: string }[] };
  /** Alternatives of credentials: each a list of schemes that must all be present (an empty list: none needed). */
  security: SecurityScheme[][];
}

type SecurityScheme = { name: string } & ({ kind: 'authorization'; scheme: string } | { kind: 'apiKey'; in: 'header' | 'query' | 'cookie'; key: string });

const checkers = new WeakMap<Contract, RequestChecker>();

/** One request checker per contract: its compiled schemas serve every request of the process. */
export function requestCheckerOf(contract: Contract): RequestChecker {
  let checker = checkers.get(contract);
  if (!checker) {
    checker = new RequestChecker(contract);
    checkers.set(contract, checker);
  }
  return checker;
}

export class RequestChecker {
  private readonly ajv: InstanceType<typeof Ajv2020>;
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly compiled = new Map<string, Compiled>();
  private readonly routes: Route[];

  constructor(private readonly contract: Contract) {
    // As validate.ts: strict off (an OpenAPI document around the schemas), no optimizing pass. `verbose` gives each
    // error its schema, so that a required property the schema marks read-only is not demanded of a request.
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true, validateSchema: false, verbose: true, code: { optimize: false } });
    addFormats(this.ajv);
    this.ajv.addSchema({ ...contract.document, $id: CONTRACT_ID });
    this.routes = [...contract.operations.values()].map((operation) => route(operation));
  }

  /**
   * The operation a request is for: the route whose template matches its path (a literal segment before a
   * parameter, as `/spaces/search` before `/spaces/{spaceId}`) and declares its method. HEAD is GET's (HTTP gives it
   * GET's meaning). Undefined when no template matches, or none with this method.
   */
  match(method: string, pathname: string): Match | undefined {
    const wanted = method.toLowerCase() === 'head' ? 'get' : method.toLowerCase();
    let best: { route: Route; groups: string[] } | undefined;
    for (const candidate of this.routes) {
      if (candidate.operation.method !== wanted) continue;
      const found = candidate.pattern.exec(pathname);
      if (!found) continue;
      if (!best || compareRank(candidate.rank, best.route.rank) < 0) best = { route: candidate, groups: found.slice(1) };
    }
    if (!best) return undefined;
    const pathParams: Record<string, string> = {};
    best.route.names.forEach((name, index) => {
      const raw = best.groups[index]!;
      try {
        pathParams[name] = decodeURIComponent(raw);
      } catch {
        pathParams[name] = raw;
      }
    });
    return { operation: best.route.operation, pathParams };
  }

  /** The methods the contract declares for a path (upper case), for the message of an unknown operation. */
  methodsOf(pathname: string): string[] {
    return [...new Set(this.routes.filter((candidate) => candidate.pattern.test(pathname)).map((candidate) => candidate.operation.method.toUpperCase()))];
  }

  /** Parameters and credentials: everything that can be judged from the request line and headers. */
  checkHead(match: Match, head: RequestHead): Finding<RequestProblemKind>[] {
    const { operation, pathParams } = match;
    const compiled = this.compile(operation);
    const findings: Finding<RequestProblemKind>[] = [];
    const query = new URLSearchParams(head.search);
    const declaredQuery = new Set(compiled.parameters.filter(({ parameter }) => parameter.in === 'query').map(({ parameter }) => parameter.name));
    for (const name of new Set(query.keys())) {
      if (declaredQuery.has(name)) continue;
      const values = query.getAll(name);
      findings.push({
        kind: 'unknown-parameter',
        message: `query parameter ${name} is not declared (declared: ${[...declaredQuery].join(', ') || 'none'})`,
        pointer: `/query/${pointerSegment(name)}`,
        value: values.length === 1 ? values[0] : values,
      });
    }
    for (const { parameter, schemaPointer } of compiled.parameters) {
      const where = parameter.in;
      if (where === 'cookie') continue;
      const pointer = `/${where === 'header' ? 'headers' : where}/${pointerSegment(where === 'header' ? parameter.name.toLowerCase() : parameter.name)}`;
      const label = `${where === 'header' ? 'header' : where} parameter ${parameter.name}`;
      let raw: string[];
      if (where === 'path') raw = pathParams[parameter.name] === undefined ? [] : [pathParams[parameter.name]!];
      else if (where === 'query') raw = query.getAll(parameter.name);
      else {
        const value = head.headers[parameter.name.toLowerCase()];
        raw = value === undefined ? [] : Array.isArray(value) ? value : [value];
      }
      if (raw.length === 0) {
        if (parameter.required || where === 'path') findings.push({ kind: 'missing-parameter', message: `${label} is required`, pointer });
        continue;
      }
      const schema = parameter.schema ? this.contract.resolve(parameter.schema) : undefined;
      const isArray = schema ? typesOf(this.contract, schema).has('array') : false;
      const shown = raw.length === 1 ? raw[0] : raw;
      if (!isArray && raw.length > 1) {
        findings.push({ kind: 'parameter-schema', message: `${label} is given ${raw.length} times; it takes one value`, pointer, value: shown });
        continue;
      }
      if (where === 'query' && raw.some((value) => value === '') && (parameter as { allowEmptyValue?: boolean }).allowEmptyValue !== true) {
        findings.push({ kind: 'parameter-schema', message: `${label} is empty (the contract does not allow empty values)`, pointer, value: shown });
        continue;
      }
      if (!schema || !schemaPointer) continue;
      let value: unknown;
      if (isArray) {
        const items = (schema.items ?? {}) as Schema;
        // Exploded (`a=1&a=2`, OpenAPI's default for the form style) or not (`a=1,2`); headers and path: `1,2`.
        const parts = where === 'query' && parameter.explode !== false ? raw : raw.flatMap((part) => part.split(','));
        value = parts.map((part) => coerce(this.contract, part, items));
      } else {
        value = coerce(this.contract, raw[0]!, schema);
      }
      const validate = this.schema(schemaPointer);
      if (!validate(value)) {
        findings.push({ kind: 'parameter-schema', message: `${label}: ${describe(validate.errors, `${where === 'header' ? 'header' : where}.${parameter.name}`)}`, pointer, value: shown });
      }
    }
    const credentials = this.checkSecurity(compiled.security, head, query);
    if (credentials) findings.push(credentials);
    return findings;
  }

  /** The body: its presence, its content type, and a JSON one against the operation's request body schema. */
  checkBody(operation: Operation, head: RequestHead, body: ReceivedBody): Finding<RequestProblemKind>[] {
    const compiled = this.compile(operation);
    const contentType = headerValue(head.headers['content-type']);
    if (body.bytes === 0) {
      return compiled.body?.required ? [{ kind: 'missing-body', message: `the request body is required (${compiled.body.media.map((media) => media.type).join(', ')})`, pointer: '/body' }] : [];
    }
    if (!compiled.body) {
      return [{ kind: 'unexpected-body', message: `${operation.operationId} takes no request body, but ${body.bytes} bytes were sent`, pointer: '/body', ...(body.text !== undefined ? { value: clip(body.text) } : {}) }];
    }
    const declared = compiled.body.media.map((media) => media.type).join(', ');
    if (!contentType) return [{ kind: 'content-type', message: `the request body has no content-type (declared: ${declared})`, pointer: '/headers/content-type' }];
    const [type = '', ...parameters] = contentType.split(';').map((part) => part.trim());
    const media = compiled.body.media.find((candidate) => candidate.type === type.toLowerCase());
    if (!media) return [{ kind: 'content-type', message: `content-type ${contentType} is not declared for the request body (declared: ${declared})`, pointer: '/headers/content-type', value: contentType }];
    if (!JSON_MEDIA.test(media.type) || !media.schemaPointer) return [];
    // JSON is UTF-8 (RFC 8259, section 8.1): a charset other than that is a body the implementation may not read.
    const charset = parameters.map((parameter) => /^charset=(.*)$/i.exec(parameter)?.[1]).find((value) => value !== undefined);
    if (charset !== undefined && charset.replace(/"/g, '').toLowerCase() !== 'utf-8') {
      return [{ kind: 'content-type', message: `content-type ${contentType}: JSON is sent in UTF-8`, pointer: '/headers/content-type', value: contentType }];
    }
    if (body.text === undefined) return [];
    let json: unknown;
    try {
      json = JSON.parse(body.text);
    } catch (error) {
      return [{ kind: 'invalid-json', message: `the request body is not JSON: ${(error as Error).message}`, pointer: '/body', value: clip(body.text) }];
    }
    const validate = this.schema(media.schemaPointer);
    if (validate(json)) return [];
    const errors = (validate.errors ?? []).filter((error) => !readOnlyRequired(this.contract, error));
    if (errors.length === 0) return [];
    return byPointer(errors, json, '/body', 'body', 'body-schema', `the request body does not match the schema of ${operation.operationId}: `);
  }

  /** A request that names no operation of the contract. */
  unknown(head: RequestHead): Finding<RequestProblemKind> {
    const methods = this.methodsOf(head.pathname);
    return {
      kind: 'unknown-operation',
      message: methods.length > 0 ? `${head.method} is not declared for ${head.pathname} (declared: ${methods.join(', ')})` : `no path of the contract matches ${head.pathname}`,
      pointer: '/path',
      value: head.pathname,
    };
  }

  /** The compiled function of the schema at a JSON pointer of the document (cached). */
  schema(pointer: string): ValidateFunction {
    let validate = this.validators.get(pointer);
    if (!validate) {
      validate = this.ajv.getSchema(`${CONTRACT_ID}${pointer}`);
      if (!validate) throw new Error(`no schema at ${pointer} of the contract`);
      this.validators.set(pointer, validate);
    }
    return validate;
  }

  private checkSecurity(alternatives: SecurityScheme[][], head: RequestHead, query: URLSearchParams): Finding<RequestProblemKind> | undefined {
    if (alternatives.length === 0 || alternatives.some((schemes) => schemes.length === 0)) return undefined;
    const authorization = headerValue(head.headers.authorization);
    const cookies = headerValue(head.headers.cookie) ?? '';
    const present = (scheme: SecurityScheme) => {
      if (scheme.kind === 'authorization') return authorization !== undefined && authorization.toLowerCase().startsWith(`${scheme.scheme.toLowerCase()} `);
      if (scheme.in === 'header') return head.headers[scheme.key.toLowerCase()] !== undefined;
      if (scheme.in === 'query') return query.has(scheme.key);
      return cookies.split(';').some((cookie) => cookie.trim().startsWith(`${scheme.key}=`));
    };
    if (alternatives.some((schemes) => schemes.every(present))) return undefined;
    const wanted = alternatives.map((schemes) => schemes.map((scheme) => (scheme.kind === 'authorization' ? `Authorization: ${scheme.scheme} …` : `${scheme.key} (${scheme.in})`)).join(' and ')).join(', or ');
    return {
      kind: 'security',
      message: `the operation needs credentials (${wanted}), and the request has ${authorization === undefined ? 'none' : 'others'}`,
      pointer: '/headers/authorization',
      ...(authorization !== undefined ? { value: authorization.split(' ')[0] } : {}),
    };
  }

  private compile(operation: Operation): Compiled {
    let compiled = this.compiled.get(operation.operationId);
    if (compiled) return compiled;
    const document = this.contract.document;
    const follow = (pointer: string): { pointer: string; value: Record<string, unknown> } => {
      let current = pointer;
      let value = at(document, current) as Record<string, unknown>;
      for (let hops = 0; typeof value?.$ref === 'string' && hops < 32; hops++) {
        current = value.$ref as string;
        value = at(document, current) as Record<string, unknown>;
      }
      return { pointer: current, value };
    };
    // The pointers of the parameter objects, operation ones overriding path-item ones (as contract.ts reads them).
    const pointers = new Map<string, string>();
    const itemPointer = `#/paths/${pointerSegment(operation.path)}`;
    for (const base of [itemPointer, operation.pointer]) {
      const list = (at(document, base) as { parameters?: unknown[] }).parameters ?? [];
      list.forEach((_raw, index) => {
        const { pointer, value } = follow(`${base}/parameters/${index}`);
        pointers.set(`${String(value.in)}:${String(value.name)}`, pointer);
      });
    }
    const parameters = operation.parameters.map((parameter) => {
      const pointer = pointers.get(`${parameter.in}:${parameter.name}`);
      return { parameter, ...(pointer && parameter.schema ? { schemaPointer: `${pointer}/schema` } : {}) };
    });
    const raw = at(document, operation.pointer) as { requestBody?: unknown; security?: Record<string, string[]>[] };
    let body: Compiled['body'];
    if (raw.requestBody) {
      const { pointer, value } = follow(`${operation.pointer}/requestBody`);
      const content = (value.content ?? {}) as Record<string, { schema?: unknown }>;
      body = {
        required: value.required === true,
        media: Object.entries(content).map(([type, media]) => ({
          type: type.toLowerCase(),
          ...(media.schema !== undefined ? { schemaPointer: `${pointer}/content/${pointerSegment(type)}/schema` } : {}),
        })),
      };
    }
    const requirements = raw.security ?? (document.security as Record<string, string[]>[] | undefined) ?? [];
    const schemes = (document.components?.securitySchemes ?? {}) as Record<string, Record<string, unknown>>;
    const security = requirements.map((requirement) =>
      Object.keys(requirement).flatMap((name): SecurityScheme[] => {
        const scheme = this.contract.resolve(schemes[name]);
        if (!scheme) return [];
        if (scheme.type === 'http') return [{ name, kind: 'authorization', scheme: String(scheme.scheme ?? 'Bearer') }];
        if (scheme.type === 'apiKey') return [{ name, kind: 'apiKey', in: scheme.in as 'header' | 'query' | 'cookie', key: String(scheme.name) }];
        // OAuth 2 and OpenID Connect tokens are bearer tokens (RFC 6750); mutual TLS is not seen in HTTP.
        if (scheme.type === 'oauth2' || scheme.type === 'openIdConnect') return [{ name, kind: 'authorization', scheme: 'Bearer' }];
        return [];
      }),
    );
    compiled = { parameters, ...(body ? { body } : {}), security };
    this.compiled.set(operation.operationId, compiled);
    return compiled;
  }
}

/** The route of an operation: its template as a regular expression over the percent-encoded path. */
function route(operation: Operation): Route {
  const names: string[] = [];
  const rank: number[] = [];
  const segments = operation.path.split('/').map((segment) => {
    const parts = segment.split(/(\{[^}]+\})/).filter(Boolean);
    const parameters = parts.filter((part) => part.startsWith('{'));
    rank.push(parameters.length === 0 ? 0 : parts.length === 1 ? 2 : 1);
    return parts
      .map((part) => {
        if (!part.startsWith('{')) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        names.push(part.slice(1, -1));
        return '([^/]+)';
      })
      .join('');
  });
  return { operation, pattern: new RegExp(`^${segments.join('/')}$`), names, rank };
}

function compareRank(a: number[], b: number[]): number {
  for (let index = 0; index < Math.min(a.length, b.length); index++) if (a[index] !== b[index]) return a[index]! - b[index]!;
  return a.length - b.length;
}

/** The JSON types a schema admits (following references and combinations), for reading a parameter's text. */
function typesOf(contract: Contract, schema: Schema, depth = 0): Set<string> {
  const types = new Set<string>();
  if (depth > 16) return types;
  const resolved = contract.resolve(schema);
  for (const type of [resolved.type ?? []].flat()) types.add(type);
  const literal = (value: unknown) => types.add(value === null ? 'null' : Number.isInteger(value) ? 'integer' : typeof value);
  if (resolved.const !== undefined) literal(resolved.const);
  for (const value of (resolved.enum as unknown[] | undefined) ?? []) literal(value);
  for (const branch of [...(resolved.allOf ?? []), ...(resolved.anyOf ?? []), ...(resolved.oneOf ?? [])]) for (const type of typesOf(contract, branch, depth + 1)) types.add(type);
  return types;
}

/** A parameter's text as the value its schema names: a number in number syntax, true/false; else the text. */
function coerce(contract: Contract, text: string, schema: Schema): unknown {
  const types = typesOf(contract, schema);
  if ((types.has('integer') || types.has('number')) && NUMBER.test(text)) return Number(text);
  if (types.has('boolean') && (text === 'true' || text === 'false')) return text === 'true';
  return text;
}

/** A required property that the schema marks read-only: a request leaves it out (OpenAPI 3.1, `readOnly`). */
function readOnlyRequired(contract: Contract, error: ErrorObject): boolean {
  if (error.keyword !== 'required') return false;
  const missing = (error.params as { missingProperty?: string }).missingProperty;
  const property = missing === undefined ? undefined : (error.parentSchema as Schema | undefined)?.properties?.[missing];
  return property !== undefined && contract.resolve(property).readOnly === true;
}

/** The value at a JSON pointer of a value (undefined when there is none). */
export function valueAt(value: unknown, pointer: string): unknown {
  let current = value;
  for (const raw of pointer.split('/').slice(1)) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[raw.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return current;
}

/**
 * Ajv errors as findings, one per JSON pointer of the value (an unknown or missing property points at itself), with
 * the value found there; at most MAX_FINDINGS, the last one saying how many more there were.
 */
export function byPointer<Kind extends string>(errors: ErrorObject[], json: unknown, base: string, root: string, kind: Kind, lead: string): Finding<Kind>[] {
  const groups = new Map<string, ErrorObject[]>();
  for (const raw of errors) {
    // A sealed object (`unevaluatedProperties: {not: {}}`) refuses an undeclared property with `not`: say so.
    const error = /\/unevaluatedProperties\/not$/.test(raw.schemaPath) ? { ...raw, message: 'is not a property the schema declares (the object is sealed)' } : raw;
    const params = error.params as { missingProperty?: string; unevaluatedProperty?: string; additionalProperty?: string };
    const property = params.missingProperty ?? params.unevaluatedProperty ?? params.additionalProperty;
    const pointer = property === undefined ? error.instancePath : `${error.instancePath}/${pointerSegment(property)}`;
    groups.set(pointer, [...(groups.get(pointer) ?? []), error]);
  }
  // An anyOf or oneOf that failed because of what is wrong deeper inside says nothing more than that.
  for (const [pointer, list] of groups) {
    const combination = list.every((error) => error.keyword === 'anyOf' || error.keyword === 'oneOf');
    if (combination && [...groups.keys()].some((other) => other.startsWith(`${pointer}/`))) groups.delete(pointer);
  }
  if (groups.size === 0) return [{ kind, message: `${lead}invalid`, pointer: base, value: clipValue(json) }];
  // The most specific first (a wrong field before the anyOf around it that fails because of it).
  const sorted = [...groups].sort(([a], [b]) => b.length - a.length);
  const findings = sorted.slice(0, MAX_FINDINGS).map(([pointer, list]): Finding<Kind> => {
    const value = valueAt(json, pointer);
    return { kind, message: `${lead}${describe(list, root)}`, pointer: `${base}${pointer}`, ...(value !== undefined ? { value: clipValue(value) } : {}) };
  });
  if (sorted.length > MAX_FINDINGS) findings.at(-1)!.message += `; and ${sorted.length - MAX_FINDINGS} more places`;
  return findings;
}

export const headerValue = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value.join(', ') : value);

const clip = (text: string) => (text.length > 200 ? `${text.slice(0, 200)}…` : text);

/** A value as a report shows it: long text and large structures clipped. */
function clipValue(value: unknown): unknown {
  if (typeof value === 'string') return clip(value);
  if (value !== null && typeof value === 'object' && JSON.stringify(value).length > 400) return `${JSON.stringify(value).slice(0, 400)}…`;
  return value;
}
