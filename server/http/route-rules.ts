// How a route runs a handler other than in the app's one write transaction per request: `ownTransaction` marks a
// handler that waits on the network first and then writes in a `Store.write` of its own (server/docs/design.md, "How a
// route runs a handler").

const marked = new WeakSet<object>();

/** Marks `handler` as opening its own write transaction (see above); returns it. */
export function ownTransaction<H extends (...args: never[]) => unknown>(handler: H): H {
  marked.add(handler);
  return handler;
}

/** Whether `handler` was marked by `ownTransaction`. */
export const opensOwnTransaction = (handler: unknown): boolean => typeof handler === 'function' && marked.has(handler);
