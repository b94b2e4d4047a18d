// What a route hands a handler and takes back, derived from the generated `operations`: an operation's parameters,
// body and caller in, one of its success responses out (handlers/ writes them; handlers/types.ts has their table).
import type { Readable, Writable } from '../../generated/schema.d.ts';
import type { OperationId, operations } from '../common/contract.ts';
import type { Caller } from '../auth/caller.ts';
import type { Scope } from '../context/context.ts';

export type { Input, Model } from '../common/contract.ts';

export type { OperationId };

type Parameters<K extends OperationId> = operations[K]['parameters'];
type Defined<T> = [NonNullable<T>] extends [never] ? Record<string, never> : NonNullable<T>;

export type PathParams<K extends OperationId> = Defined<Parameters<K>['path']>;
export type QueryParams<K extends OperationId> = Defined<Parameters<K>['query']>;

type JsonContent<T> = T extends { content: { 'application/json': infer Body } } ? Body : never;
export type RequestBody<K extends OperationId> = [JsonContent<NonNullable<operations[K]['requestBody']>>] extends [never]
  ? undefined
  : Writable<JsonContent<NonNullable<operations[K]['requestBody']>>>;

type Responses<K extends OperationId> = operations[K]['responses'];
type SuccessStatus<K extends OperationId> = Extract<keyof Responses<K>, 200 | 201 | 204>;

/** One of the operation's success responses: its status, its body (when it has one) and extra headers. */
export type HandlerResult<K extends OperationId> = {
  [S in SuccessStatus<K>]: [JsonContent<Responses<K>[S]>] extends [never]
    ? { status: S; body?: undefined; headers?: Record<string, string> }
    : { status: S; body: Readable<JsonContent<Responses<K>[S]>>; headers?: Record<string, string> };
}[SuccessStatus<K>];

export interface HandlerRequest<K extends OperationId> {
  params: PathParams<K>;
  query: QueryParams<K>;
  body: RequestBody<K>;
  caller: Caller;
}

/**
 * A handler: the request, and the scope it runs in (`ctx.db` is its write transaction, or the store's reader for a
 * GET and for handlers that open their own transactions: http/route-rules.ts).
 */
export type Handler<K extends OperationId> = (request: HandlerRequest<K>, ctx: Scope) => Promise<HandlerResult<K>>;
