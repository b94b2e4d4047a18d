// The body of an operation that takes one: JSON, and said to be JSON. A body that comes without a Content-Type is
// refused with a 415 naming application/json, never read as JSON by guess nor dropped: a server that ignored it
// answered the operation as if no body had been sent, so a create stored its defaults and told the client it had
// succeeded. A request without a body (no Content-Length, `Content-Length: 0`, or a chunked body that turns out
// empty) is a request without a body, whatever its headers, and goes on as one.
import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';

/** The error of a body without a Content-Type: the error writer (http/errors.ts) answers it as a 415. */
function untyped(): Error {
  return Object.assign(new Error('the request has a body and no Content-Type: send it as application/json'), { status: 415 });
}

/** The error of a body larger than the limit: the error writer answers it as a 413, as it does express.json's. */
function tooLarge(limit: number): Error {
  return Object.assign(new Error('request entity too large'), { type: 'entity.too.large', limit, status: 413 });
}

/**
 * Reads the JSON body of an operation that takes one (`express.json` with `limit`, and `verify`, which is given the
 * body as it came, when there is one: the harness's usage record), refusing an untyped body. A body
 * whose Content-Length is over the limit is refused before a byte of it is read: express.json reads a body it refuses
 * to its end before it answers (a body of any size read whole to answer a 413), and the client sends it all meanwhile; answered at
 * once, the client stops sending, and what was already on its way is discarded unread.
 */
export function jsonBody(limit: number, verify?: (req: IncomingMessage, res: ServerResponse, body: Buffer) => void): RequestHandler {
  const json = express.json({ limit, ...(verify ? { verify } : {}) });
  return (req: Request, res: Response, next: NextFunction) => {
    if (Number(req.headers['content-length']) > limit) return next(tooLarge(limit));
    if (req.headers['content-type']) return json(req, res, next);
    const length = req.headers['content-length'];
    if (length !== undefined) return /^0+$/.test(length.trim()) ? next() : next(untyped());
    if (req.headers['transfer-encoding'] === undefined) return next();
    // A chunked body without a type: refused at its first byte, accepted as no body when it ends empty. What is left
    // of a refused body is discarded unread (node:http drains a request its answer did not read).
    let settled = false;
    const settle = (error?: unknown) => {
      if (settled) return;
      settled = true;
      req.off('data', onData).off('end', onEnd).off('error', settle);
      if (error) next(error);
      else next();
    };
    const onData = (chunk: Buffer) => {
      if (chunk.length > 0) settle(untyped());
    };
    const onEnd = () => settle();
    req.on('data', onData).on('end', onEnd).on('error', settle);
  };
}

/** The error of a body of a media type its operation does not declare: the error writer answers it as a 415. */
function unsupported(mediaType: string): Error {
  return Object.assign(new Error(`unsupported media type ${mediaType}`), { status: 415 });
}

/**
 * Gives the validator the request's Content-Type as one of the few values that can select a schema: the media type
 * the operation declares for its body, without parameters, or none. express-openapi-validator builds and keeps a
 * request and a response validator for each method, route and Content-Type it is given, parameters included (all but
 * `boundary`): a caller varying a parameter (`application/json; x=1`, `x=2`…), or the type of a request whose body is
 * never read (a GET's), grew the server with every new value, without bound (server/docs/limits.md). What the
 * validator chooses a schema by is the media type alone: the contract declares request bodies by media type
 * (`application/json`, no parameters: a contract test holds it to that), and a JSON body's charset has been applied
 * by then (`jsonBody`). So:
 * - an operation that declares a body, and a type it declares: the validator is given that media type, as the
 *   contract writes it;
 * - an operation that declares a body, and a type it does not declare: a 415 naming it, as the validator answered;
 * - any other request (no body declared, an unknown path or method): its body is discarded unread, and the validator
 *   is given no Content-Type, which is what it chooses by for those.
 * The usage recorder reads the header as sent before this runs (http/usage-recorder.ts).
 */
export function validatorContentType(bodyTypes: (req: Request) => readonly string[] | undefined): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    const header = req.headers['content-type'];
    if (header === undefined) return next();
    const declared = bodyTypes(req);
    if (declared === undefined) {
      delete req.headers['content-type'];
      return next();
    }
    const mediaType = header.split(';')[0]!.trim().toLowerCase();
    const type = declared.find((each) => each.toLowerCase() === mediaType);
    if (type === undefined) return next(unsupported(mediaType));
    req.headers['content-type'] = type;
    next();
  };
}
