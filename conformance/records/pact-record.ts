// A Pact file (specification 2, 3 or 4; HTTP interactions) read as a usage record against a contract: each interaction
// matched to an operation by method and path, its request what was sent, its response what the consumer relies on (a
// pact holds only what its test asserted: those are its reads). Detecting a pact by its shape is `isPact`, here only;
// docs/contract-consumers.md, "Pact files as records", says what is read of each version and what is not.
import { contractIdentity } from './consumer.ts';
import { type Contract, declaredResponse, type Operation } from '../contract/contract.ts';
import { authenticatedBy, typeAllowed, usageOf, type Exchange } from './usage-fields.ts';
import { emptyOperationUsage, emptyUsage, isObject, mergeOperationUsage, type Facts, type ResponseUsage, type UsageRecord, UsageRecordError } from './usage-format.ts';

/** One HTTP interaction of a pact, in one form whatever the specification: names of headers in lower case. */
export interface PactInteraction {
  description: string;
  method: string;
  path: string;
  query: URLSearchParams;
  requestHeaders: Record<string, string>;
  request?: { mediaType: string; body: unknown };
  status: number;
  responseHeaders: Record<string, string>;
  response?: { mediaType: string; body: unknown };
}

/** A Pact file read: its consumer, its specification version, its HTTP interactions, and what of it was left out. */
export interface PactFile {
  consumer: string;
  provider: string;
  specification: number;
  interactions: PactInteraction[];
  /** What was not read, one line each: a message interaction, a message pact. */
  skipped: string[];
}

const metadataOf = (value: Record<string, unknown>) => (isObject(value.metadata) ? value.metadata : isObject(value.metaData) ? value.metaData : undefined);

/**
 * Whether a parsed JSON file is a Pact file: a consumer and a provider with names, and interactions (or a message
 * pact's messages); its metadata, where it has any, names the Pact specification.
 */
export function isPact(value: unknown): value is Record<string, unknown> {
  if (!isObject(value) || !isObject(value.consumer) || !isObject(value.provider) || typeof value.consumer.name !== 'string') return false;
  if (!Array.isArray(value.interactions) && !Array.isArray(value.messages)) return false;
  // A usage record has a format of its own; a pact's metadata, where it has any, names the specification.
  const metadata = metadataOf(value);
  return value.format === undefined && (metadata === undefined || isObject(metadata.pactSpecification) || isObject(metadata['pact-specification']) || metadata.pactSpecificationVersion !== undefined);
}

/** The major version of the Pact specification a pact names (`metadata.pactSpecification.version` and its older spellings); 2 when it names none. */
function specificationOf(value: Record<string, unknown>): number {
  const metadata = metadataOf(value) ?? {};
  const named = [metadata.pactSpecification, metadata['pact-specification']].map((each) => (isObject(each) ? each.version : undefined)).find((each) => each !== undefined) ?? metadata.pactSpecificationVersion;
  const major = Number.parseInt(String(named ?? '2'), 10);
  return Number.isFinite(major) ? major : 2;
}

const JSON_MEDIA = /^application\/(.+\+)?json$/;
const mediaTypeOf = (contentType: string | undefined) => contentType?.split(';')[0]!.trim().toLowerCase() || undefined;

/** Headers as one map, names in lower case: a v4 header's list of values joined as HTTP joins them. */
function headersOf(value: unknown): Record<string, string> {
  const headers: Record<string, string> = {};
  if (!isObject(value)) return headers;
  for (const [name, header] of Object.entries(value)) headers[name.toLowerCase()] = Array.isArray(header) ? header.map(String).join(', ') : String(header);
  return headers;
}

/** The query: a string in specification 1 and 2, a map of lists of values in 3 and 4. */
function queryOf(value: unknown): URLSearchParams {
  if (typeof value === 'string') return new URLSearchParams(value);
  const query = new URLSearchParams();
  if (isObject(value)) for (const [name, values] of Object.entries(value)) for (const each of Array.isArray(values) ? values : [values]) query.append(name, String(each));
  return query;
}

/**
 * A body and its media type: in specification 4 `{content, contentType, encoded}` (content JSON as it is, or text,
 * `encoded` naming base64 or JSON text), before it the value itself, its media type the Content-Type header's (JSON when
 * it names none and the value is not text). A body that is not JSON keeps its media type only.
 */
function bodyOf(value: unknown, headers: Record<string, string>, specification: number): { mediaType: string; body: unknown } | undefined {
  let content = value;
  let mediaType = mediaTypeOf(headers['content-type']);
  if (specification >= 4 && isObject(value) && 'content' in value) {
    mediaType = mediaTypeOf(typeof value.contentType === 'string' ? value.contentType : undefined) ?? mediaType;
    content = value.content;
    const encoded = typeof value.encoded === 'string' ? value.encoded.toLowerCase() : value.encoded;
    if (typeof content === 'string' && encoded && encoded !== 'json') content = Buffer.from(content, encoded === true ? 'base64' : (encoded as BufferEncoding)).toString('utf8');
    if (typeof content === 'string' && (encoded === 'json' || (mediaType && JSON_MEDIA.test(mediaType)))) {
      try {
        content = JSON.parse(content) as unknown;
      } catch {
        return { mediaType: mediaType ?? 'application/json', body: undefined };
      }
    }
  }
  if (content === undefined) return mediaType ? { mediaType, body: undefined } : undefined;
  mediaType ??= typeof content === 'string' ? 'text/plain' : 'application/json';
  return { mediaType, body: JSON_MEDIA.test(mediaType) ? content : undefined };
}

/** The HTTP interactions of a pact, whatever its specification; anything else named in `skipped`. */
export function readPact(value: Record<string, unknown>, source: string): PactFile {
  const specification = specificationOf(value);
  const skipped: string[] = [];
  const interactions: PactInteraction[] = [];
  if (Array.isArray(value.messages)) skipped.push(`${source}: a message pact (${value.messages.length} messages): only HTTP interactions are read`);
  for (const [index, raw] of (Array.isArray(value.interactions) ? value.interactions : []).entries()) {
    const description = isObject(raw) && typeof raw.description === 'string' ? raw.description : `interaction ${index + 1}`;
    if (!isObject(raw) || (raw.type !== undefined && raw.type !== 'Synchronous/HTTP')) {
      skipped.push(`${source}: "${description}" is ${isObject(raw) && typeof raw.type === 'string' ? `of type ${raw.type}` : 'not an interaction'}: only HTTP interactions are read`);
      continue;
    }
    const request = isObject(raw.request) ? raw.request : {};
    const response = isObject(raw.response) ? raw.response : {};
    if (typeof request.method !== 'string' || typeof request.path !== 'string' || typeof response.status !== 'number') {
      throw new UsageRecordError(source, `not a valid Pact file: interaction "${description}" has no request method and path, or no response status`);
    }
    const requestHeaders = headersOf(request.headers);
    const responseHeaders = headersOf(response.headers);
    const sent = bodyOf(request.body, requestHeaders, specification);
    const answered = bodyOf(response.body, responseHeaders, specification);
    interactions.push({
      description,
      method: request.method.toLowerCase(),
      path: request.path,
      query: queryOf(request.query),
      requestHeaders,
      ...(sent ? { request: sent } : {}),
      status: response.status,
      responseHeaders,
      ...(answered ? { response: answered } : {}),
    });
  }
  return { consumer: String((value.consumer as { name: string }).name), provider: String((value.provider as { name?: unknown }).name ?? ''), specification, interactions, skipped };
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The operations of a contract by method, each with a pattern of its path; literal segments first, so that `/spaces/search` wins over `/spaces/{id}`. */
function routesOf(contract: Contract): { operation: Operation; pattern: RegExp; names: string[] }[] {
  return [...contract.operations.values()]
    .map((operation) => {
      const names = [...operation.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);
      const pattern = new RegExp(`^${operation.path.split(/\{[^}]+\}/).map(escape).join('([^/]+)')}/?$`);
      return { operation, pattern, names };
    })
    .sort((a, b) => a.names.length - b.names.length);
}

/** The path prefixes of the contract's servers (`/v1` of `https://api.example.com/v1`), to match a pact that names them. */
function serverPrefixes(contract: Contract): string[] {
  const servers = (contract.document.servers as { url?: string }[] | undefined) ?? [];
  return servers.flatMap(({ url }) => {
    const pathname = url === undefined ? '' : (/^[a-z]+:\/\/[^/]+(\/.*)?$/i.exec(url)?.[1] ?? (url.startsWith('/') ? url : ''));
    return pathname && pathname !== '/' ? [pathname.replace(/\/+$/, '')] : [];
  });
}

/** The operation an interaction calls, by method and path, with its path parameters; undefined when none. */
function matchOperation(contract: Contract, method: string, path: string): { operation: Operation; pathParams: Record<string, string> } | undefined {
  const routes = routesOf(contract);
  const candidates = [path, ...serverPrefixes(contract).filter((prefix) => path.startsWith(`${prefix}/`)).map((prefix) => path.slice(prefix.length))];
  for (const candidate of candidates) {
    for (const route of routes) {
      if (route.operation.method !== method) continue;
      const match = route.pattern.exec(candidate);
      if (!match) continue;
      let decoded: string[];
      try {
        decoded = match.slice(1).map((each) => decodeURIComponent(each));
      } catch {
        decoded = match.slice(1);
      }
      return { operation: route.operation, pathParams: Object.fromEntries(route.names.map((name, index) => [name, decoded[index]!])) };
    }
  }
  return undefined;
}

/** The exchange an interaction is, to the recorders' code (usage-fields.ts). */
function exchangeOf(contract: Contract, operation: Operation, pathParams: Record<string, string>, interaction: PactInteraction): Exchange {
  const parameters: Exchange['parameters'] = Object.entries(pathParams).map(([name, value]) => ({ in: 'path', name, value }));
  for (const name of new Set(interaction.query.keys())) parameters.push({ in: 'query', name, value: interaction.query.getAll(name) });
  for (const declared of operation.parameters) {
    const value = declared.in === 'header' ? interaction.requestHeaders[declared.name.toLowerCase()] : undefined;
    if (value !== undefined) parameters.push({ in: 'header', name: declared.name, value });
  }
  return {
    operation,
    parameters,
    ...(interaction.request ? { request: interaction.request } : {}),
    status: interaction.status,
    ...(interaction.response ? { response: interaction.response } : {}),
    security: authenticatedBy(contract, operation, { headers: interaction.requestHeaders, query: interaction.query }),
    responseHeaders: Object.keys(interaction.responseHeaders),
  };
}

/** Headers of HTTP itself, which a pact may assert and no contract declares. */
const HTTP_HEADERS = /^(content-(type|length|encoding|language)|date|connection|keep-alive|transfer-encoding|server|vary|cache-control|pragma|expires|age|access-control-.*|strict-transport-security|x-powered-by)$/;

/**
 * What a pact's answer says the consumer relies on: every field and header it holds is read (its test asserted it); where the
 * contract read against allows a type, a length or a number the asserted value is not, the consumer's promise is the
 * value's, not the contract's, so that a contract that gives otherwise breaks it.
 */
function asRead(answer: ResponseUsage, operation: Operation, interaction: PactInteraction): void {
  answer.read = [...answer.present];
  // A header it asserts is one it relies on, declared or not (HTTP's own headers aside).
  const declared = new Set(Object.keys(declaredResponse(operation, interaction.status)?.response.headers ?? {}));
  const relied = Object.keys(interaction.responseHeaders).filter((name) => declared.has(name) || !HTTP_HEADERS.test(name));
  if (relied.length > 0) answer.headers = [...new Set([...(answer.headers ?? []), ...relied])].sort();
  for (const [pointer, promise] of Object.entries(answer.promised ?? {})) {
    const facts: Facts = answer.facts?.[pointer] ?? {};
    const types = facts.types ?? [];
    if (promise.types && types.some((type) => !typeAllowed(promise.types!, type))) {
      promise.types = [...types];
      delete promise.format;
    }
    if (facts.numbers && ((promise.minimum !== undefined && facts.numbers[0] < promise.minimum) || (promise.maximum !== undefined && facts.numbers[1] > promise.maximum))) {
      delete promise.minimum;
      delete promise.maximum;
    }
    if (facts.lengths && promise.maxLength !== undefined && facts.lengths[1] > promise.maxLength) delete promise.maxLength;
  }
}

/** What a pact read as a record gives: the record, and the interactions that match no operation of the contract, named. */
export interface PactRecord {
  record: UsageRecord;
  /** `"get a space" (GET /spaces/s1): no operation of the contract`: each is in the record as a call of a path that is no operation. */
  unmatched: string[];
  skipped: string[];
}

/**
 * A pact read as a usage record against `contract` (the contract its consumer's tests were written against, where it
 * is known; else the one it is judged against): made by the recorders' own code, `recordedBy` `pact`, of the
 * consumer the pact names, without a version (a Pact file names none). An interaction that matches no operation is
 * kept as a use of its method and path, which the contract alone judges (it is no operation), and named in `unmatched`.
 */
export function pactRecord(pact: PactFile, contract: Contract): PactRecord {
  const record = emptyUsage({ name: pact.consumer }, contractIdentity(contract), 'pact');
  const unmatched: string[] = [];
  for (const interaction of pact.interactions) {
    const found = matchOperation(contract, interaction.method, interaction.path);
    if (!found) {
      const call = `${interaction.method.toUpperCase()} ${interaction.path}`;
      unmatched.push(`"${interaction.description}" (${call}): no operation of the contract`);
      const usage = emptyOperationUsage();
      Object.assign(usage, { calls: 1, method: interaction.method, path: interaction.path });
      mergeOperationUsage((record.operations[call] ??= emptyOperationUsage()), usage);
      continue;
    }
    const exchange = exchangeOf(contract, found.operation, found.pathParams, interaction);
    // Credentials of a kind no scheme of the contract takes: named by what they are, so that the contract refuses them.
    const authorization = interaction.requestHeaders.authorization;
    if (exchange.security?.length === 0 && authorization) exchange.security = [`Authorization: ${authorization.split(' ')[0]}`];
    const usage = usageOf(contract, exchange);
    for (const answer of Object.values(usage.responses)) asRead(answer, found.operation, interaction);
    mergeOperationUsage((record.operations[found.operation.operationId] ??= emptyOperationUsage()), usage);
  }
  return { record, unmatched, skipped: pact.skipped };
}
