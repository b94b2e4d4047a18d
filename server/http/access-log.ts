// The server's log: pino, as JSON lines or as one readable line per entry (LOG_FORMAT; unset, readable lines when
// the log goes to a terminal and JSON lines otherwise); and the access log, a line per request when it has been
// answered (method, path, operation id, status, duration, request id, and on an error answer the reason the client was
// given): a 5xx's always, at `warn` (a request the server could not serve: a 503 while the database is unreachable or
// its storage full, a 500's stack logged beside it by http/errors.ts), every other one at `info` with LOG_REQUESTS.
import type { NextFunction, Request, Response } from 'express';
import { type DestinationStream, type Logger, pino } from 'pino';
import type { Config, LogFormat } from '../common/config.ts';
import { BoundedLog, LOG_BUFFER_BYTES, standardOutputLog } from './log-output.ts';

/** Fields of an access-log line (its message is `request`). */
export interface AccessLogFields {
  requestId: string;
  method: string;
  /** The path, without the query string. */
  path: string;
  /** The contract's operation, when the path and method are one. */
  operationId?: string;
  status: number;
  /** Milliseconds from the request's arrival to the last byte of the answer, to 0.1 ms. */
  ms: number;
  /** On an error answer (4xx, 5xx): the message of the error envelope, naming the field. */
  reason?: string;
}

/** The reason of an error answer, as the error writer (http/errors.ts) records it for the access log. */
export const REASON = 'reason';

type WithOperation = Request & { openapi?: { schema?: { operationId?: string } } };

/**
 * The access-log middleware: with `everyRequest` (LOG_REQUESTS), a line for every request; without, for a 5xx alone.
 * It passes requests on untouched when no line it could write is at an enabled level.
 */
export function accessLog(log: Logger, everyRequest: boolean) {
  const answered = everyRequest && log.isLevelEnabled('info');
  const failed = log.isLevelEnabled('warn');
  return function accessLogMiddleware(req: Request, res: Response, next: NextFunction) {
    if (!answered && !failed) return next();
    const started = performance.now();
    res.once('finish', () => {
      if (res.statusCode < 500 && !answered) return;
      const query = req.originalUrl.indexOf('?');
      const fields: AccessLogFields = {
        requestId: req.id,
        method: req.method,
        path: query < 0 ? req.originalUrl : req.originalUrl.slice(0, query),
        operationId: (req as WithOperation).openapi?.schema?.operationId,
        status: res.statusCode,
        ms: Math.round((performance.now() - started) * 10) / 10,
        reason: res.statusCode >= 400 ? (res.locals[REASON] as string | undefined) : undefined,
      };
      if (fields.status >= 500) log.warn(fields, 'request');
      else log.info(fields, 'request');
    });
    next();
  };
}

const LEVEL_NAMES: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
/** Fields a pretty line shows in its own way, or not at all. */
const HIDDEN = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'err']);

/** Arrays longer than this are shown as their length, first and last items (a first start's 29 migrations). */
const ARRAY_SHOWN = 3;

/** A field's value in a pretty line: strings as they are, long arrays shortened, anything else as JSON. */
function prettyValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.length > ARRAY_SHOWN) {
    return `${value.length} (${prettyValue(value[0])} … ${prettyValue(value.at(-1))})`;
  }
  return JSON.stringify(value);
}

/**
 * One pino JSON line as one readable line: `12:00:01.234 INFO  GET /v1/orgs 200 3.1 ms listOrganizations [id]`,
 * then ` - reason` on an error answer; other entries as `time LEVEL message key=value…` (times in UTC), an error's
 * stack below. A field whose text the message already shows (8 characters or more: the address in the "listening"
 * line) is left out; an array of more than three items is shown as `key=29 (first … last)`.
 */
export function prettyLine(json: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.endsWith('\n') ? json : `${json}\n`;
  }
  const time = new Date(Number(entry.time)).toISOString().slice(11, 23);
  const level = (LEVEL_NAMES[Number(entry.level)] ?? String(entry.level)).padEnd(5);
  let text: string;
  if (entry.msg === 'request' && typeof entry.status === 'number') {
    text = `${entry.method} ${entry.path} ${entry.status} ${entry.ms} ms${entry.operationId ? ` ${entry.operationId}` : ''} [${entry.requestId}]`;
    if (entry.reason) text += ` - ${entry.reason}`;
  } else {
    const message = typeof entry.msg === 'string' ? entry.msg : '';
    const rest = Object.entries(entry)
      .filter(([key, value]) => !HIDDEN.has(key) && !(typeof value === 'string' && value.length >= 8 && message.includes(value)))
      .map(([key, value]) => `${key}=${prettyValue(value)}`);
    text = [message, ...rest].join(' ');
    const err = entry.err as { stack?: string; message?: string } | undefined;
    if (err) text += `\n  ${(err.stack ?? err.message ?? '').split('\n').join('\n  ')}`;
  }
  return `${time} ${level} ${text}\n`;
}

/** A destination writing each JSON line as a pretty line to `out`. */
export const prettyDestination = (out: { write(text: string): unknown }): DestinationStream => ({
  write: (line: string) => void out.write(prettyLine(line.replace(/\n$/, ''))),
});

/** Where log lines go: stdout, or what a test gives; `isTTY` as Node's streams have it. */
export interface LogOutput {
  write(text: string): unknown;
  isTTY?: boolean;
}

/** The format of the lines written to `output`: LOG_FORMAT's when set; unset (`auto`), pretty on a terminal. */
export function logFormatFor(format: Config['logFormat'], output: Pick<LogOutput, 'isTTY'>): LogFormat {
  if (format !== 'auto') return format;
  return output.isTTY === true ? 'pretty' : 'json';
}

/**
 * The server's logger for its configuration: level and format. `destination` replaces standard output (tests); on
 * standard output, the lines go through its bounded buffer (log-output.ts), whose dropped lines this logger counts
 * in a `warn` line once the output takes lines again.
 */
export function createLogger(config: Pick<Config, 'logLevel' | 'logFormat'>, destination?: LogOutput): Logger {
  const options = { level: config.logLevel };
  const output = destination ?? standardOutputLog();
  const log =
    logFormatFor(config.logFormat, output) === 'pretty'
      ? pino(options, prettyDestination(output))
      : pino(options, { write: (line: string) => void output.write(line) });
  if (output instanceof BoundedLog) {
    output.onResumed = (dropped) =>
      log.warn({ droppedLogLines: dropped }, `${dropped} log line${dropped === 1 ? ' was' : 's were'} dropped: standard output took none for a while, and the log keeps at most ${LOG_BUFFER_BYTES / 1024} KiB waiting`);
  }
  return log;
}
