// While connections go past their bound (http/connection-bound.ts), what a connection sent reaches node:http's parser
// a slice at a time, so that one the bound closes is parsed no further than a slice past it (server/docs/limits.md,
// "Requests pipelined on one connection"). It relies on node:http's own 'data' listener being the socket's one
// listener, and on node:http reading the socket in JavaScript once another is added: `parseInSlices` says why.
import type { Socket } from 'node:net';

/** Bytes of what a connection sent handed to node's parser at once. */
export const SLICE_BYTES = 4096;
/** How long after a connection went past its bound the connections accepted are sliced. */
export const ENGAGED_MS = 60_000;

type Parse = (chunk: Buffer) => void;

export interface ParseSlices {
  /** For the server's 'connection' event: the connection is sliced while engaged. */
  connection(socket: Socket): void;
  /** A connection went past its bound: the connections `open` now, and those accepted within ENGAGED_MS, are sliced. */
  pastBound(open: Iterable<Socket>): void;
}

/**
 * Hands node:http what a connection read a slice of `sliceBytes` at a time: no further once the connection is
 * destroyed, and what is left put back (`unshift`) once node paused the socket (it does while answers wait).
 *
 * Why: node:http parses every request of the chunk it read (up to 64 KiB, a thousand small requests) in one call, and
 * cannot be stopped within it (`socket.pause()` takes effect after it); each request parsed after its connection was
 * closed is also aborted with an error and its stack. Node's public API offers no smaller read for a server's
 * connections, so node:http's 'data' listener is called by this one instead, with each slice in turn. Adding a 'data'
 * listener makes node:http read the socket in JavaScript, as it does under TLS, rather than hand reads to its parser in
 * C++ (`parser.consume`), which costs every request of the connection some CPU (a few % on the cheapest reads). So a
 * connection is sliced only once some connection went past its bound: then every open connection (all but the one
 * being parsed are sliced before their next read) and every connection accepted within `engagedMs` of the last one
 * past its bound; the others keep node's own reading. What would let it go: a read size for a server's connections,
 * or a parser node:http stops once a request is refused. A socket that has other than one 'data' listener (a Node that
 * parses otherwise) is left as it is: `test/server/connection-bound.test.ts` then fails, as it counts what is parsed.
 */
export function parseInSlices(sliceBytes = SLICE_BYTES, engagedMs = ENGAGED_MS): ParseSlices {
  /** Each sliced connection's node:http 'data' listener, which parses what it is given. */
  const parsers = new WeakMap<Socket, Parse>();
  let engagedUntil = -Infinity;
  function feed(this: Socket, chunk: Buffer): void {
    const parse = parsers.get(this)!;
    if (chunk.length <= sliceBytes) return parse(chunk);
    for (let at = 0; at < chunk.length; at += sliceBytes) {
      if (this.destroyed) return;
      if (this.isPaused()) {
        this.unshift(chunk.subarray(at));
        return;
      }
      parse(chunk.subarray(at, at + sliceBytes));
    }
  }
  const slice = (socket: Socket) => {
    if (socket.destroyed || parsers.has(socket)) return;
    const listeners = socket.listeners('data');
    if (listeners.length !== 1) return;
    parsers.set(socket, listeners[0] as Parse);
    // Added before node's is removed, so that the socket keeps flowing.
    socket.on('data', feed);
    socket.removeListener('data', listeners[0] as Parse);
  };
  return {
    connection(socket) {
      if (engagedUntil > Date.now()) slice(socket);
    },
    pastBound(open) {
      const now = Date.now();
      const engaged = engagedUntil > now;
      engagedUntil = now + engagedMs;
      // Those accepted while engaged are sliced already.
      if (!engaged) for (const socket of open) slice(socket);
    },
  };
}
