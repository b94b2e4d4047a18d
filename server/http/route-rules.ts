// How a route runs a handler other than in the app's one write transaction per request: `ownTransaction` marks a
// handler that waits on the network first and then writes in a `Store.write` of its own; `withFirstTry` gives a handler
// a first try whose statements wait for no answer before the commit, the handler running after it when it declines or
// changed nothing (server/docs/design.md, "How a route runs a handler").
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
