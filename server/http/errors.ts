// One error envelope, `{"error": {"code", "message"}}`, and the one middleware that writes it for every failure: the
// one place where what went wrong (a DomainError's kind, server/common/errors.ts) becomes an HTTP status. Only a 500 (a
// bug) is logged here, with its stack; a 503 (the database closed, unreachable, or its storage full) is expected of
// the machine, and its access-log line (http/access-log.ts) says it, at warn, without a stack.
import type { ErrorRequestHandler, Request } from 'express';
import type { Logger } from 'pino';
import { DomainError, type FailureKind, Refusal } from '../common/errors.ts';
import { REASON } from './access-log.ts';

/** The status of each kind of failure. */
export const FAILURE_STATUS = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  'not-found': 404,
  conflict: 409,
  unavailable: 503,
} satisfies Record<FailureKind, number>;

/**
 * Extra headers of each kind of failure: a client told the database is unavailable may try again shortly (a
 * `Refusal` says when itself).
 */
const FAILURE_HEADERS: Partial<Record<FailureKind, Record<string, string>>> = { unavailable: { 'retry-after': '1' } };

/** A validation error of express-openapi-validator: `errors` with a `path` such as `/body/title`. */
type ValidatorError = {
  status: number;
  message: string;
  errors?: { path?: string; message?: string; errorCode?: string }[];
  headers?: Record<string, string>;
};

/** `request/body/title must NOT have fewer than 2 characters` becomes `body.title: must NOT have fewer than 2 characters`. */
function describeValidationErrors(error: ValidatorError): string {
  const parts = (error.errors ?? []).map((item) => {
    const where = (item.path ?? '')
      .replace(/^\.?\/?(request\/)?/, '')
      .replace(/\//g, '.')
      .replace(/^\./, '');
    const message = (item.message ?? '').replace(/^must NOT be valid$/, 'is not an allowed field (unknown property)');
    return where ? `${where}: ${message}` : message;
  });
  return parts.length > 0 ? [...new Set(parts)].join('; ') : error.message;
}

const GENERIC: Record<number, string> = {
  404: 'Not found',
  405: 'Method not allowed',
  413: 'Request body too large',
  415: 'Content-Type must be application/json',
};

export function errorWriter(log: Logger): ErrorRequestHandler {
  return (error, req: Request, res, _next) => {
    let status = 500;
    let message = 'Internal server error';
    let headers: Record<string, string> = {};

    if (error instanceof DomainError) {
      status = FAILURE_STATUS[error.kind];
      message = error.message;
      headers = FAILURE_HEADERS[error.kind] ?? {};
      if (error instanceof Refusal) {
        headers = { 'retry-after': String(error.retryAfterSeconds) };
        error.counted('request');
      }
    } else if (error?.type === 'entity.too.large') {
      status = 413;
      message = `Request body too large: at most ${error.limit} bytes`;
    } else if (error?.type === 'entity.parse.failed') {
      status = 400;
      message = `body: malformed JSON (${String(error.message).replace(/^Unexpected/, 'unexpected')})`;
    } else if (typeof error?.status === 'number' && error.status >= 400 && error.status < 500) {
      status = error.status;
      message = status === 400 ? describeValidationErrors(error as ValidatorError) : (GENERIC[status] ?? error.message);
      if (status === 415) message = `${GENERIC[415]}: ${error.message}`;
      headers = (error as ValidatorError).headers ?? {};
    }

    if (status === 500) {
      log.error({ err: error, requestId: req.id, method: req.method, url: req.originalUrl }, 'request failed');
    }
    // The access log's reason (http/access-log.ts).
    res.locals[REASON] = message;
    if (res.headersSent) return;
    res.set(headers).status(status).json({ error: { code: status, message } });
  };
}
