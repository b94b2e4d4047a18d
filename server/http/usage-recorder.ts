// The server's side of a consumer's usage record (testing/usage.ts): each request for an operation of the contract the
// server serves, its body as sent and its answer as written, read by conformance/records/usage-fields.ts (as the proxy reads
// what it forwards), merged into a record of this server's own, written when it stops and when its process exits.
// Off, none of this is installed: no request or answer is watched.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { contractIdentity } from '../../conformance/records/consumer.ts';
import { loadContract as contractOf, type Operation } from '../../conformance/contract/contract.ts';
import { httpExchange, usageOf } from '../../conformance/records/usage-fields.ts';
import { emptyOperationUsage, emptyUsage, mergeOperationUsage, type UsageRecord } from '../../conformance/records/usage-format.ts';
import type { OpenApiDocument } from './contract.ts';
import { recordWriter } from './record-file.ts';
import { RouteIndex } from './route-index.ts';

export interface UsageRecorder {
  /** The first handler of every request: follows one for an operation of the contract until it is answered. */
  watch(req: Request, res: Response, next: NextFunction): void;
  /** express.json's `verify`: the request body as it was sent, before anything parsed or changed it. */
  sent(req: IncomingMessage, res: ServerResponse, body: Buffer): void;
  /** Called once the validator has accepted the request: only then is what it sent recorded (below). */
  accepted(req: Request): void;
  /** Writes the record (again, with what was used since), when anything was. */
  write(): void;
}

/** A media type whose body is read for its fields (the rest: its media type only, from its first bytes). */
const JSON_BODY = /[/+]json$/;

const mediaTypeOf = (value: unknown) => (value === undefined ? undefined : String(value).split(';')[0]!.trim().toLowerCase());

/** Records what `consumer` used of `document`, the contract the server serves, into a file of its own in `records`. */
export function usageRecorder(document: OpenApiDocument, records: string, consumer: UsageRecord['consumer'], log: Pick<Logger, 'warn'>): UsageRecorder {
  const contract = contractOf(document);
  const index = new RouteIndex(document.paths);
  const operations = new Map([...contract.operations.values()].map((operation) => [`${operation.method.toUpperCase()} ${operation.path}`, operation]));
  const bodies = new WeakMap<IncomingMessage, Buffer>();
  const accepted = new WeakSet<Request>();
  let record: UsageRecord | undefined;
  let changed = false;
  const write = recordWriter(records, () => {
    if (!changed) return undefined;
    changed = false;
    return JSON.stringify(record);
  });

  /** The operation a request is for, and its path parameters (HEAD is GET's); undefined outside the contract. */
  const operationOf = (req: Request): { operation: Operation; pathParams: Record<string, string> } | undefined => {
    // A trailing slash is the path without it, as Express and the validator route it.
    const pathname = req.path.length > 1 && req.path.endsWith('/') ? req.path.slice(0, -1) : req.path;
    const match = index.find(pathname);
    const operation = match && operations.get(`${req.method === 'HEAD' ? 'GET' : req.method} ${match.template}`);
    if (!match || !operation) return undefined;
    const pathParams: Record<string, string> = {};
    for (const { name, raw } of match.params) {
      try {
        pathParams[name] = decodeURIComponent(raw);
      } catch {
        pathParams[name] = raw;
      }
    }
    return { operation, pathParams };
  };

  return {
    watch(req, res, next) {
      const found = operationOf(req);
      if (!found) return next();
      // The answer as written: a JSON body whole, any other its first bytes (its media type is what is kept of it);
      // HEAD's none, as HTTP sends none.
      const chunks: Buffer[] = [];
      let keep = req.method !== 'HEAD';
      // As sent: the validator is given a Content-Type of the contract's later (http/request-body.ts).
      const contentType = req.headers['content-type'];
      const kept = (chunk: unknown, encoding: unknown) => {
        if (!keep || chunk === undefined || chunk === null || typeof chunk === 'function') return;
        const bytes = Buffer.isBuffer(chunk) ? chunk : typeof chunk === 'string' ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8') : Buffer.from(chunk as Uint8Array);
        if (bytes.length === 0) return;
        chunks.push(bytes);
        if (!JSON_BODY.test(mediaTypeOf(res.getHeader('content-type')) ?? '')) keep = false;
      };
      const { write: writeChunk, end } = res;
      res.write = function (this: Response, chunk: unknown, ...rest: unknown[]) {
        kept(chunk, rest[0]);
        return (writeChunk as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
      } as Response['write'];
      res.end = function (this: Response, chunk?: unknown, ...rest: unknown[]) {
        kept(chunk, rest[0]);
        return (end as (...args: unknown[]) => Response).call(this, chunk, ...rest);
      } as Response['end'];
      res.once('finish', () => {
        // What a request the validator refused sent is not recorded, only that the operation was called and what it
        // answered: its parameters' names and values, its body's fields, are the caller's to invent (an unknown
        // query name, a value outside an enumeration, a body nesting 100 000 levels), and a record holding them grew
        // with every such request. What the contract accepts is bounded by the contract.
        const valid = accepted.has(req);
        const query = valid ? req.originalUrl.indexOf('?') : -1;
        const sentBody = valid ? bodies.get(req) : undefined;
        try {
          const exchange = httpExchange(
            contract,
            found.operation,
            valid ? found.pathParams : {},
            { search: query < 0 ? '' : req.originalUrl.slice(query), headers: valid ? req.headers : {}, contentType: valid ? contentType : undefined, text: sentBody?.toString('utf8') },
            res.statusCode,
            { contentType: res.getHeader('content-type')?.toString(), text: chunks.length > 0 ? Buffer.concat(chunks).toString('utf8') : undefined, headers: res.getHeaders() },
          );
          record ??= emptyUsage(consumer, contractIdentity(contract), 'harness');
          mergeOperationUsage((record.operations[found.operation.operationId] ??= emptyOperationUsage()), usageOf(contract, valid ? exchange : { ...exchange, refused: true }));
          changed = true;
        } catch (error) {
          // A record that cannot take an exchange loses that exchange, never the server: this runs after the answer.
          log.warn({ operationId: found.operation.operationId, err: error }, 'usage record: an exchange was not recorded');
        }
      });
      next();
    },
    sent(req, _res, body) {
      bodies.set(req, body);
    },
    accepted(req) {
      accepted.add(req);
    },
    write,
  };
}
