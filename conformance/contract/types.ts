// Types of a call, derived from the generated `operations`: a step names an operationId and gives exactly that
// operation's path parameters, query and body, so a contract change that breaks the scenario fails `tsc`.
import type { operations, Readable, Writable } from '../../generated/schema.d.ts';

export type OperationId = keyof operations;

type Parameters<K extends OperationId> = operations[K]['parameters'];
type JsonContent<T> = T extends { content: { 'application/json': infer Body } } ? Body : never;
type IsNever<T> = [T] extends [never] ? true : false;

export type PathParams<K extends OperationId> = NonNullable<Parameters<K>['path']>;
export type QueryParams<K extends OperationId> = NonNullable<Parameters<K>['query']>;
export type RequestBody<K extends OperationId> = Writable<JsonContent<NonNullable<operations[K]['requestBody']>>>;

type Responses<K extends OperationId> = operations[K]['responses'];
type SuccessStatus<K extends OperationId> = Extract<keyof Responses<K>, 200 | 201 | 202 | 203 | 206>;
/** The JSON body of the operation's success response(s), as a server sends it. */
export type SuccessBody<K extends OperationId> = Readable<JsonContent<Responses<K>[SuccessStatus<K>]>>;

/** What a call sends besides its operationId: path parameters, query and JSON body, each typed from the contract. */
export type CallInit<K extends OperationId> = (IsNever<PathParams<K>> extends true
  ? { path?: undefined }
  : { path: PathParams<K> }) &
  (IsNever<QueryParams<K>> extends true ? { query?: undefined } : { query?: QueryParams<K> }) &
  (IsNever<RequestBody<K>> extends true
    ? { body?: undefined }
    : undefined extends operations[K]['requestBody']
      ? { body?: RequestBody<K> }
      : { body: RequestBody<K> });

/** A request as reports show it (JSON report, JUnit failures, curl lines). */
export interface RecordedRequest {
  method: string;
  url: string;
  /** The JSON body sent, when one was. */
  body?: unknown;
}

/** An answer as reports show it; absent from a result when no answer came. */
export interface RecordedResponse {
  status: number;
  /** The body as text, clipped. */
  body?: string;
}

/**
 * One outcome of one check on one operation: the unit of the JUnit report (one test case per operation and check).
 * The scenario's checks (`scenario`: exercised with the expected status and a conforming answer; `invalid-input`:
 * invalid inputs refused with 400) and the property phase's checks (their own ids) all produce these.
 */
export interface CheckResult {
  operationId: string;
  /** Which check: `scenario`, `invalid-input`, or a property check's id. */
  checkId: string;
  ok: boolean;
  /** What failed (or, when ok, what was checked); one line per finding. */
  message: string;
  /** Not run, for the reason in `message` (JUnit `<skipped>`): an operation the runner could not exercise here. */
  skipped?: boolean;
  request?: RecordedRequest;
  response?: RecordedResponse;
}
