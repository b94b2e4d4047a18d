// The node:http server that serves the Express app, built so that Express never changes an object's prototype: each
// request and response is created with the app's prototypes already, so V8 keeps their property access fast. Its
// connections write what a turn answered at the end of that turn (write-together.ts) (server/docs/design.md, "Requests
// born with the app's prototypes").
import { createServer, IncomingMessage, type Server, type ServerOptions, ServerResponse } from 'node:http';
import type { Express } from 'express';
import type { Speedup } from '../common/config.ts';
import { parseInSlices } from './parse-slices.ts';
import { writeTogether } from './write-together.ts';
import { boundConnections, type ConnectionsInFlight, PIPELINE_LIMITS } from '../http/connection-bound.ts';

/**
 * What bounds a client's connections (server/docs/limits.md, "Connections and slow clients"), written out rather than
 * left to Node's defaults (which they are today), so that a default changed by a Node release changes nothing here:
 * - `headersTimeout`: a connection that has not sent a whole request head within it (nothing at all, or a byte at a
 *   time) is answered 408 and closed (Node checks every 30 s, so it may last up to 30 s more);
 * - `requestTimeout`: likewise for the whole request, its body included;
 * - `keepAliveTimeout`: an idle kept-alive connection is closed after it;
 * - `maxHeaderSize`: a request head larger than it (request line included) is answered 431;
 * - `maxConnections` (MAX_CONNECTIONS): a connection beyond it is closed as soon as it is accepted.
 * What one connection holds of its requests and their answers is bounded beside them (http/connection-bound.ts).
 */
export const CONNECTION_LIMITS = Object.freeze({
  headersTimeout: 60_000,
  requestTimeout: 300_000,
  keepAliveTimeout: 5_000,
  maxHeaderSize: 16 * 1024,
  maxConnections: 1000,
} satisfies ServerOptions & { maxConnections: number });

export interface AppServer {
  server: Server;
  /**
   * Serves `app` on the server: call it once. Requests that arrive before (the server listens while it opens its
   * database and seeds it, which may take a while on PostgreSQL) wait, and are served then.
   */
  serve(app: Express): void;
  /**
   * Serves `app` instead of the app served now, from the next request on (the test harness's reset, server.ts);
   * requests under way finish on the app that received them. Requests of a replacing app do not have its prototypes
   * from birth: Express changes them on arrival, which is slower (above) and right.
   */
  replace(app: Express): void;
  /** The requests received and not answered, as a shutdown needs them (http/connection-bound.ts). */
  inFlight: ConnectionsInFlight;
}

/**
 * A node:http server whose requests and responses are born with the prototypes of the app it will serve. The server
 * exists before the app (it listens first, to learn its address), so the prototypes are placed between node's and
 * the app's when `serve` is called: request -> AppRequest.prototype -> app.request -> Express's request ->
 * IncomingMessage.prototype.
 */
export function appServer(off: readonly Speedup[] = [], maxConnections = CONNECTION_LIMITS.maxConnections): AppServer {
  class AppRequest extends IncomingMessage {}
  class AppResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {}
  const prototypes = !off.includes('app-prototypes');
  const { maxConnections: _, ...limits } = CONNECTION_LIMITS;
  const server = createServer(prototypes ? { ...limits, IncomingMessage: AppRequest, ServerResponse: AppResponse } : limits);
  server.maxConnections = maxConnections;
  if (!off.includes('write-together')) server.on('connection', writeTogether);
  // While connections go past their bound, what connections send is parsed a slice at a time (parse-slices.ts).
  const slices = off.includes('parse-slices') ? undefined : parseInSlices();
  if (slices) server.on('connection', slices.connection);
  let serving: Express | undefined;
  const waiting: [IncomingMessage, ServerResponse][] = [];
  // At most a few requests of a connection at once, served one after the other; what the shutdown knows of them
  // (http/connection-bound.ts).
  const inFlight = boundConnections(server, (req, res) => (serving ? serving(req, res) : waiting.push([req, res])), PIPELINE_LIMITS, slices?.pastBound);
  return {
    server,
    inFlight,
    serve(app) {
      if (serving) throw new Error('appServer: serve(app) was already called');
      if (prototypes) {
        Object.setPrototypeOf(AppRequest.prototype, app.request);
        Object.setPrototypeOf(AppResponse.prototype, app.response);
        app.request = AppRequest.prototype as unknown as Express['request'];
        app.response = AppResponse.prototype as unknown as Express['response'];
      }
      serving = app;
      for (const [req, res] of waiting.splice(0)) app(req, res);
    },
    replace(app) {
      if (!serving) throw new Error('appServer: replace(app) before serve(app)');
      serving = app;
    },
  };
}
