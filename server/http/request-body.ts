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
