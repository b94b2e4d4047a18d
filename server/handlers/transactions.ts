// Which handlers open their write transactions themselves. The app runs every other handler of a request that is
// not a GET inside one write transaction (`Store.write`), which makes the request all or nothing. A handler that
// must wait on the network first (a website import crawls for up to three outbound timeouts) would hold that
// transaction, and with it every other write of the server, for as long as it waits: such a handler is marked with
// `ownTransaction`, does its waiting first, and writes inside a `Store.write` of its own, checking again there what
// it checked before waiting.

const marked = new WeakSet<object>();

/** Marks `handler` as opening its own write transaction (see above); returns it. */
export function ownTransaction<H extends (...args: never[]) => unknown>(handler: H): H {
  marked.add(handler);
  return handler;
}

/** Whether `handler` was marked by `ownTransaction`. */
export const opensOwnTransaction = (handler: unknown): boolean => typeof handler === 'function' && marked.has(handler);
