// The typed client of the Documentation Platform Management API: openapi-fetch over the generated `paths`, with
// bearer authentication, retries, timeouts, typed errors, a `status` that narrows each answer, and pagination. No
// per-endpoint code: every path, method, parameter, body, status and header type comes from generated/schema.d.ts.
// Runs in Node and in browsers (no Node-only imports).
import createClient, { type Client, type MaybeOptionalInit, type Middleware, type ParseAsResponse } from 'openapi-fetch';
import type { HttpMethod, MediaType, PathsWithMethod, Readable, RequiredKeysOf } from 'openapi-typescript-helpers';
import type { components, deprecatedCalls, operations, paths } from '../generated/schema.d.ts';

export type { components, operations, paths } from '../generated/schema.d.ts';
/** A schema as the service answers it (`Readable<components['schemas']['Space']>`) or as a request sends it (`Writable`). */
export type { Readable, Writable } from 'openapi-typescript-helpers';

export interface RetryAttempt {
  /** The attempt that failed, from 1. */
  attempt: number;
  request: Request;
  /** The answer that will be retried (429, 502, 503, 504), when there was one. */
  response?: Response;
  /** The network error that will be retried, when there was no answer. */
  error?: unknown;
  /** Milliseconds until the next attempt. */
  delayMs: number;
}

export interface RetryOptions {
  /** Attempts in all, the first one included (default 3). */
  attempts?: number;
  /** First backoff in milliseconds (default 200); it doubles each attempt, with full jitter. */
  baseDelayMs?: number;
  /** Longest wait between attempts, `Retry-After` included (default 30 000); a longer Retry-After ends retrying. */
  maxDelayMs?: number;
  /** Retry POST (and PATCH) too; only idempotent methods are retried otherwise (default false). */
  retryNonIdempotent?: boolean;
  /** Called before each retry: observe attempts (logging, metrics). */
  onRetry?: (attempt: RetryAttempt) => void;
}

export interface DocsClientOptions {
  /**
   * Address of the service, without `/v1` (the paths begin with it): `https://api.example.com`. One ending with the
   * start of the path called (`…/v1`) is warned about once, on the first such call (console.warn).
   */
  baseUrl: string;
  /**
   * Access token sent as `Authorization: Bearer <token>`, or a function returning it (called for every request).
   * `undefined` sends none: `token: process.env.DOCS_API_TOKEN` compiles under `exactOptionalPropertyTypes` too.
   */
  token?: string | (() => string | Promise<string>) | undefined;
  /** fetch to use (default: the global one). */
  fetch?: typeof globalThis.fetch;
  /** Retries of failed requests; `false` turns them off. */
  retry?: RetryOptions | false;
  /** Timeout of each attempt, in milliseconds (default none). Pass `signal` in a call to cancel it yourself. */
  timeoutMs?: number;
  /** Value of the `User-Agent` header (browsers may ignore it). */
  userAgent?: string;
  /** When true, error answers throw an ApiError instead of returning `{error}` (and `data` is always present). */
  throwOnError?: boolean;
  /**
   * Called the first time an answer says its operation (or a parameter or field the request sent) is deprecated, once
   * per operation (method and path template): by default one console warning; `false` says nothing.
   */
  onDeprecated?: ((notice: DeprecationNotice) => void) | false;
}

/** What an answer's `Deprecation` (RFC 9745), `Sunset` (RFC 8594) and `Link` headers said. */
export interface DeprecationNotice {
  /** The operation: its method (upper case) and path template, `GET /v1/orgs/{organizationId}`. */
  method: string;
  path: string;
  /** When it was deprecated (may be in the future), when the header gave a date. */
  deprecatedAt?: Date;
  /** From when it may be gone, when the answer gave a `Sunset`. */
  sunset?: Date;
  /** Where its successor is described (`rel="successor-version"`). */
  successor?: string;
  /** Where the deprecation is described (`rel="deprecation"`). */
  docs?: string;
  response: Response;
}

type ErrorBody = components['schemas']['ErrorEnvelope'];

type Digit = 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9;
type NumberOf<Text> = Text extends `${infer Status extends number}` ? Status : never;
/** The statuses of an answer that is not a success (300 to 599; fetch follows redirects). */
type NotOkStatus = NumberOf<`${3 | 4 | 5}${Digit}${Digit}`>;
/**
 * A status the operation does not declare: an error answer all the same (a proxy's 502, a status a later release
 * declares). A union of number literals, so that comparing `status` with a declared one leaves it out.
 */
export type UndeclaredStatus<Declared = never> = Exclude<NotOkStatus, Declared>;

type Answers<Operation> = Operation extends { responses: infer Declared } ? Declared : never;
type ContentOf<Answer> = Answer extends { content: infer Content } ? Content[keyof Content & MediaType] : undefined;
/** An error envelope's `code` is the answer's status (the contract's ErrorDetail says so; the runner checks it). */
type WithCode<Body, Status> = Body extends { error: { code: number } } ? Body & { error: { code: Status } } : Body;
/** Declared headers by their lowercase name (the index signature left out). */
type Named<Headers> = { [Name in keyof Headers as string extends Name ? never : Name extends string ? Lowercase<Name> : never]: Headers[Name] };
/** The headers an answer declares: `{}` when it declares none (so that such answers share their response type). */
type HeadersOf<Answer> = Answer extends { headers: infer Headers } ? (keyof Named<Headers> extends never ? {} : Named<Headers>) : {};
/** A header's text: a declared number arrives as its digits; an optional header may be absent. */
type HeaderText<Value> = (Value extends number ? `${number}` : string) | (undefined extends Value ? null : never);

/** Response headers, those the contract declares for the status typed (by any case of their name, as `get` reads them). */
export interface DeclaredHeaders<Declared> extends Headers {
  get<Name extends string>(name: Name): Lowercase<Name> extends keyof Declared ? HeaderText<Declared[Lowercase<Name>]> : string | null;
}

/** The Response of an answer, its status and its declared headers typed (first, so that their `get` is the one called). */
export type DeclaredResponse<Status extends number, Declared = {}> = { readonly status: Status; readonly headers: DeclaredHeaders<Declared> } & Response;

/** An error answer of the API: its status, the envelope's code and message, and the response itself. */
export class ApiError<Status extends number = number, Body = ErrorBody | undefined, Answered extends Response = Response> extends Error {
  /** `instanceof ApiError` narrows to one of the error answers the contract declares, by `status`, or an undeclared one. */
  declare static [Symbol.hasInstance]: (value: unknown) => value is AnyApiError;
  readonly status: Status;
  readonly code: number;
  constructor(
    readonly response: Answered,
    readonly body: Body,
  ) {
    const envelope = body as ErrorBody | undefined;
    super(envelope?.error?.message ?? `${response.status} ${response.statusText}`);
    this.name = 'ApiError';
    this.status = response.status as Status;
    this.code = envelope?.error?.code ?? response.status;
  }
}

type EveryAnswers = Answers<operations[keyof operations]>;
type KeyOfEach<Union> = Union extends unknown ? keyof Union : never;
type EveryErrorStatus = Extract<KeyOfEach<EveryAnswers>, NotOkStatus>;
type AnswerAt<Status extends number> = Extract<EveryAnswers, Record<Status, unknown>>[Status];
/** An ApiError of each error status any operation declares, and of the undeclared ones (whose body may not be JSON). */
type AnyApiError =
  | { [Status in EveryErrorStatus]: ApiError<Status, WithCode<Readable<ContentOf<AnswerAt<Status>>>, Status>, DeclaredResponse<Status, HeadersOf<AnswerAt<Status>>>> }[EveryErrorStatus]
  | ApiError<UndeclaredStatus<EveryErrorStatus>, Readable<ErrorBody> | undefined, DeclaredResponse<UndeclaredStatus<EveryErrorStatus>>>;

const RETRIED_STATUSES = [429, 502, 503, 504];
const IDEMPOTENT = ['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE'];
const sleep = (ms: number, signal: AbortSignal | null) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => reject((clearTimeout(timer), signal.reason)), { once: true });
  });

/** Milliseconds a `Retry-After` header asks for (seconds or an HTTP date), or undefined. */
function retryAfterMs(response: Response): number | undefined {
  const value = response.headers.get('retry-after');
  if (!value) return undefined;
  const ms = /^\d+$/.test(value) ? Number(value) * 1000 : Date.parse(value) - Date.now();
  return Number.isNaN(ms) ? undefined : Math.max(0, ms);
}

/** fetch with a timeout per attempt, and retries with exponential backoff and full jitter. */
function resilientFetch(base: typeof fetch, options: DocsClientOptions): typeof fetch {
  const retry = options.retry === false ? { attempts: 1 } : (options.retry ?? {});
  const attempts = Math.max(1, retry.attempts ?? 3);
  const maxDelay = retry.maxDelayMs ?? 30_000;
  return async (input, init) => {
    const original = new Request(input, init);
    const retryable = retry.retryNonIdempotent || IDEMPOTENT.includes(original.method);
    for (let attempt = 1; ; attempt++) {
      const request = original.clone();
      const signals = [request.signal, options.timeoutMs ? AbortSignal.timeout(options.timeoutMs) : undefined];
      const signal = AbortSignal.any(signals.filter((s): s is AbortSignal => s !== undefined));
      let response: Response | undefined;
      let error: unknown;
      try {
        response = await base(new Request(request, { signal }));
      } catch (caught) {
        // Cancellation and timeouts are the caller's decisions: not retried.
        if (signal.aborted) throw signal.reason;
        error = caught;
      }
      const failed = error !== undefined || RETRIED_STATUSES.includes(response!.status);
      if (!failed || !retryable || attempt >= attempts) {
        if (error !== undefined) throw error;
        return response!;
      }
      const backoff = Math.random() * Math.min(maxDelay, (retry.baseDelayMs ?? 200) * 2 ** (attempt - 1));
      const asked = response && retryAfterMs(response);
      if (asked !== undefined && asked > maxDelay) return response!;
      const delayMs = Math.max(asked ?? 0, backoff);
      retry.onRetry?.({ attempt, request: original, response, error, delayMs });
      await response?.body?.cancel();
      await sleep(delayMs, original.signal);
    }
  };
}

type InitParam<Init> = RequiredKeysOf<Init> extends never ? [(Init & { [key: string]: unknown })?] : [Init & { [key: string]: unknown }];
type Data<T> = [T] extends [never] ? undefined : T;

declare const unknownBodyField: unique symbol;

/**
 * The type a body field the operation does not declare must have: no value has it, and the compiler's error names
 * it, with the fields declared where it was written: `Type 'string' is not assignable to type 'string &
 * UnknownBodyField<"titel", "editMode" | "emoji" | …>'`.
 */
interface UnknownBodyField<Field extends PropertyKey, Declared extends PropertyKey> {
  readonly [unknownBodyField]: never;
  readonly field: Field;
  readonly declared: Declared;
}

/**
 * `T` with every key that `Shape` does not have turned into `UnknownBodyField` (`never` when its value is `any`,
 * which any other type would let through), at every depth (for each member of a union shape): the body of a request
 * may not carry fields the operation does not declare. openapi-fetch alone lets them through, because its `init` is
 * an inferred generic, which TypeScript does not check for excess properties (nor, then, says "did you mean").
 */
type Exact<T, Shape> = Shape extends readonly (infer Item)[]
  ? T extends readonly unknown[]
    ? { [I in keyof T]: Exact<T[I], Item> }
    : T
  : Shape extends object
    ? T extends object
      ? { [K in keyof T]: K extends keyof Shape ? Exact<T[K], NonNullable<Shape[K]>> : 0 extends 1 & T[K] ? never : UnknownBodyField<K, keyof Shape> }
      : T
    : T;
type BodyOf<Init> = Init extends { body?: infer Body } ? Body : never;
type Checked<Init, Declared> = Init & ([BodyOf<Init>] extends [never] ? unknown : { body?: Exact<BodyOf<Init>, NonNullable<BodyOf<Declared>>> });

type Answer<Operation, Status> = Answers<Operation>[Status & keyof Answers<Operation>];
type ResponseOf<Operation, Status extends number> = DeclaredResponse<Status, HeadersOf<Answer<Operation, Status>>>;
type OkStatus<Operation> = Exclude<keyof Answers<Operation> & number, NotOkStatus>;
type ErrorStatus<Operation> = Extract<keyof Answers<Operation>, NotOkStatus>;
type SuccessBody<Operation, Init, Status> = ParseAsResponse<Readable<ContentOf<Answer<Operation, Status>>>, Init>;

// The answers of a result, by their types' identity: the same status, body and response in two operations is one type.
interface Succeeded<Status, Body, Answered> {
  status: Status;
  data: Body;
  error?: never;
  response: Answered;
}
interface Failed<Status, Body, Answered> {
  status: Status;
  data?: never;
  error: Body;
  response: Answered;
}

/**
 * What a call of an operation resolves to (`ResultOf<operations['getSpace']>`): an answer per status it declares, and
 * one for the error statuses it does not; `status` tells them apart, and narrows `data`, `error` and `response`.
 */
export type ResultOf<Operation, Init = {}> =
  | { [Status in OkStatus<Operation>]: Succeeded<Status, SuccessBody<Operation, Init, Status>, ResponseOf<Operation, Status>> }[OkStatus<Operation>]
  | { [Status in ErrorStatus<Operation>]: Failed<Status, WithCode<Readable<ContentOf<Answer<Operation, Status>>>, Status>, ResponseOf<Operation, Status>> }[ErrorStatus<Operation>]
  // The envelope, which the API sends with every error (a proxy's page that is not JSON arrives as its text).
  | Failed<UndeclaredStatus<ErrorStatus<Operation>>, Readable<ContentOf<Answer<Operation, ErrorStatus<Operation>>>>, DeclaredResponse<UndeclaredStatus<ErrorStatus<Operation>>>>;

/** What a call of the throwing client resolves to: a declared success (an error answer throws ApiError). */
export type SuccessOf<Operation, Init = {}> = {
  [Status in OkStatus<Operation>]: { status: Status; data: Data<NonNullable<SuccessBody<Operation, Init, Status>>>; response: ResponseOf<Operation, Status> };
}[OkStatus<Operation>];

/** What a call of `Path` with the method `M` takes besides its path: its parameters and body. */
export type CallInit<Path extends keyof paths, M extends HttpMethod> = MaybeOptionalInit<paths[Path], M>;
/** The arguments after the path of a call of `Path` with `M`, as written (`Init`): the body checked for unknown fields. */
export type CallArguments<Path extends keyof paths, M extends HttpMethod, Init> = InitParam<Checked<Init, CallInit<Path, M>>>;
/** What a call of `Path` with `M` resolves to, in the client's mode. */
export type CallResult<Mode extends 'value' | 'throw', Path extends keyof paths, M extends keyof paths[Path], Init> = Promise<
  Mode extends 'value' ? ResultOf<paths[Path][M], Init> : SuccessOf<paths[Path][M], Init>
>;

type Method<Mode extends 'value' | 'throw', M extends HttpMethod> = <Path extends PathsWithMethod<paths, M>, Init extends CallInit<Path, M>>(
  url: Path,
  ...init: CallArguments<Path, M, Init>
) => CallResult<Mode, Path, M, Init>;

type Methods = 'GET' | 'PUT' | 'POST' | 'DELETE' | 'PATCH';
/**
 * The calls of the deprecated operations of a method (generated/schema.d.ts, `deprecatedCalls`), each a call
 * signature marked `@deprecated` with its reason and successor; they come before the method's own signature, so that a
 * call of a deprecated path resolves to one and an editor strikes it through and shows why.
 */
type DeprecatedCalls<Mode extends 'value' | 'throw', M extends Methods> = M extends keyof deprecatedCalls<Mode> ? deprecatedCalls<Mode>[M] : unknown;
type TypedClient<Mode extends 'value' | 'throw'> = Omit<Client<paths>, Methods | 'OPTIONS' | 'HEAD' | 'TRACE' | 'request'> & {
  [M in Methods]: DeprecatedCalls<Mode, M> & Method<Mode, Lowercase<M>>;
};

/** The client: error answers are returned as a typed `error`, next to `data`. */
export type DocsClient = TypedClient<'value'>;
/** The client in throwing mode: error answers throw ApiError, and `data` is always there. */
export type ThrowingDocsClient = TypedClient<'throw'>;

async function throwApiError(response: Response): Promise<never> {
  const body = (await response
    .clone()
    .json()
    .catch(() => undefined)) as ErrorBody | undefined;
  throw new ApiError(response, body);
}

/** The address of each link of a `Link` header with relation `rel`. */
function linked(header: string | null, rel: string): string | undefined {
  for (const [, target, parameters] of (header ?? '').matchAll(/<([^>]*)>([^,<]*)/g)) {
    if (new RegExp(`;\\s*rel="?[^";]*\\b${rel}\\b`).test(parameters!)) return target;
  }
  return undefined;
}

/** The notice of an answer that carries a `Deprecation` header, or undefined. */
export function deprecationNotice(method: string, path: string, response: Response): DeprecationNotice | undefined {
  const deprecation = response.headers.get('deprecation');
  if (deprecation === null) return undefined;
  const seconds = /^@(-?\d+)$/.exec(deprecation.trim())?.[1];
  const sunset = response.headers.get('sunset');
  const sunsetMs = sunset === null ? NaN : Date.parse(sunset);
  const link = response.headers.get('link');
  const successor = linked(link, 'successor-version');
  const docs = linked(link, 'deprecation');
  return {
    method,
    path,
    ...(seconds === undefined ? {} : { deprecatedAt: new Date(Number(seconds) * 1000) }),
    ...(Number.isNaN(sunsetMs) ? {} : { sunset: new Date(sunsetMs) }),
    ...(successor === undefined ? {} : { successor }),
    ...(docs === undefined ? {} : { docs }),
    response,
  };
}

const warnDeprecated = (notice: DeprecationNotice) => {
  const dates = [notice.deprecatedAt && `since ${notice.deprecatedAt.toISOString().slice(0, 10)}`, notice.sunset && `sunset ${notice.sunset.toISOString().slice(0, 10)}`].filter(Boolean).join(', ');
  const more = [notice.successor && `successor: ${notice.successor}`, notice.docs && `see ${notice.docs}`].filter(Boolean).join('; ');
  console.warn(`docs-platform-contract: ${notice.method} ${notice.path} is deprecated${dates ? ` (${dates})` : ''}${more ? `; ${more}` : ''}. Pass onDeprecated: false to createDocsClient to silence this.`);
};

/** Tells `onDeprecated` of each operation's first answer that says it is deprecated. */
function deprecationWatch(onDeprecated: DocsClientOptions['onDeprecated']): ((method: string, path: string, response: Response) => void) | undefined {
  if (onDeprecated === false) return undefined;
  const told = new Set<string>();
  const tell = onDeprecated ?? warnDeprecated;
  return (method, path, response) => {
    const key = `${method} ${path}`;
    if (told.has(key) || !response.headers.has('deprecation')) return;
    told.add(key);
    tell(deprecationNotice(method, path, response)!);
  };
}

/**
 * Decision: a `baseUrl` that ends with the start of the contract's paths (`…/v1`, as in `/v1/orgs`) is most likely a
 * mistake, whose every answer would be a 404 that says nothing of it; the client warns once, on the first such call,
 * naming what to give instead, and still sends the request as asked, since a service may be mounted under such a path
 * on purpose. To make it an error instead, throw where it warns.
 */
function prefixWarning(baseUrl: string): (schemaPath: string, url: string) => void {
  let warned = false;
  return (schemaPath, url) => {
    const base = new URL(baseUrl, 'http://relative.invalid').pathname.split('/').filter(Boolean);
    for (let count = base.length; count > 0 && !warned; count--) {
      const tail = `/${base.slice(-count).join('/')}`;
      if (!`${schemaPath}/`.startsWith(`${tail}/`)) continue;
      warned = true;
      console.warn(`docs-platform-contract: baseUrl ${baseUrl} ends with ${tail}, where the contract's paths begin: this request goes to ${url}. Give the address without ${tail}.`);
    }
  };
}

export function createDocsClient(options: DocsClientOptions & { throwOnError: true }): ThrowingDocsClient;
export function createDocsClient(options: DocsClientOptions): DocsClient;
export function createDocsClient(options: DocsClientOptions): DocsClient | ThrowingDocsClient {
  const client = createClient<paths>({
    baseUrl: options.baseUrl,
    fetch: resilientFetch(options.fetch ?? ((...args) => globalThis.fetch(...args)), options),
  });
  const warnOnce = prefixWarning(options.baseUrl);
  const deprecated = deprecationWatch(options.onDeprecated);
  const middleware: Middleware = {
    async onRequest({ request, schemaPath }) {
      warnOnce(schemaPath, request.url);
      const token = typeof options.token === 'function' ? await options.token() : options.token;
      if (token !== undefined) request.headers.set('Authorization', `Bearer ${token}`);
      if (options.userAgent) request.headers.set('User-Agent', options.userAgent);
      return request;
    },
    onResponse: ({ request, response, schemaPath }) => {
      deprecated?.(request.method, schemaPath, response);
      return options.throwOnError && !response.ok ? throwApiError(response) : undefined;
    },
  };
  client.use(middleware);
  // Each result carries its status, which the types above narrow `data` and `error` by.
  for (const method of ['GET', 'PUT', 'POST', 'DELETE', 'PATCH'] as const) {
    const call = client[method] as (...args: unknown[]) => Promise<{ response: Response }>;
    (client as unknown as Record<string, unknown>)[method] = async (...args: unknown[]) => {
      const result = await call(...args);
      return { ...result, status: result.response.status };
    };
  }
  return client as unknown as DocsClient;
}

type ListPath = {
  [P in PathsWithMethod<paths, 'get'>]: paths[P]['get'] extends { responses: { 200: { content: { 'application/json': { items: unknown[] } } } } }
    ? P
    : never;
}[PathsWithMethod<paths, 'get'>];

type ItemOf<P extends ListPath> = paths[P]['get'] extends {
  responses: { 200: { content: { 'application/json': { items: (infer Item)[] } } } };
}
  ? Readable<Item>
  : never;

/**
 * The items of a list operation, page after page, following `next.page` until it is absent. `init` is what the
 * GET takes (path parameters, filters, `limit` as the page size); stops fetching as soon as the loop is left.
 */
export async function* paginate<P extends ListPath>(
  client: DocsClient | ThrowingDocsClient,
  path: P,
  ...init: InitParam<MaybeOptionalInit<paths[P], 'get'>>
): AsyncGenerator<ItemOf<P>, void, undefined> {
  const base = (init[0] ?? {}) as { params?: { query?: Record<string, unknown> } };
  let page = base.params?.query?.page as string | undefined;
  for (;;) {
    const params = { ...base.params, query: { ...base.params?.query, ...(page ? { page } : {}) } };
    const { data, error, response } = (await (client as DocsClient).GET(path as never, { ...base, params } as never)) as {
      data?: { items: ItemOf<P>[]; next?: { page: string } };
      error?: ErrorBody;
      response: Response;
    };
    if (error !== undefined || !data) throw new ApiError(response, error);
    yield* data.items;
    if (!data.next) return;
    page = data.next.page;
  }
}
