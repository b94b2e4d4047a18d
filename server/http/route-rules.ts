// Which handlers open their write transactions themselves. The app runs every other handler of a request that is
// not a GET inside one write transaction (`Store.write`), which makes the request all or nothing. A handler that
// must wait on the network first (a website import crawls for up to three outbound timeouts) would hold that
// transaction, and with it every other write of the server, for as long as it waits: such a handler is marked with
// `ownTransaction`, does its waiting first, and writes inside a `Store.write` of its own, checking again there what
// it checked before waiting.
//
// A handler may also have a first try (`withFirstTry`) that waits for no answer of the database before its commit: its
// statements leave with `Db.later`, so that on PostgreSQL the writes of a group go in one round trip instead of one
// each. The route prepares the first try outside any transaction (it may decline: a request it does not cover), runs
// it in the write transaction, and once that has committed, asks it for its answer; a first try whose write changed
// nothing (its statements check access themselves, for the common case only) answers undefined. Either way the route
// then runs the handler in a write of its own: what it refuses, and how, stays the handler's. Without the first try,
// the handler alone gives the same answers.
import type { AppContext, Scope } from '../context/context.ts';
import type { HandlerRequest, HandlerResult, OperationId } from './handler.ts';

const marked = new WeakSet<object>();

/** Marks `handler` as opening its own write transaction (see above); returns it. */
export function ownTransaction<H extends (...args: never[]) => unknown>(handler: H): H {
  marked.add(handler);
  return handler;
}

/** Whether `handler` was marked by `ownTransaction`. */
export const opensOwnTransaction = (handler: unknown): boolean => typeof handler === 'function' && marked.has(handler);

/**
 * A first try (see above), prepared from the request outside any transaction (without the database: what the
 * instance knows, the request's own checks): undefined when it cannot be tried, for the handler to answer alone;
 * otherwise its work in the write, which answers, once the write has committed, its answer or undefined.
 */
export type FirstTry<K extends OperationId> = (
  request: HandlerRequest<K>,
  ctx: AppContext,
) => ((scope: Scope) => () => Promise<HandlerResult<K> | undefined>) | undefined;

/** A first try as the route calls it. */
export type AnyFirstTry = (request: unknown, ctx: AppContext) => ((scope: Scope) => () => Promise<{ status: number } | undefined>) | undefined;

const firstTries = new WeakMap<object, AnyFirstTry>();

/** Gives `handler` its first try (see above); returns the handler. */
export function withFirstTry<K extends OperationId, H extends (request: HandlerRequest<K>, ctx: Scope) => Promise<HandlerResult<K>>>(
  handler: H,
  firstTry: FirstTry<K>,
): H {
  firstTries.set(handler, firstTry as unknown as AnyFirstTry);
  return handler;
}

/** The first try `withFirstTry` gave `handler`, if any. */
export const firstTryOf = (handler: unknown): AnyFirstTry | undefined => (typeof handler === 'function' ? firstTries.get(handler) : undefined);
