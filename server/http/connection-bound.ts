// What one connection may hold (server/docs/limits.md, "Requests pipelined on one connection"): at most
// PIPELINE_LIMITS.requests of its requests received and not answered whole, served one at a time; one past them closes
// the connection (what it sent is parsed a slice at a time: speed/parse-slices.ts); a client that reads nothing for
// PIPELINE_LIMITS.unreadMs is closed. What it counts tells a shutdown the requests in flight. Why node:http does not
// bound it: `boundConnections` below.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export const PIPELINE_LIMITS = Object.freeze({
  /** Requests of one connection received and not answered whole at once; one more closes the connection. */
  requests: 32,
  /**
   * How long a connection may hold answers the client does not read (bytes the operating system has not taken) with
   * no answer written whole and no write drained meanwhile: closed past it, checked every quarter of it.
   */
  unreadMs: 30_000,
});

const OPEN = Symbol('requests open');
const WAITING = Symbol('requests waiting');
const PROGRESS = Symbol('last progress');
const LAST = Symbol('last answer');

type Serve = (req: IncomingMessage, res: ServerResponse) => void;

/** A connection, with what the bound counts on it. */
interface Counted extends Socket {
  [OPEN]: number;
  /** Requests received while one before was being answered, served one at a time (created on the first). */
  [WAITING]?: [IncomingMessage, ServerResponse][];
  [PROGRESS]: number;
  /** The answer of the connection's last request received (what a shutdown makes end the connection). */
  [LAST]?: ServerResponse;
}

/** The connection's writes drained: the client reads. */
function drained(this: Counted): void {
  this[PROGRESS] = Date.now();
}

/**
 * What a shutdown (start/server.ts, `close`) knows of the requests received and not answered, from the counts the
 * bound keeps anyway: no work of its own on a request (server/docs/running-and-configuration.md, "Requests in flight at a shutdown").
 */
export interface ConnectionsInFlight {
  /** Requests received and not answered whole, on connections still open. */
  readonly count: number;
  /**
   * From now on each connection's last answer ends it (`Connection: close`): the last of the requests received,
   * unless its answer has begun, and then each request's to come; every request received before it is answered.
   */
  lastOnTheirConnections(): void;
  /** Resolves once no request is in flight: those received now, and those that arrive meanwhile. */
  answered(): Promise<void>;
}

/**
 * Bounds the connections of `server` (above), whose requests are served by `serve`; `limits` are the tests'. What it
 * counts tells a shutdown which requests are in flight.
 *
 * Why here and not in node:http: node's server parses every request of the chunk it read from a connection (up to 64
 * KiB, a thousand small requests) before it looks whether the connection's answers are being read, and answers all of
 * them; it stops reading the connection only after that chunk. A client that pipelines thousands of requests and reads
 * nothing made the server keep every answer: megabytes per connection. So a request past the bound closes its
 * connection at once: a client that pipelines is told by the closed connection to send again what was not answered
 * (RFC 9112, 9.3.2). Node's parser cannot be stopped within what it was given (socket.pause() takes effect after
 * it), so every request of the chunk that held the one past the bound is parsed, and aborted as the connection closes,
 * unless the parser is given a slice at a time (speed/parse-slices.ts, told by `pastBound`, with the open connections).
 */
export function boundConnections(
  server: Server,
  serve: Serve,
  limits: { requests: number; unreadMs: number } = PIPELINE_LIMITS,
  pastBound?: (open: ReadonlySet<Socket>) => void,
): ConnectionsInFlight {
  /** Requests received and not answered whole, over every connection. */
  let open = 0;
  /** Set once a shutdown began: every connection ends with its last answer. */
  let last = false;
  /** The answers a shutdown made end their connection, where Node would have kept it open. */
  const ending = new WeakSet<ServerResponse>();
  let waiters: (() => void)[] = [];
  const settled = () => {
    if (open === 0 && waiters.length > 0) for (const resolve of waiters.splice(0)) resolve();
  };
  /** `res` ends its connection; the answer before it on the connection, if the shutdown made it end it, no longer does. */
  const endWith = (socket: Counted, res: ServerResponse) => {
    const before = socket[LAST];
    if (before !== undefined && before !== res && ending.has(before) && !before.headersSent) {
      before.shouldKeepAlive = true;
      ending.delete(before);
    }
    if (res.shouldKeepAlive && !res.headersSent) {
      res.shouldKeepAlive = false;
      ending.add(res);
    }
  };

  /** A response written whole: the client took an answer; the next request of its connection is served. */
  function answered(this: ServerResponse): void {
    const socket = this.req.socket as Counted;
    // Counted off already when its connection closed.
    if (!(socket[OPEN] > 0)) return;
    socket[OPEN]--;
    open--;
    socket[PROGRESS] = Date.now();
    const next = socket[WAITING]?.shift();
    if (next !== undefined && !socket.destroyed) serve(next[0], next[1]);
    settled();
  }
  const sockets = new Set<Counted>();
  server.on('connection', (socket: Socket) => {
    const counted = socket as Counted;
    counted[OPEN] = 0;
    counted[PROGRESS] = Date.now();
    sockets.add(counted);
    socket.on('drain', drained);
    socket.once('close', () => {
      sockets.delete(counted);
      // Its answers not written whole never will be.
      open -= counted[OPEN];
      counted[OPEN] = 0;
      if (counted[WAITING] !== undefined) counted[WAITING].length = 0;
      counted[LAST] = undefined;
      settled();
    });
  });
  // A connection holding unread answers with no progress for unreadMs is closed.
  const sweep = setInterval(() => {
    const stale = Date.now() - limits.unreadMs;
    for (const socket of sockets) {
      if (socket[OPEN] > 0 && socket.writableLength > 0 && socket[PROGRESS] < stale) socket.destroy();
    }
  }, limits.unreadMs / 4);
  sweep.unref();
  server.once('close', () => clearInterval(sweep));
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket as Counted;
    // A stream given as a connection (`server.emit('connection', stream)`) is counted from its first request.
    const counted = socket[OPEN] ?? 0;
    if (counted >= limits.requests || socket.destroyed) {
      if (!socket.destroyed) pastBound?.(sockets);
      // Its answers not written are dropped, and the requests waiting with them never served.
      socket.destroy();
      if (socket[WAITING] !== undefined) socket[WAITING].length = 0;
      return;
    }
    socket[OPEN] = counted + 1;
    open++;
    res.on('finish', answered);
    if (last) endWith(socket, res);
    socket[LAST] = res;
    if (counted === 0) {
      socket[PROGRESS] = Date.now();
      serve(req, res);
    } else {
      (socket[WAITING] ??= []).push([req, res]);
    }
  });
  return {
    get count() {
      return open;
    },
    lastOnTheirConnections() {
      last = true;
      for (const socket of sockets) if (socket[OPEN] > 0 && socket[LAST] !== undefined) endWith(socket, socket[LAST]);
    },
    answered: () => (open === 0 ? Promise.resolve() : new Promise((resolve) => waiters.push(resolve))),
  };
}
