// The typed client's recording mode, for tests (`docs-platform-conformance/recording`; docs/consumers.md): a client
// wrapped by `recordingClient` records each call's use of the contract, and each field the code reads of an answer,
// into this process's usage record in a folder; `mergeUsageRecords` makes the folder's records one. Off (no folder
// given), `recordingClient` returns the client itself: the client's own bundle holds no recording code.
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { consumerIdentity, contractIdentity } from './consumer.ts';
import { type Contract, loadContract, type OpenApiDocument, type Operation } from '../contract/contract.ts';
import { requestCheckerOf } from '../contract/request-check.ts';
import { readView } from './read-view.ts';
import { httpExchange, responseSchema, usageOf } from './usage-fields.ts';
import { emptyOperationUsage, emptyUsage, mergeNamedUsage, mergeOperationUsage, parseUsageRecord, type UsageRecord } from './usage-format.ts';
import { markMerged, mergedAlready, writeUsageFile } from './usage-merge.ts';

export { mergeUsage, parseUsageRecord, USAGE_FORMAT, USAGE_VERSION, UsageRecordError } from './usage-format.ts';
export type { OperationUsage, ResponseUsage, UsageRecord, Used } from './usage-format.ts';

/** The variable that turns recording on: a folder, or `1`/`true` for `docs-platform-usage` in the working directory. */
export const USAGE_VARIABLE = 'DOCS_CLIENT_USAGE';
export const DEFAULT_USAGE_FOLDER = 'docs-platform-usage';

/** The usage folder `value` names (absolute), or undefined when it does not turn recording on. */
export function usageFolder(value: string | undefined = process.env[USAGE_VARIABLE]): string | undefined {
  if (value === undefined || value === '' || value === '0' || value === 'false') return undefined;
  return path.resolve(value === '1' || value === 'true' ? DEFAULT_USAGE_FOLDER : value);
}

export interface RecordingOptions {
  /** Where this process's record goes (under `records/`): by default DOCS_CLIENT_USAGE's folder; `false` turns recording off. */
  folder?: string | false;
  /** The consumer the record names: a name, or name, version and commit (default: the working directory's package.json and git commit). */
  consumer?: string | UsageRecord['consumer'];
  /** The contract calls are recorded against: a YAML or JSON file, or a parsed document (default: the copy this package holds). */
  contract?: string | Record<string, unknown>;
}

type AnyCall = (url: never, ...init: never[]) => Promise<unknown>;
/** What `recordingClient` wraps: the typed client (`DocsClient`, `ThrowingDocsClient`), by its methods. */
export interface RecordableClient {
  GET: AnyCall;
  PUT: AnyCall;
  POST: AnyCall;
  DELETE: AnyCall;
  PATCH: AnyCall;
}

const METHODS = ['GET', 'PUT', 'POST', 'DELETE', 'PATCH'] as const;

/** One call as its middleware saw it: the request sent, and the answer when one came. */
interface Seen {
  request?: { schemaPath: string; path: Record<string, unknown>; url: string; headers: Record<string, string>; contentType?: string; text?: string };
  response?: { status: number; contentType?: string; text: string; headers: Record<string, string> };
}

/** The calls of this process's clients recording into one folder, for one consumer and contract: its record, written whole. */
class Recorder {
  readonly file: string;
  private readonly record: UsageRecord;
  /** The pointers read, by operation and answer (`getSpace\n200 application/json`). */
  private readonly reads = new Map<string, Set<string>>();
  private readonly warned = new Set<string>();
  /** The usages of single calls recorded so far, to tell a call that used nothing new. */
  private readonly shapes = new Set<string>();
  /** A use not written yet (written once the code yields); calls only, not written yet (written with the next). */
  private usesUnwritten = false;
  private callsUnwritten = false;
  private pending: ReturnType<typeof setImmediate> | undefined;

  constructor(
    readonly contract: Contract,
    folder: string,
    consumer: UsageRecord['consumer'],
  ) {
    this.file = path.join(folder, 'records', `client-${process.pid}-${randomBytes(6).toString('hex')}.json`);
    this.record = emptyUsage(consumer, contractIdentity(contract), 'client');
  }

  /** Records a call; gives the view of its answer's bodies, or undefined when it is not recorded (no answer, no operation). */
  called(method: string, seen: Seen): (<T>(value: T) => T) | undefined {
    const { request, response } = seen;
    if (!request || !response) return undefined;
    const operation = operationsOf(this.contract).get(`${method.toLowerCase()} ${request.schemaPath}`);
    if (!operation) {
      const call = `${method} ${request.schemaPath}`;
      if (!this.warned.has(call)) {
        this.warned.add(call);
        console.warn(`docs-platform-conformance recording: ${call} is not an operation of ${this.contract.source}, so it is not recorded: record against the contract the client was made from (recordingClient(client, { contract }))`);
      }
      return undefined;
    }
    const pathParams = Object.fromEntries(Object.entries(request.path).map(([name, value]) => [name, Array.isArray(value) ? value.join(',') : String(value)]));
    // A request the contract refuses is not recorded, as the proxy does not record one: a record holds what the
    // contract accepts (the call is still made, and the code sees its answer).
    const refused = this.refusal(method, operation, pathParams, request);
    if (refused) {
      const call = `${method} ${request.schemaPath}`;
      if (!this.warned.has(`refused ${call}`)) {
        this.warned.add(`refused ${call}`);
        console.warn(`docs-platform-conformance recording: a call of ${operation.operationId} is not recorded, as the contract refuses it: ${refused}`);
      }
      return undefined;
    }
    const exchange = httpExchange(
      this.contract,
      operation,
      pathParams,
      { search: new URL(request.url).search, headers: request.headers, ...(request.contentType ? { contentType: request.contentType } : {}), ...(request.text !== undefined ? { text: request.text } : {}) },
      response.status,
      { ...(response.contentType ? { contentType: response.contentType } : {}), text: response.text, headers: response.headers },
    );
    const usage = usageOf(this.contract, exchange);
    const [key, answered] = Object.entries(usage.responses)[0]!;
    answered.read = [];
    const recorded = (this.record.operations[operation.operationId] ??= emptyOperationUsage());
    // A call that used nothing new (the same parameters, fields, values and answer as one before) adds a call only,
    // which is written with the next use that is new, or at the end.
    const shape = `${operation.operationId}\n${JSON.stringify({ ...usage, calls: 0 })}`;
    if (this.shapes.has(shape)) {
      recorded.calls += 1;
      this.callsUnwritten = true;
    } else {
      this.shapes.add(shape);
      mergeOperationUsage(recorded, usage);
      this.touch();
    }
    const schema = exchange.response && responseSchema(this.contract, operation, response.status, exchange.response.mediaType);
    const readKey = `${operation.operationId}\n${key}`;
    let reads = this.reads.get(readKey);
    if (!reads) this.reads.set(readKey, (reads = new Set()));
    const onRead = (pointer: string) => {
      if (reads.has(pointer)) return;
      reads.add(pointer);
      this.touch();
    };
    return (value) => readView(this.contract, value, schema, onRead);
  }

  /** Why the contract refuses the request (its first finding), or undefined when it accepts it. */
  private refusal(method: string, operation: Operation, pathParams: Record<string, string>, request: NonNullable<Seen['request']>): string | undefined {
    const checker = requestCheckerOf(this.contract);
    const url = new URL(request.url);
    const head = { method, pathname: url.pathname, search: url.search.slice(1), headers: request.headers };
    const body = { bytes: request.text === undefined ? 0 : Buffer.byteLength(request.text), text: request.text };
    const finding = [...checker.checkHead({ operation, pathParams }, head), ...checker.checkBody(operation, head, body)][0];
    return finding?.message;
  }

  /**
   * Marks the record changed and writes it once the code that changed it yields (a test runner may end a worker
   * without letting its process exit), and again when the process exits or on `flushUsage()`.
   */
  private touch(): void {
    this.usesUnwritten = true;
    this.pending ??= setImmediate(() => {
      this.pending = undefined;
      try {
        this.write();
      } catch {
        // Written again, with its error, when the process exits or flushUsage() is called.
      }
    });
  }

  /** Writes the record, whole (another process may be reading the folder), when it changed since it was last written. */
  write(): string | undefined {
    if (!this.usesUnwritten && !this.callsUnwritten) return undefined;
    const record = structuredClone(this.record);
    for (const [readKey, pointers] of this.reads) {
      const [operationId, key] = readKey.split('\n') as [string, string];
      record.operations[operationId]!.responses[key]!.read = [...pointers].sort();
    }
    writeUsageFile(this.file, record);
    this.usesUnwritten = this.callsUnwritten = false;
    return this.file;
  }
}

const operationIndexes = new WeakMap<Contract, Map<string, Operation>>();
/** A contract's operations by method and path template (`get /v1/spaces/{spaceId}`), the client's own names for a call. */
function operationsOf(contract: Contract): Map<string, Operation> {
  let index = operationIndexes.get(contract);
  if (!index) {
    index = new Map([...contract.operations.values()].map((operation) => [`${operation.method} ${operation.path}`, operation]));
    operationIndexes.set(contract, index);
  }
  return index;
}

/** This module's recorders, by folder, consumer and contract. */
const recorders = new Map<string, Recorder>();
const contractIds = new Map<Contract, number>();

/**
 * Every recorder of the process, whichever copy of this module made it (a test runner loads it again for each test
 * file, in a context of its own), kept on `process`, which they share: written by one `exit` listener and by
 * `flushUsage()`.
 */
const everyRecorder: Set<Recorder> = (() => {
  const holder = process as unknown as { [key: symbol]: Set<Recorder> | undefined };
  const key = Symbol.for('docs-platform-conformance/recording');
  let set = holder[key];
  if (!set) {
    const made = (set = holder[key] = new Set<Recorder>());
    process.once('exit', () => void [...made].forEach((recorder) => recorder.write()));
  }
  return set;
})();

function recorderFor(folder: string, options: RecordingOptions): Recorder {
  const contract = loadContract(options.contract as string | OpenApiDocument | undefined);
  const consumer = typeof options.consumer === 'object' ? options.consumer : consumerIdentity(process.cwd(), options.consumer);
  if (!contractIds.has(contract)) contractIds.set(contract, contractIds.size + 1);
  const key = JSON.stringify([folder, consumer, contractIds.get(contract)]);
  let recorder = recorders.get(key);
  if (!recorder) {
    recorder = new Recorder(contract, folder, consumer);
    recorders.set(key, recorder);
    everyRecorder.add(recorder);
  }
  return recorder;
}

/**
 * The client in recording mode, when recording is on (`folder`, or DOCS_CLIENT_USAGE): a client of the same type whose
 * every call is recorded in this process's usage record (the operation, the parameters and body fields sent, the
 * status, media type and fields received), and whose answers' `data` and `error` (and a thrown ApiError's `body`)
 * are views that record each field the code reads. Off, `client` itself. Meant for tests: see docs/consumers.md.
 */
export function recordingClient<C extends RecordableClient>(client: C, options: RecordingOptions = {}): C {
  const folder = options.folder === false ? undefined : options.folder !== undefined ? path.resolve(options.folder) : usageFolder();
  if (!folder) return client;
  const recorder = recorderFor(folder, options);
  const recorded: Record<string, unknown> = { ...(client as object) };
  for (const method of METHODS) recorded[method] = recordedCall(recorder, method, client[method] as unknown as (url: string, init?: object) => Promise<object>);
  return recorded as C;
}

function recordedCall(recorder: Recorder, method: string, call: (url: string, init?: object) => Promise<object>) {
  return async (url: string, init: { middleware?: unknown[] } = {}) => {
    const seen: Seen = {};
    // The call's own middleware, last: it sees the request as sent and the answer as it came, before the client's
    // throwing mode turns an error answer into an ApiError.
    const middleware = {
      async onRequest({ request, schemaPath, params }: { request: Request; schemaPath: string; params: { path?: Record<string, unknown> } }) {
        const contentType = request.headers.get('content-type') ?? undefined;
        const text = request.body ? await request.clone().text() : undefined;
        seen.request = { schemaPath, path: params.path ?? {}, url: request.url, headers: Object.fromEntries(request.headers), ...(contentType ? { contentType } : {}), ...(text !== undefined ? { text } : {}) };
      },
      async onResponse({ response }: { response: Response }) {
        const contentType = response.headers.get('content-type') ?? undefined;
        seen.response = { status: response.status, ...(contentType ? { contentType } : {}), text: await response.clone().text(), headers: Object.fromEntries(response.headers) };
      },
    };
    let result: Record<string, unknown>;
    try {
      result = (await call(url, { ...init, middleware: [...(init.middleware ?? []), middleware] })) as Record<string, unknown>;
    } catch (error) {
      const view = recorder.called(method, seen);
      if (view && error instanceof Error && error.name === 'ApiError' && 'body' in error) Object.defineProperty(error, 'body', { value: view(error.body), enumerable: true, configurable: true });
      throw error;
    }
    const view = recorder.called(method, seen);
    if (!view) return result;
    return { ...result, ...('data' in result ? { data: view(result.data) } : {}), ...('error' in result ? { error: view(result.error) } : {}) };
  };
}

/** Writes every record of this process that changed since it was last written, now; returns their files. */
export function flushUsage(): string[] {
  return [...everyRecorder].flatMap((recorder) => recorder.write() ?? []);
}

export interface UsageFolderOptions {
  /** The usage folder: DOCS_CLIENT_USAGE's, or `docs-platform-usage` in the working directory. */
  folder?: string;
}

/**
 * Turns recording on for the clients of this process and of the workers it starts afterwards (it sets
 * DOCS_CLIENT_USAGE; a vitest `globalSetup`), and removes the records a run that did not merge left. Returns the folder.
 */
export function startUsageRecording(options: UsageFolderOptions = {}): string {
  const folder = options.folder ? path.resolve(options.folder) : (usageFolder() ?? path.resolve(DEFAULT_USAGE_FOLDER));
  rmSync(path.join(folder, 'records'), { recursive: true, force: true });
  process.env[USAGE_VARIABLE] = folder;
  return folder;
}

export interface MergeUsageOptions extends UsageFolderOptions {
  /** Where the record goes: `<folder>/usage.json` by default. */
  file?: string;
  /**
   * Merge into the record `file` already holds (of the same consumer and contract document), instead of replacing it:
   * for several test commands of one job that make one record. Off by default: a run's record is what that run used.
   */
  merge?: boolean;
  /** Receives the line (console.log by default). */
  log?: (line: string) => void;
}

/**
 * Merges the records in the folder's `records/` (every process's, this one's written first) into one record, written
 * whole to `file` (default `<folder>/usage.json`; replaced, or with `merge`, merged into the record it holds), removes
 * them, prints one line (`log`) and returns it; undefined when there was none. A record that cannot be read, or of
 * another consumer or contract version (with `merge`, the file's too), throws a UsageRecordError naming it, and nothing
 * is written or removed.
 */
export function mergeUsageRecords(options: MergeUsageOptions = {}): UsageRecord | undefined {
  flushUsage();
  const folder = options.folder ? path.resolve(options.folder) : (usageFolder() ?? path.resolve(DEFAULT_USAGE_FOLDER));
  const file = options.file ? path.resolve(options.file) : path.join(folder, 'usage.json');
  const log = options.log ?? console.log;
  const records = path.join(folder, 'records');
  let names: string[] = [];
  try {
    names = readdirSync(records).filter((name) => name.endsWith('.json')).sort();
  } catch {
    // no client recorded anything
  }
  const where = path.relative(process.cwd(), file) || file;
  if (names.length === 0) {
    // The harness's reportUsage() merged them already (the same folder): its line said so.
    const merged = mergedAlready(records);
    if (merged !== undefined) return existsSync(merged) ? parseUsageRecord(readFileSync(merged, 'utf8'), merged) : undefined;
    log(`docs-platform-conformance usage: no record in ${path.relative(process.cwd(), records) || records} (was recording on when the clients were made?)`);
    return undefined;
  }
  const [first, ...others] = names.map((name) => ({ record: parseUsageRecord(readFileSync(path.join(records, name), 'utf8'), path.join(records, name)), source: path.join(records, name) }));
  const merged = writeUsageFile(file, mergeNamedUsage(first!, ...others), { merge: options.merge === true });
  for (const name of names) rmSync(path.join(records, name), { force: true });
  markMerged(records, file);
  const calls = Object.values(merged.operations).reduce((sum, usage) => sum + usage.calls, 0);
  const operations = Object.keys(merged.operations).length;
  log(`docs-platform-conformance usage: ${merged.consumer.name} used ${operations} operation${operations === 1 ? '' : 's'} in ${calls} call${calls === 1 ? '' : 's'}: ${where}`);
  return merged;
}
