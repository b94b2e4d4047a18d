// A consumer's usage record: what one consumer's tests used of the contract, per operation (docs/consumers.md gives
// the format). Records of one consumer merge by union, across test files and workers; reading one checks its format
// and version and fails on anything else. No imports: the runner's bundle and the server's harness share it.

/** The format's name and the version this code writes; it reads this one and version 1 (which keeps no facts). */
export const USAGE_FORMAT = 'docs-platform-usage';
export const USAGE_VERSION = 2;
/** The oldest version still read: version 1 keeps no facts (types, lengths, ranges), no security and no headers. */
export const OLDEST_USAGE_VERSION = 1;

/** The least and the most seen. */
export type Span = [number, number];

/**
 * The shape of what was seen at a place, never a value: its JSON types (`integer` for whole numbers, `null` when
 * null was seen), the least and most length of its strings, the least and most of its numbers, the least and most
 * size of its arrays.
 */
export interface Facts {
  types?: string[];
  lengths?: Span;
  numbers?: Span;
  sizes?: Span;
}

/** A field or parameter sent: its facts, and the values seen where the contract declares an enum for it, sorted. */
export interface Used extends Facts {
  values?: (string | number | boolean)[];
}

/**
 * What the contract promised of a response field when the record was made, which the consumer's code may rely on:
 * whether it was required (all the way from the body), the JSON types it allowed, its format, its numbers' bounds.
 */
export interface Promised {
  required?: boolean;
  types?: string[];
  format?: string;
  minimum?: number;
  maximum?: number;
  maxLength?: number;
}

export interface ResponseUsage {
  /** Response fields present in what the consumer received, as JSON pointers (`*` for every item of an array). */
  present: string[];
  /**
   * Response fields the consumer relies on, as pointers: those its code read (the typed client's recording mode), and,
   * once merged with uses whose reads were not recorded (the harness's, the proxy's), what those received. Absent
   * where no call's reads were recorded: then every field `present` is relied on.
   */
  read?: string[];
  /**
   * Of `read`, the fields no recorded read saw, counted as read because calls whose reads were not recorded received
   * them (`[]`: there were such calls, and what they received the code was seen reading). Absent where every call's
   * reads were recorded, or none's. Kept by merges, so that a merged record never relies on less than its parts.
   */
  assumedRead?: string[];
  /** Values received of enumerated response fields, by pointer. */
  values?: Record<string, (string | number | boolean)[]>;
  /** The component schemas the contract declares at each pointer (`/items/*`: `Space`), to place a change of one; of a oneOf or anyOf, the members the answer was. */
  schemas?: Record<string, string[]>;
  /** At each pointer that is a oneOf or anyOf: the names of every named member the contract declared there, whichever the answer was. */
  choices?: Record<string, string[]>;
  /** The facts of each field received, by pointer (version 2). */
  facts?: Record<string, Facts>;
  /** What the contract promised of each field received, by pointer (version 2). */
  promised?: Record<string, Promised>;
  /** The declared response headers received, lower case, and those of them the contract required (version 2). */
  headers?: string[];
  requiredHeaders?: string[];
}

export interface OperationUsage {
  /** The operation's method and path template when recorded: a record is matched to a contract's operation by them (version 2). */
  method?: string;
  path?: string;
  /** The security schemes whose credentials the requests carried (version 2; `[]`: none). */
  security?: string[];
  /** The defaults the contract declared for the parameters the consumer left out, by key (`query.limit`): what it relied on (version 2). */
  defaults?: Record<string, unknown>;
  /** Requests sent. */
  calls: number;
  /** Parameters sent, as `path.spaceId`, `query.limit`, `header.if-match`. */
  parameters: Record<string, Used>;
  /** Request body fields sent, as JSON pointers (`*` for every item of an array), with the media type in `mediaTypes`. */
  body: Record<string, Used>;
  /** Request media types sent. */
  mediaTypes: string[];
  /** The component schemas the contract declares at each pointer of the request body sent. */
  bodySchemas?: Record<string, string[]>;
  /** What came back, by status and media type: `200 application/json`, `204`. */
  responses: Record<string, ResponseUsage>;
  /**
   * What it used that the contract deprecates: `operation`, `parameter query.name`, `body /pointer`, `response
   * /pointer` (version 2; absent when nothing). Kept whole wherever the rest of a record is summarised.
   */
  deprecated?: string[];
}

export interface UsageRecord {
  format: typeof USAGE_FORMAT;
  /** The format's version: 2 is written; a version-1 record is read as it is, without what version 2 adds. */
  version: number;
  /** Who used it: the consumer's package name by default, its version, and its git commit where there is one. */
  consumer: { name: string; version?: string; commit?: string };
  /** The contract the record was made against: its info.version and the SHA-256 of its document. */
  contract: { version: string; sha256?: string };
  /** What wrote it: the harness, the proxy, the client's recording mode, a Pact file read as a record (several once merged). */
  recordedBy: ('harness' | 'proxy' | 'client' | 'pact')[];
  operations: Record<string, OperationUsage>;
}

/** A record that cannot be read: names where it came from and what is wrong. */
export class UsageRecordError extends Error {
  constructor(source: string, problem: string) {
    super(`${source}: ${problem}`);
    this.name = 'UsageRecordError';
  }
}

export function emptyUsage(consumer: UsageRecord['consumer'], contract: UsageRecord['contract'], recordedBy: UsageRecord['recordedBy'][number]): UsageRecord {
  return { format: USAGE_FORMAT, version: USAGE_VERSION, consumer, contract, recordedBy: [recordedBy], operations: {} };
}

export const emptyOperationUsage = (): OperationUsage => ({ calls: 0, parameters: {}, body: {}, mediaTypes: [], responses: {} });

const sortedUnion = <T extends string | number | boolean>(a: readonly T[] = [], b: readonly T[] = []): T[] =>
  [...new Set([...a, ...b])].sort((x, y) => String(x).localeCompare(String(y)));

const spanUnion = (a: Span | undefined, b: Span | undefined): Span | undefined => (a && b ? [Math.min(a[0], b[0]), Math.max(a[1], b[1])] : (a ?? b));

/** Adds `from`'s facts to `into`'s: types united, spans widened. */
export function mergeFacts(into: Facts, from: Facts): void {
  if (from.types || into.types) into.types = sortedUnion(into.types, from.types);
  for (const key of ['lengths', 'numbers', 'sizes'] as const) {
    const span = spanUnion(into[key], from[key]);
    if (span) into[key] = span;
  }
}

function mergeUsed(into: Record<string, Used>, from: Record<string, Used>): void {
  for (const [key, used] of Object.entries(from)) {
    const current = (into[key] ??= {});
    if (used.values || current.values) current.values = sortedUnion(current.values, used.values);
    mergeFacts(current, used);
  }
}

function mergeFactMaps(into: Record<string, Facts> | undefined, from: Record<string, Facts> | undefined): Record<string, Facts> | undefined {
  if (!from) return into;
  const merged = into ?? {};
  for (const [pointer, facts] of Object.entries(from)) mergeFacts((merged[pointer] ??= {}), facts);
  return merged;
}

/** Two promises of one field (of one contract document): the weaker of each. */
function mergePromised(into: Record<string, Promised> | undefined, from: Record<string, Promised> | undefined): Record<string, Promised> | undefined {
  if (!from) return into;
  const merged = into ?? {};
  for (const [pointer, promise] of Object.entries(from)) {
    const current = merged[pointer];
    if (!current) merged[pointer] = { ...promise };
    else {
      if (!promise.required) delete current.required;
      if (current.types && promise.types) current.types = sortedUnion(current.types, promise.types);
      else delete current.types;
      if (current.format !== promise.format) delete current.format;
      if (current.minimum === undefined || promise.minimum === undefined) delete current.minimum;
      else current.minimum = Math.min(current.minimum, promise.minimum);
      if (current.maximum === undefined || promise.maximum === undefined) delete current.maximum;
      else current.maximum = Math.max(current.maximum, promise.maximum);
      if (current.maxLength === undefined || promise.maxLength === undefined) delete current.maxLength;
      else current.maxLength = Math.max(current.maxLength, promise.maxLength);
    }
  }
  return merged;
}

function mergeLists<T extends string | number | boolean>(into: Record<string, T[]> | undefined, from: Record<string, T[]> | undefined): Record<string, T[]> | undefined {
  if (!from) return into;
  const merged = into ?? {};
  for (const [pointer, values] of Object.entries(from)) merged[pointer] = sortedUnion(merged[pointer], values);
  return merged;
}

/**
 * What an answer's use knows of its reads: `seen`, the fields its code was seen reading (undefined: no call's reads
 * were recorded); `unseen`, the fields calls whose reads were not recorded received (undefined: there were none).
 */
function readsOf(answer: ResponseUsage): { seen?: string[]; unseen?: string[] } {
  if (answer.read === undefined) return { unseen: answer.present };
  const assumed = new Set(answer.assumedRead ?? []);
  return { seen: answer.read.filter((pointer) => !assumed.has(pointer)), ...(answer.assumedRead ? { unseen: answer.assumedRead } : {}) };
}

/**
 * Two answers' reads merged, never relying on less than either, and keeping which calls' reads were seen: what the
 * code was seen reading, and what calls whose reads were not recorded (the harness's, the proxy's) received, which
 * counts as read (`assumedRead`, where no recorded read saw it). Without a recorded read on either side, there is no
 * `read`: every field present is relied on.
 */
function mergeReads(into: ResponseUsage, from: ResponseUsage): void {
  const [mine, theirs] = [readsOf(into), readsOf(from)];
  if (!mine.seen && !theirs.seen) {
    delete into.read;
    delete into.assumedRead;
    return;
  }
  const seen = sortedUnion(mine.seen, theirs.seen);
  const unseen = mine.unseen || theirs.unseen ? sortedUnion(mine.unseen, theirs.unseen) : undefined;
  into.read = sortedUnion(seen, unseen);
  if (unseen) into.assumedRead = unseen.filter((pointer) => !seen.includes(pointer));
  else delete into.assumedRead;
}

/** Two answers' uses merged: reads by `mergeReads`, the rest by union (promises: the weaker). */
function mergeResponse(into: ResponseUsage, from: ResponseUsage): void {
  mergeReads(into, from);
  into.present = sortedUnion(into.present, from.present);
  const values = mergeLists(into.values, from.values);
  if (values) into.values = values;
  const schemas = mergeLists(into.schemas, from.schemas);
  if (schemas) into.schemas = schemas;
  const choices = mergeLists(into.choices, from.choices);
  if (choices) into.choices = choices;
  const facts = mergeFactMaps(into.facts, from.facts);
  if (facts) into.facts = facts;
  const promised = mergePromised(into.promised, from.promised);
  if (promised) into.promised = promised;
  if (from.headers || into.headers) into.headers = sortedUnion(into.headers, from.headers);
  if (from.requiredHeaders || into.requiredHeaders) into.requiredHeaders = sortedUnion(into.requiredHeaders, from.requiredHeaders);
}

/** Adds `from`'s usage of an operation to `into`'s. */
export function mergeOperationUsage(into: OperationUsage, from: OperationUsage): void {
  into.calls += from.calls;
  if (from.method !== undefined) into.method ??= from.method;
  if (from.path !== undefined) into.path ??= from.path;
  if (from.security || into.security) into.security = sortedUnion(into.security, from.security);
  if (from.defaults) into.defaults = { ...from.defaults, ...into.defaults };
  mergeUsed(into.parameters, from.parameters);
  mergeUsed(into.body, from.body);
  into.mediaTypes = sortedUnion(into.mediaTypes, from.mediaTypes);
  const bodySchemas = mergeLists(into.bodySchemas, from.bodySchemas);
  if (bodySchemas) into.bodySchemas = bodySchemas;
  for (const [key, response] of Object.entries(from.responses)) {
    // An answer new to `into` is taken as it is: merged into an empty one, it would seem to have had calls without reads.
    const current = into.responses[key];
    if (current) mergeResponse(current, response);
    else into.responses[key] = structuredClone(response);
  }
  if (from.deprecated || into.deprecated) into.deprecated = sortedUnion(into.deprecated, from.deprecated);
}

/** A record and where it came from (a file, a URL, `this run's record`), to name it when it does not merge. */
export interface NamedUsage {
  record: UsageRecord;
  source: string;
}

/**
 * The union of records of one consumer (its name; the version and commit of the first that has them) made against one
 * contract document (its version, and its SHA-256 where both records give one): records of two workers, two test files,
 * two CI jobs, or the harness's and the client's. A record of another consumer, contract version or document is a
 * UsageRecordError naming its source and the first record's.
 */
export function mergeNamedUsage(first: NamedUsage, ...others: NamedUsage[]): UsageRecord {
  const merged: UsageRecord = structuredClone(first.record);
  for (const { record, source } of others) {
    if (record.consumer.name !== merged.consumer.name) {
      throw new UsageRecordError(source, `records of two consumers, ${merged.consumer.name} and ${record.consumer.name} (${first.source} is ${merged.consumer.name}'s)`);
    }
    if (record.contract.version !== merged.contract.version) {
      throw new UsageRecordError(source, `records of ${merged.consumer.name} against two contract versions, ${merged.contract.version} and ${record.contract.version} (${first.source} is of ${merged.contract.version})`);
    }
    if (record.contract.sha256 && merged.contract.sha256 && record.contract.sha256 !== merged.contract.sha256) {
      throw new UsageRecordError(
        source,
        `records of ${merged.consumer.name} against two documents of contract ${merged.contract.version}, SHA-256 ${merged.contract.sha256.slice(0, 12)}… and ${record.contract.sha256.slice(0, 12)}… (${first.source} is of the first)`,
      );
    }
    merged.consumer.version ??= record.consumer.version;
    merged.consumer.commit ??= record.consumer.commit;
    merged.contract.sha256 ??= record.contract.sha256;
    merged.recordedBy = sortedUnion(merged.recordedBy, record.recordedBy);
    // A version-1 record keeps no facts: what is merged with one holds facts of part of the use only, as version 1.
    merged.version = Math.min(merged.version, record.version);
    for (const [operationId, usage] of Object.entries(record.operations)) {
      mergeOperationUsage((merged.operations[operationId] ??= emptyOperationUsage()), usage);
    }
  }
  return merged;
}

/** mergeNamedUsage of records without a source: the first is `record 1`, the next `record 2`, and so on. */
export function mergeUsage(first: UsageRecord, ...others: UsageRecord[]): UsageRecord {
  return mergeNamedUsage({ record: first, source: 'record 1' }, ...others.map((record, index) => ({ record, source: `record ${index + 2}` })));
}

/** A JSON object (not an array, not null). */
export const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isScalar = (value: unknown): value is string | number | boolean => ['string', 'number', 'boolean'].includes(typeof value);
const isStrings = (value: unknown): value is string[] => Array.isArray(value) && value.every((item) => typeof item === 'string');

/** Each problem of `value` as a usage record, as `where: what`. */
function problemsOf(value: unknown): string[] {
  if (!isObject(value)) return ['the record is not a JSON object'];
  const problems: string[] = [];
  if (!isObject(value.consumer) || typeof value.consumer.name !== 'string' || value.consumer.name === '') problems.push('consumer.name: missing');
  if (!isObject(value.contract) || typeof value.contract.version !== 'string') problems.push('contract.version: missing');
  if (!isStrings(value.recordedBy)) problems.push('recordedBy: not a list of names');
  if (!isObject(value.operations)) return [...problems, 'operations: not an object'];
  for (const [operationId, usage] of Object.entries(value.operations)) {
    const at = `operations.${operationId}`;
    if (!isObject(usage)) {
      problems.push(`${at}: not an object`);
      continue;
    }
    if (typeof usage.calls !== 'number' || !Number.isInteger(usage.calls) || usage.calls < 0) problems.push(`${at}.calls: not a count`);
    for (const part of ['parameters', 'body'] as const) {
      const used = usage[part];
      if (!isObject(used)) problems.push(`${at}.${part}: not an object`);
      else for (const [key, entry] of Object.entries(used)) if (!isObject(entry) || (entry.values !== undefined && !(Array.isArray(entry.values) && entry.values.every(isScalar)))) problems.push(`${at}.${part}.${key}: not a use`);
    }
    if (!isStrings(usage.mediaTypes)) problems.push(`${at}.mediaTypes: not a list of media types`);
    if (usage.deprecated !== undefined && !isStrings(usage.deprecated)) problems.push(`${at}.deprecated: not a list of uses`);
    if (!isObject(usage.responses)) problems.push(`${at}.responses: not an object`);
    else {
      for (const [key, response] of Object.entries(usage.responses)) {
        const pointers = (value: unknown) => value === undefined || isStrings(value);
        if (!isObject(response) || !isStrings(response.present) || !pointers(response.read) || !pointers(response.assumedRead)) problems.push(`${at}.responses.${key}: not a response's use`);
      }
    }
  }
  return problems;
}

/** How many of a malformed record's problems its error names: one line, which a command prints as it is. */
const MAX_PROBLEMS = 5;

/**
 * The usage record in `text` (a file's content, from `source`: a path or a URL), checked: a broken file, another
 * format, a version this code does not read (a newer one: upgrade the package that reads it) or a malformed record is
 * a UsageRecordError naming the source and its problems, in one line; never a record read in part.
 */
export function parseUsageRecord(text: string, source: string): UsageRecord {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageRecordError(source, `not JSON (${(error as Error).message})`);
  }
  if (!isObject(value) || value.format !== USAGE_FORMAT) throw new UsageRecordError(source, `not a usage record (its "format" is not "${USAGE_FORMAT}")`);
  if (typeof value.version !== 'number' || !Number.isInteger(value.version)) throw new UsageRecordError(source, 'its "version" is not a whole number');
  if (value.version > USAGE_VERSION) {
    throw new UsageRecordError(source, `written in version ${value.version} of the format; this reads version ${USAGE_VERSION}: upgrade the package that reads it`);
  }
  if (value.version < OLDEST_USAGE_VERSION) throw new UsageRecordError(source, `written in version ${value.version} of the format, which is no longer read: record it again`);
  const problems = problemsOf(value);
  if (problems.length > 0) throw new UsageRecordError(source, `not a valid usage record: ${problems.slice(0, MAX_PROBLEMS).join('; ')}${problems.length > MAX_PROBLEMS ? ` (and ${problems.length - MAX_PROBLEMS} more)` : ''}`);
  return value as unknown as UsageRecord;
}
