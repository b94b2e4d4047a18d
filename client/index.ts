// The typed client of the Documentation Platform Management API: openapi-fetch over the generated `paths`, with
// bearer authentication, retries, timeouts, typed errors and pagination. No per-endpoint code: every path, method,
// parameter and body type comes from generated/schema.d.ts. Runs in Node and in browsers (no Node-only imports).
import createClient, { type Client, type FetchResponse, type MaybeOptionalInit, type Middleware } from 'openapi-fetch';
import type { HttpMethod, MediaType, PathsWithMethod, Readable, RequiredKeysOf } from 'openapi-typescript-helpers';
import type { components, paths } from '../generated/schema.d.ts';

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
}

type ErrorBody = components['schemas']['ErrorEnvelope'];

/** An error answer of the API: its status, the envelope's code and message, and the response itself. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: number;
  constructor(
    readonly response: Response,
    readonly body: ErrorBody | undefined,
  ) {
    super(body?.error?.message ?? `${response.status} ${response.statusText}`);
    this.name = 'ApiError';
    this.status = response.status;
    this.code = body?.error?.code ?? response.status;
  }
}

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

type Method<Mode extends 'value' | 'throw', M extends HttpMethod> = <
  Path extends PathsWithMethod<paths, M>,
  Init extends MaybeOptionalInit<paths[Path], M>,
>(
  url: Path,
  ...init: InitParam<Checked<Init, MaybeOptionalInit<paths[Path], M>>>
) => Promise<
  Mode extends 'value'
    ? FetchResponse<paths[Path][M] & Record<string | number, any>, Init, MediaType>
    : {
        data: Data<NonNullable<FetchResponse<paths[Path][M] & Record<string | number, any>, Init, MediaType>['data']>>;
        response: Response;
      }
>;

type Methods = 'GET' | 'PUT' | 'POST' | 'DELETE' | 'PATCH';
type TypedClient<Mode extends 'value' | 'throw'> = Omit<Client<paths>, Methods | 'OPTIONS' | 'HEAD' | 'TRACE' | 'request'> & {
  [M in Methods]: Method<Mode, Lowercase<M>>;
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
  const middleware: Middleware = {
    async onRequest({ request, schemaPath }) {
      warnOnce(schemaPath, request.url);
      const token = typeof options.token === 'function' ? await options.token() : options.token;
      if (token !== undefined) request.headers.set('Authorization', `Bearer ${token}`);
      if (options.userAgent) request.headers.set('User-Agent', options.userAgent);
      return request;
    },
    onResponse: options.throwOnError ? ({ response }) => (response.ok ? undefined : throwApiError(response)) : undefined,
  };
  client.use(middleware);
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
