// What can go wrong in a request, as the server's code says it: a kind and a message naming the field or the resource.
// Domain, content and store code raise these; http/errors.ts is the one place that turns a kind into an HTTP
// status and an error envelope. Nothing below http/ knows about statuses.

export type FailureKind =
  /** The input is wrong: a field, a cursor, a reference to something that does not exist (400). */
  | 'invalid'
  /** No token, or an unknown one (401). */
  | 'unauthenticated'
  /** The caller may see the resource but lacks the permission (403). */
  | 'forbidden'
  /** Unknown, gone, or invisible to the caller (404). */
  | 'not-found'
  /** The request contradicts the resource's state: a duplicate, a move that changes nothing (409). */
  | 'conflict'
  /** The database cannot do it now: unreachable, closed, or its storage full (503, with `Retry-After`). */
  | 'unavailable';

export class DomainError extends Error {
  constructor(
    readonly kind: FailureKind,
    message: string,
  ) {
    super(message);
  }
}

export const badRequest = (message: string) => new DomainError('invalid', message);
export const unauthorized = (message = 'Authorization: a valid Bearer token is required') => new DomainError('unauthenticated', message);
export const forbidden = (message: string) => new DomainError('forbidden', message);
export const notFound = (what: string) => new DomainError('not-found', `${what} not found`);
export const conflict = (message: string) => new DomainError('conflict', message);
export const unavailable = (message: string) => new DomainError('unavailable', message);

/** Whether `error` is a DomainError of this kind. */
export const isFailure = (error: unknown, kind: FailureKind): error is DomainError => error instanceof DomainError && error.kind === kind;

/** What the machine does to the store for a while (store/conditions.ts). */
export type ConditionKind = 'database-unreachable' | 'storage-full';

/**
 * What a request or background work meets while the machine fails under the store (the database unreachable, the
 * storage full: store/conditions.ts): `unavailable`, naming its condition, with the seconds after which trying again
 * makes sense, and counted, once answered or given up for a later try, in the condition it belongs to (the line that
 * logs the condition's end says how many requests it refused).
 */
export class Refusal extends DomainError {
  constructor(
    readonly condition: ConditionKind,
    message: string,
    readonly retryAfterSeconds: number,
    private readonly count?: (by: 'request' | 'job') => void,
  ) {
    super('unavailable', message);
  }

  /** Counts this refusal in its condition: a request answered with it, or a job runner's step that will try again. */
  counted(by: 'request' | 'job'): void {
    this.count?.(by);
  }
}

/** Marks the end of an exhaustive `switch`: a case left out makes `value` not `never`, a type error here. */
export function unreachable(value: never, what = 'value'): never {
  throw new Error(`unhandled ${what}: ${JSON.stringify(value)}`);
}
