// The validating proxy (`docs-conformance proxy --target URL`): an HTTP server that forwards every request to the
// target and every answer back, unchanged and streamed, while it checks each request against the contract (a
// client's violation: request-check.ts) and each answer with the runner's own response validator (an
// implementation's violation: validate.ts). Bodies are copied aside for checking up to a size cap as they pass;
// a larger one is passed on whole and reported as not checked. `runProxyCommand` runs a command against it
// (DOCS_API_URL) or runs until a signal, then writes the reports and sums up; cli.ts gives it its options.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { Agent as HttpAgent, createServer, type IncomingMessage, request as httpRequest, type Server, type ServerResponse } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { constants } from 'node:os';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { type Contract, declaredResponse, loadContract, type OpenApiDocument, type Operation, pointerSegment } from './contract.ts';
import { type Coverage, coverageLine, emptyCoverage, recordAnswer } from './coverage.ts';
import { junitXml } from './junit.ts';
import { byPointer, type Finding, headerValue, type Match, type RequestChecker, requestCheckerOf, type RequestHead, type RequestProblemKind } from './request-check.ts';
import { UsageError } from './session.ts';
import type { CheckResult } from './types.ts';
import { bodySchemaPointer, dialectProblem, type Problem, type ProblemKind, type ResponseValidator, validatorOf } from './validate.ts';

/** The largest body (of a request or an answer) the proxy keeps to check: the runner's `--max-response-bytes` default. */
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

export interface ProxyOptions {
  /** Address of the implementation requests are forwarded to (`http://127.0.0.1:3000`; a path is prefixed to theirs). */
  target: string;
  /** Interface to listen on (default 127.0.0.1). */
  host?: string;
  /** Port to listen on (default 0: a free one). */
  port?: number;
  /** The OpenAPI document to check against: a file path or a parsed document (default generated/openapi.yaml). */
  contract?: string | OpenApiDocument;
  /** The largest body checked, in bytes (default DEFAULT_MAX_BODY_BYTES); a larger one passes unchecked. */
  maxBodyBytes?: number;
  /** Receives a line per request and per violation as they happen (the CLI's --verbose). */
  log?: (line: string) => void;
}

export type Side = 'client' | 'implementation';

export interface ProxyViolation {
  /** `client`: the request is outside the contract; `implementation`: the answer is. */
  side: Side;
  kind: RequestProblemKind | ProblemKind;
  /** The operation the request was for, when one of the contract matched it. */
  operationId?: string;
  method: string;
  /** The request target as sent: path and query. */
  path: string;
  /** Status of the answer the client got (the proxy's 502 when the target did not answer). */
  status: number;
  /** JSON pointer into the exchange seen as `{path, query, headers, body}`, or `/status`. */
  pointer?: string;
  /** The value found at the pointer (absent when missing). */
  value?: unknown;
  message: string;
}

/** A body that was passed on without being checked, and why. */
export interface NotChecked {
  side: Side;
  operationId?: string;
  method: string;
  path: string;
  status: number;
  reason: string;
}

export interface ProxyOperationReport {
  method: string;
  /** The path template. */
  path: string;
  requests: number;
  /** Every status answered, in order of first appearance. */
  statuses: number[];
}

export interface ProxyReport {
  target: string;
  /** The proxy's own address. */
  url: string;
  contract: string;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  summary: { requests: number; clientViolations: number; implementationViolations: number; notChecked: number };
  violations: ProxyViolation[];
  notChecked: NotChecked[];
  /** The operations requests were made for. */
  operations: Record<string, ProxyOperationReport>;
  /** Per operation of the contract, its declared statuses and those seen (coverage.ts). */
  coverage: Coverage;
  /** The command run against the proxy, and how it ended. */
  command?: { argv: string[]; exitCode: number | null; signal: string | null };
  /** Requests the run had to see to count as checked (`--min-requests`; runProxyCommand's reports only). */
  minRequests?: number;
}

export interface RunningProxy {
  /** Where the proxy listens (`http://127.0.0.1:PORT`). */
  readonly url: string;
  readonly target: string;
  readonly violations: readonly ProxyViolation[];
  /** Requests answered so far. */
  readonly requests: number;
  report(): ProxyReport;
  /** Resolves when every exchange under way has been checked and recorded. */
  idle(): Promise<void>;
  /** Stops listening, lets the exchanges under way finish (a few seconds at most), then closes every connection. */
  close(): Promise<void>;
}

// Headers that belong to one connection, not to the message (RFC 9110, section 7.6.1): never forwarded as they are.
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'transfer-encoding', 'upgrade']);
/** How long close() waits for exchanges under way before it cuts their connections. */
const CLOSE_GRACE_MS = 5_000;
/** How long an exchange whose answer is done waits for the rest of the request body before it is recorded. */
const BODY_GRACE_MS = 2_000;

/** A copy of a body as it passes, kept up to a cap; past the cap only its size is counted. */
class Tee {
  private chunks: Buffer[] = [];
  bytes = 0;
  overflowed = false;
  constructor(private readonly cap: number) {}
  push(chunk: Buffer): void {
    this.bytes += chunk.length;
    if (this.overflowed) return;
    if (this.bytes > this.cap) {
      this.overflowed = true;
      this.chunks = [];
      return;
    }
    this.chunks.push(chunk);
  }
  buffer(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

/** The body as text, decoded from its Content-Encoding, or why it cannot be checked. */
function bodyText(tee: Tee, encoding: string | undefined, cap: number): { text: string } | { reason: string } {
  if (tee.overflowed) return { reason: `the body is larger than ${cap} bytes (${tee.bytes} bytes)` };
  const raw = tee.buffer();
  const coding = (encoding ?? '').trim().toLowerCase();
  try {
    if (coding === '' || coding === 'identity') return { text: raw.toString('utf8') };
    if (coding === 'gzip' || coding === 'x-gzip') return { text: gunzipSync(raw, { maxOutputLength: cap }).toString('utf8') };
    if (coding === 'deflate') return { text: inflateSync(raw, { maxOutputLength: cap }).toString('utf8') };
    if (coding === 'br') return { text: brotliDecompressSync(raw, { maxOutputLength: cap }).toString('utf8') };
  } catch (error) {
    return { reason: `the body could not be decoded from ${coding}: ${(error as Error).message}` };
  }
  return { reason: `the body's content-encoding ${coding} is not one the proxy decodes` };
}

/** Name/value pairs of node:http's raw headers. */
function pairs(raw: string[]): [string, string][] {
  const result: [string, string][] = [];
  for (let index = 0; index + 1 < raw.length; index += 2) result.push([raw[index]!, raw[index + 1]!]);
  return result;
}

/** The headers named in Connection (hop-by-hop too), lower case. */
function connectionTokens(headers: [string, string][]): Set<string> {
  const named = new Set<string>();
  for (const [name, value] of headers) if (name.toLowerCase() === 'connection') for (const token of value.split(',')) named.add(token.trim().toLowerCase());
  return named;
}

const asHeaders = (list: [string, string][]): Headers => {
  const headers = new Headers();
  for (const [name, value] of list) {
    try {
      headers.append(name, value);
    } catch {
      // A header node:http accepted and fetch's Headers refuses (such as an obsolete line folding): not checked.
    }
  }
  return headers;
};

/** The request target's path and query (an absolute-form target, as a client configured for a forward proxy sends it, too). */
function splitTarget(target: string): { pathname: string; search: string } {
  let value = target;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
    const url = new URL(value);
    value = `${url.pathname}${url.search}`;
  }
  const mark = value.indexOf('?');
  return mark === -1 ? { pathname: value, search: '' } : { pathname: value.slice(0, mark), search: value.slice(mark + 1) };
}

function problemFindings(validator: ResponseValidator, operation: Operation, status: number, headers: Headers, json: unknown, problems: Problem[]): Finding<ProblemKind>[] {
  return problems.flatMap((problem): Finding<ProblemKind>[] => {
    switch (problem.kind) {
      case 'undeclared-status':
        return [{ ...problem, pointer: '/status', value: status }];
      case 'content-type': {
        const value = headers.get('content-type');
        return [{ ...problem, pointer: '/headers/content-type', ...(value !== null ? { value } : {}) }];
      }
      case 'missing-header':
      case 'header-schema': {
        const name = /header ([^\s:]+)/.exec(problem.message)?.[1]?.toLowerCase();
        const value = name ? headers.get(name) : null;
        return [{ ...problem, ...(name ? { pointer: `/headers/${pointerSegment(name)}` } : {}), ...(value !== null ? { value } : {}) }];
      }
      case 'error-envelope':
        return [{ ...problem, pointer: '/body/error/code', value: (json as { error?: { code?: unknown } }).error?.code }];
      case 'body-schema': {
        // validate.ts gives one problem for the whole body: validated again for each place, with its value.
        const declared = declaredResponse(operation, status)!.response;
        const media = declared.contentTypes.find((type) => /^application\/(.+\+)?json$/.test(type))!;
        const validate = validator.schemaAt(bodySchemaPointer(declared, media));
        validate(json);
        const lead = problem.message.slice(0, problem.message.indexOf(': ') + 2);
        return byPointer(validate.errors ?? [], json, '/body', 'body', 'body-schema', lead);
      }
      default:
        return [{ ...problem, pointer: '/body' }];
    }
  });
}

/** Starts the proxy; resolves once it listens. Throws UsageError for a target, contract or address it cannot use. */
export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  let target: URL;
  try {
    target = new URL(options.target);
  } catch {
    throw new UsageError(`--target ${options.target} is not a URL`);
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new UsageError(`--target ${options.target} is not an http: or https: URL`);
  let contract: Contract;
  try {
    contract = loadContract(options.contract);
  } catch (error) {
    throw new UsageError(`--contract ${String(options.contract)} cannot be read: ${(error as Error).message}`);
  }
  const dialect = dialectProblem(contract.document);
  if (dialect) throw new UsageError(dialect);
  const checker: RequestChecker = requestCheckerOf(contract);
  const validator = validatorOf(contract);
  const cap = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const prefix = target.pathname.replace(/\/+$/, '');
  const secure = target.protocol === 'https:';
  // Connections to the target are kept alive and shared by the exchanges. An idle one is closed after 4 s, before
  // the 5 s at which node:http servers (the reference server's among them) close theirs, so that a request is not
  // sent on a connection the target is closing.
  const agent = secure ? new HttpsAgent({ keepAlive: true, timeout: 4_000 }) : new HttpAgent({ keepAlive: true, timeout: 4_000 });
  const send = secure ? httpsRequest : httpRequest;
  const log = options.log;

  const startedAt = new Date();
  const violations: ProxyViolation[] = [];
  const notChecked: NotChecked[] = [];
  const operations: Record<string, ProxyOperationReport> = {};
  const coverage = emptyCoverage(contract);
  const pending = new Set<Promise<void>>();
  let requests = 0;

  function handle(req: IncomingMessage, res: ServerResponse): void {
    const started = performance.now();
    const method = req.method ?? 'GET';
    const path = req.url ?? '/';
    const head: RequestHead = { method, ...splitTarget(path), headers: req.headers };
    // A browser's CORS preflight is the browser's, not the client's request: passed on, not checked.
    const preflight = method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined;
    const match: Match | undefined = preflight ? undefined : checker.match(method, head.pathname);
    const operation = match?.operation;
    // A check that fails in itself (a schema Ajv cannot compile) must not stop the traffic: it is reported instead.
    let checkFailure: string | undefined;
    let clientFindings: Finding<RequestProblemKind>[] = [];
    try {
      clientFindings = preflight ? [] : match ? checker.checkHead(match, head) : [checker.unknown(head)];
    } catch (error) {
      checkFailure = (error as Error).message;
    }
    const requestTee = new Tee(cap);
    const responseTee = new Tee(cap);
    let status = 0;
    let responseHeaders: [string, string][] = [];
    let responded = false;
    let requestEnded = false;
    let networkError: string | undefined;
    let cutShort = false;
    let answerEnded = false;
    let outgoing: ReturnType<typeof send> | undefined;
    // The answer is sent (or the client gone): a request body still arriving is read and dropped.
    let discard = false;

    // Sent on as received: hop-by-hop headers dropped but a chunked request's framing; Host names the target;
    // Expect is the proxy's to answer (node:http sends the 100 Continue); Proxy-Authorization is meant for a proxy.
    const incoming = pairs(req.rawHeaders);
    const named = connectionTokens(incoming);
    const chunked = /(?:^|,)\s*chunked\s*$/i.test(headerValue(req.headers['transfer-encoding']) ?? '');
    const forward: string[] = ['Host', target.host];
    for (const [name, value] of incoming) {
      const lower = name.toLowerCase();
      if (lower === 'transfer-encoding') {
        if (chunked) forward.push(name, value);
        continue;
      }
      if (lower === 'host' || lower === 'expect' || lower === 'proxy-authorization' || named.has(lower) || HOP_BY_HOP.has(lower)) continue;
      forward.push(name, value);
    }
    const bodyless = !chunked && !(Number(req.headers['content-length'] ?? 0) > 0);

    let finishResponse!: () => void;
    const responseDone = new Promise<void>((resolve) => (finishResponse = resolve));
    let requestSettled = false;
    let settleRequest!: () => void;
    const requestDone = new Promise<void>((resolve) => (settleRequest = resolve));
    const finishRequest = () => {
      requestSettled = true;
      settleRequest();
    };

    res.sendDate = false;
    res.on('close', () => {
      // The client went away before the answer was sent, or the answer is done before the request body (the target
      // refused it by its length): the exchange with the target stops there, its connection with it.
      if (outgoing && (!res.writableFinished || !outgoing.writableFinished)) outgoing.destroy();
      discard = true;
      req.resume();
      finishResponse();
    });
    req.on('data', (chunk: Buffer) => {
      requestTee.push(chunk);
      if (discard || !outgoing || outgoing.destroyed) return;
      if (!outgoing.write(chunk)) {
        req.pause();
        outgoing.once('drain', () => req.resume());
      }
    });
    req.on('end', () => {
      requestEnded = true;
      if (!discard && outgoing && !outgoing.destroyed) outgoing.end();
      finishRequest();
    });
    req.on('close', finishRequest);
    req.on('error', finishRequest);

    const answerBadGateway = (reason: string) => {
      networkError = reason;
      status = 502;
      discard = true;
      if (res.headersSent) {
        cutShort = true;
        res.destroy();
        return;
      }
      const body = JSON.stringify({ error: { code: 502, message: `docs-conformance proxy: no answer from ${target.origin}: ${reason}` } });
      res.writeHead(502, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    };

    const open = (attempt: number) => {
      const request = send({
        protocol: target.protocol,
        hostname: target.hostname.replace(/^\[|\]$/g, ''),
        port: target.port || (secure ? 443 : 80),
        method,
        path: `${prefix}${head.pathname}${head.search ? `?${head.search}` : ''}`,
        headers: forward,
        setHost: false,
        agent,
      });
      outgoing = request;
      request.on('error', (error: NodeJS.ErrnoException) => {
        // After the answer came, the target closed its side of a body it refused; after the client went away, the
        // proxy closed this request itself: neither is the target's failure.
        if (responded || discard) return;
        // A kept-alive connection the target closed as the request went out: a request without a body is sent again.
        if (attempt === 0 && bodyless && request.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE')) return open(1);
        answerBadGateway(error.code ?? error.message);
      });
      request.on('response', (answer: IncomingMessage) => {
        responded = true;
        status = answer.statusCode ?? 0;
        const received = pairs(answer.rawHeaders);
        const hop = connectionTokens(received);
        responseHeaders = received.filter(([name]) => !HOP_BY_HOP.has(name.toLowerCase()) && !hop.has(name.toLowerCase()));
        if (res.destroyed) {
          answer.destroy();
          return;
        }
        res.writeHead(status, answer.statusMessage, responseHeaders.flat());
        answer.on('data', (chunk: Buffer) => {
          responseTee.push(chunk);
          if (!res.write(chunk)) {
            answer.pause();
            res.once('drain', () => answer.resume());
          }
        });
        answer.on('end', () => {
          answerEnded = true;
          const trailers = pairs(answer.rawTrailers);
          if (trailers.length > 0) res.addTrailers(trailers);
          res.end();
        });
        answer.on('close', () => {
          if (answer.complete || discard) return;
          networkError = 'the connection to the target closed before the answer ended';
          cutShort = true;
          res.destroy();
        });
      });
      if (bodyless) request.end();
    };
    open(0);
    if (bodyless) req.resume();

    const exchange = (async () => {
      await responseDone;
      // The answer may end before the request body does (a body the target refused by its length): the rest of it
      // is read and dropped, for a moment at most.
      const waited = requestSettled || (await Promise.race([requestDone.then(() => true), new Promise<false>((resolve) => setTimeout(() => resolve(false), BODY_GRACE_MS).unref())]));
      record(
        { method, path, status, operation, started },
        {
          clientFindings,
          requestTee,
          requestComplete: requestEnded && waited,
          requestHeaders: req.headers,
          head,
          responseTee,
          responseHeaders,
          answerComplete: answerEnded,
          checkFailure,
          networkError,
          cutShort,
          preflight,
        },
      );
    })().catch((error: unknown) => {
      notChecked.push({ side: 'implementation', method, path, status, reason: `the proxy could not record it: ${(error as Error).message}` });
    });
    pending.add(exchange);
    void exchange.finally(() => pending.delete(exchange));
  }

  function record(
    exchange: { method: string; path: string; status: number; operation: Operation | undefined; started: number },
    seen: {
      clientFindings: Finding<RequestProblemKind>[];
      requestTee: Tee;
      requestComplete: boolean;
      requestHeaders: IncomingMessage['headers'];
      head: RequestHead;
      responseTee: Tee;
      responseHeaders: [string, string][];
      answerComplete: boolean;
      checkFailure: string | undefined;
      networkError: string | undefined;
      cutShort: boolean;
      preflight: boolean;
    },
  ): void {
    requests++;
    const { method, path, status, operation } = exchange;
    const base = { method, path, status, ...(operation ? { operationId: operation.operationId } : {}) };
    const found: ProxyViolation[] = seen.clientFindings.map((finding) => ({ side: 'client', ...base, ...finding }));
    const failed = (side: Side, error: unknown) => notChecked.push({ side, ...base, reason: `the proxy could not check it: ${(error as Error).message}` });
    if (seen.checkFailure !== undefined) failed('client', new Error(seen.checkFailure));

    if (operation && !seen.preflight && seen.checkFailure === undefined) {
      if (!seen.requestComplete && !seen.requestTee.overflowed) {
        notChecked.push({ side: 'client', ...base, reason: 'the request body did not arrive whole' });
      } else {
        const decoded = bodyText(seen.requestTee, headerValue(seen.requestHeaders['content-encoding']), cap);
        if ('reason' in decoded) notChecked.push({ side: 'client', ...base, reason: decoded.reason });
        const text = 'text' in decoded ? decoded.text : undefined;
        try {
          for (const finding of checker.checkBody(operation, seen.head, { bytes: seen.requestTee.bytes, text })) found.push({ side: 'client', ...base, ...finding });
        } catch (error) {
          failed('client', error);
        }
      }
    }

    if (seen.networkError !== undefined) {
      found.push({ side: 'implementation', ...base, kind: 'network', message: seen.cutShort ? `the answer was cut short: ${seen.networkError}` : `the target did not answer (${seen.networkError}); the proxy answered 502` });
    } else if (operation && status === 0) {
      notChecked.push({ side: 'implementation', ...base, reason: 'the client closed the connection before the answer came' });
    } else if (operation) {
      const stats = (operations[operation.operationId] ??= { method: operation.method.toUpperCase(), path: operation.path, requests: 0, statuses: [] });
      stats.requests++;
      if (!stats.statuses.includes(status)) stats.statuses.push(status);
      recordAnswer(coverage, operation, status, seen.responseHeaders.find(([name]) => name.toLowerCase() === 'content-type')?.[1]);
      if (!seen.answerComplete) notChecked.push({ side: 'implementation', ...base, reason: 'the client closed the connection before the answer ended' });
      else {
        try {
          for (const finding of answerFindings(operation, exchange.method, status, seen.responseHeaders, seen.responseTee, base)) found.push({ side: 'implementation', ...base, ...finding });
        } catch (error) {
          failed('implementation', error);
        }
      }
    }
    for (const violation of found) {
      violations.push(violation);
      log?.(`  ✗ ${violationLine(violation)}`);
    }
    log?.(`→ ${method} ${path} ${status || '-'}${operation ? ` ${operation.operationId}` : ''} (${Math.round(performance.now() - exchange.started)} ms)`);
  }

  function answerFindings(operation: Operation, method: string, status: number, headerList: [string, string][], tee: Tee, base: Omit<NotChecked, 'side' | 'reason'>): Finding<ProblemKind>[] {
    const headers = asHeaders(headerList);
    const declared = declaredResponse(operation, status);
    if (method.toUpperCase() === 'HEAD' || !declared) {
      // HEAD: GET's answer without its body; what is checked is the status.
      return declared ? [] : problemFindings(validator, operation, status, headers, undefined, validator.validate(operation, { status, headers, text: '' }));
    }
    const decoded = bodyText(tee, headers.get('content-encoding') ?? undefined, cap);
    if ('reason' in decoded) {
      notChecked.push({ side: 'implementation', ...base, reason: decoded.reason });
      // The status, headers and content type are still checked; a body where none is declared is one all the same.
      const problems = validator.validate(operation, { status, headers, text: '' }).filter((problem) => problem.kind !== 'invalid-json');
      if (tee.bytes > 0 && (status === 204 || declared.response.contentTypes.length === 0)) {
        problems.push({ kind: 'unexpected-body', message: `${status} is declared without a body, but one of ${tee.bytes} bytes was sent` });
      }
      return problemFindings(validator, operation, status, headers, undefined, problems);
    }
    const problems = validator.validate(operation, { status, headers, text: decoded.text });
    if (problems.length === 0) return [];
    let json: unknown;
    try {
      json = JSON.parse(decoded.text);
    } catch {
      json = undefined;
    }
    return problemFindings(validator, operation, status, headers, json, problems);
  }

  const server: Server = createServer(handle);
  // A request body may take long to arrive (a large upload): node:http's own limit on a request's time is left as is,
  // and its header timeout too; a kept-alive client connection idles as long as the target's would.
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(new UsageError(`cannot listen on ${options.host ?? '127.0.0.1'}:${options.port ?? 0}: ${error.code ?? error.message}`)));
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as { address: string; port: number; family: string };
  const shown = address.address === '0.0.0.0' ? '127.0.0.1' : address.address === '::' ? '::1' : address.address;
  const url = `http://${shown.includes(':') ? `[${shown}]` : shown}:${address.port}`;

  let closing: Promise<void> | undefined;
  return {
    url,
    target: target.href.replace(/\/$/, ''),
    violations,
    get requests() {
      return requests;
    },
    report(): ProxyReport {
      const finishedAt = new Date();
      return {
        target: target.href.replace(/\/$/, ''),
        url,
        contract: contract.source,
        startedAt: startedAt.toISOString(),
        finishedAt: finishedAt.toISOString(),
        durationMs: finishedAt.getTime() - startedAt.getTime(),
        summary: {
          requests,
          clientViolations: violations.filter((violation) => violation.side === 'client').length,
          implementationViolations: violations.filter((violation) => violation.side === 'implementation').length,
          notChecked: notChecked.length,
        },
        violations: [...violations],
        notChecked: [...notChecked],
        operations: structuredClone(operations),
        coverage: structuredClone(coverage),
      };
    },
    async idle() {
      while (pending.size > 0) await Promise.all([...pending]);
    },
    close() {
      closing ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        await Promise.race([Promise.all([...pending]), new Promise((resolve) => setTimeout(resolve, CLOSE_GRACE_MS).unref())]);
        server.closeAllConnections();
        await closed;
        agent.destroy();
      })();
      return closing;
    },
  };
}

/** A violation in one line: side, operation, request, status, what is wrong, where and what was found there. */
export function violationLine(violation: ProxyViolation): string {
  const where = violation.pointer === undefined ? '' : ` [${violation.pointer}${violation.value === undefined ? '' : ` = ${oneLine(violation.value)}`}]`;
  return `${violation.side}: ${violation.operationId ?? '(no operation)'} ${violation.method} ${violation.path} ${violation.status || '-'}: ${violation.message.replace(/\s*\n\s*/g, ' ')}${where}`;
}

function oneLine(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}

/** `docs-conformance proxy: N requests, X client violations, Y implementation violations`. */
export function proxySummaryLine(report: ProxyReport): string {
  const { requests, clientViolations, implementationViolations } = report.summary;
  return `docs-conformance proxy: ${requests} request${requests === 1 ? '' : 's'}, ${clientViolations} client violation${clientViolations === 1 ? '' : 's'}, ${implementationViolations} implementation violation${implementationViolations === 1 ? '' : 's'}`;
}

/**
 * The JUnit XML of a proxy report: a test case per operation requests were made for (and per method and path that
 * named no operation), in two suites, `request` (the client's side) and `answer` (the implementation's), each with a
 * failure per violation; and a failed case `requests` in a suite `traffic` when fewer requests than `minRequests`
 * went through.
 */
export function proxyJunit(report: ProxyReport): string {
  const results: CheckResult[] = [];
  const caseOf = (violation: ProxyViolation) => violation.operationId ?? `${violation.method} ${violation.path.split('?')[0]}`;
  const failures = (side: Side, id: string) => report.violations.filter((violation) => violation.side === side && caseOf(violation) === id);
  const ids = new Set([...Object.keys(report.operations), ...report.violations.map(caseOf)]);
  for (const id of ids) {
    for (const [side, checkId] of [['client', 'request'], ['implementation', 'answer']] as const) {
      const failed = failures(side, id);
      const operation = report.operations[id];
      if (failed.length === 0 && !operation) continue;
      if (failed.length === 0) {
        results.push({ operationId: id, checkId, ok: true, message: `${operation!.requests} requests, statuses ${operation!.statuses.join(', ')}` });
        continue;
      }
      for (const violation of failed) {
        results.push({
          operationId: id,
          checkId,
          ok: false,
          message: `${violation.kind}: ${violation.message}${violation.pointer === undefined ? '' : ` (at ${violation.pointer}${violation.value === undefined ? '' : `: ${oneLine(violation.value)}`})`}`,
          request: { method: violation.method, url: violation.path },
          ...(violation.status ? { response: { status: violation.status } } : {}),
        });
      }
    }
  }
  const tooFew = tooFewRequests(report);
  if (tooFew !== undefined) results.push({ operationId: 'requests', checkId: 'traffic', ok: false, message: tooFew });
  return junitXml(results, { name: 'docs-conformance-proxy', durationMs: report.durationMs });
}

export interface ProxyCommandOptions extends ProxyOptions {
  /** The command to run against the proxy (its argv); without one, the proxy runs until `until` fires. */
  command?: string[];
  /**
   * Fewer requests than this through the proxy fail the run (default 1): a command whose client never used
   * DOCS_API_URL was checked by nothing.
   */
  minRequests?: number;
  /** How long the check that something answers at the target waits for an answer, in ms (default TARGET_CHECK_MS). */
  targetCheckMs?: number;
  /** Without a command: stops the proxy when it fires (the CLI: SIGINT, SIGTERM). */
  until?: AbortSignal;
  /** Write the JSON report here. */
  report?: string;
  /** Write a JUnit XML report here. */
  junit?: string;
  /** Receives the lines the command prints (default: process.stderr). */
  stderr?: (line: string) => void;
  /** Environment of the command (default: process.env); DOCS_API_URL is set to the proxy's address. */
  env?: NodeJS.ProcessEnv;
  /** Forward these signals received by this process to the command (the CLI: SIGINT, SIGTERM). */
  forwardSignals?: NodeJS.Signals[];
}

/** How long the proxy waits for its target to answer its first request, by default. */
export const TARGET_CHECK_MS = 10_000;

/**
 * Why nothing answers at `target`, or undefined when something does: one HEAD request to its address, which any HTTP
 * answer passes (a 404 too). Refused connections, unknown hosts, TLS failures and silence are what it catches.
 */
export function unanswered(target: string, timeoutMs = TARGET_CHECK_MS): Promise<string | undefined> {
  const url = new URL(target);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const request = send(url, { method: 'HEAD', headers: { 'user-agent': 'docs-conformance proxy' }, timeout: timeoutMs, agent: false }, (answer) => {
      answer.resume();
      resolve(undefined);
    });
    request.on('timeout', () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    request.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    request.end();
  });
}

/**
 * The proxy as a command: exit code 0 (no violation), 1 (a violation, or fewer requests than `minRequests`), 3 (with
 * a command: nothing answers at the target, and the command is not run), or the command's own when it failed.
 */
export async function runProxyCommand(options: ProxyCommandOptions): Promise<{ exitCode: number; report: ProxyReport }> {
  const print = options.stderr ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const proxy = await startProxy(options);
  print(`docs-conformance proxy: ${proxy.url} -> ${proxy.target}`);
  const withCommand = options.command !== undefined && options.command.length > 0;
  const silent = await unanswered(proxy.target, options.targetCheckMs);
  if (silent !== undefined) {
    const line = `nothing answers at ${proxy.target} (${silent}): start the implementation there, or check --target`;
    if (withCommand) {
      // The command's requests would all get the proxy's 502: it is not run.
      await proxy.close();
      print(`docs-conformance proxy: ${line}; the command was not run`);
      return { exitCode: 3, report: proxy.report() };
    }
    print(`docs-conformance proxy: warning: ${line} (the proxy answers 502 until it does)`);
  }
  const minRequests = options.minRequests ?? 1;
  let command: ProxyReport['command'];
  let commandCode = 0;
  let unstarted = false;
  if (withCommand) {
    const [file, ...args] = options.command!;
    const outcome = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>((resolve) => {
      const child = spawn(file!, args, { stdio: 'inherit', env: { ...(options.env ?? process.env), DOCS_API_URL: proxy.url } });
      const forward = (signal: NodeJS.Signals) => child.kill(signal);
      for (const signal of options.forwardSignals ?? []) process.on(signal, forward);
      const done = (result: { code: number | null; signal: NodeJS.Signals | null; error?: Error }) => {
        for (const signal of options.forwardSignals ?? []) process.off(signal, forward);
        resolve(result);
      };
      child.once('error', (error) => done({ code: null, signal: null, error }));
      child.once('exit', (code, signal) => done({ code, signal }));
    });
    command = { argv: options.command!, exitCode: outcome.code, signal: outcome.signal };
    if (outcome.error) {
      print(`docs-conformance proxy: the command could not be started: ${outcome.error.message}`);
      unstarted = true;
      commandCode = 127;
    } else if (outcome.signal) {
      commandCode = 128 + (constants.signals[outcome.signal] ?? 0);
    } else {
      commandCode = outcome.code ?? 1;
    }
  } else if (options.until && !options.until.aborted) {
    await new Promise((resolve) => options.until!.addEventListener('abort', resolve, { once: true }));
  }
  await proxy.close();
  const report: ProxyReport = { ...proxy.report(), ...(command ? { command } : {}), minRequests };
  if (options.report) writeFileSync(options.report, `${JSON.stringify(report, null, 2)}\n`);
  if (options.junit) writeFileSync(options.junit, proxyJunit(report));
  for (const violation of report.violations) print(`✗ ${violationLine(violation)}`);
  for (const item of report.notChecked) print(`note: not checked (${item.side}): ${item.operationId ?? '(no operation)'} ${item.method} ${item.path} ${item.status || '-'}: ${item.reason}`);
  print(`docs-conformance proxy: ${coverageLine(report.coverage)}`);
  if (command && commandCode !== 0 && !unstarted) print(`docs-conformance proxy: the command ${command.signal ? `was ended by ${command.signal}` : `exited with ${command.exitCode ?? commandCode}`}`);
  const tooFew = tooFewRequests(report);
  if (tooFew !== undefined) print(`docs-conformance proxy: ${tooFew}`);
  print(proxySummaryLine(report));
  const failed = report.violations.length > 0 || tooFew !== undefined;
  return { exitCode: commandCode !== 0 ? commandCode : failed ? 1 : 0, report };
}

/**
 * What is wrong with a run that saw fewer requests than its `minRequests`, in one line naming where the requests
 * should have gone (DOCS_API_URL, with a command); undefined when it saw enough.
 */
export function tooFewRequests(report: ProxyReport): string | undefined {
  const { requests } = report.summary;
  const wanted = report.minRequests ?? 0;
  if (requests >= wanted) return undefined;
  const seen = requests === 0 ? 'no request went through the proxy' : `${requests} request${requests === 1 ? '' : 's'} went through the proxy, fewer than --min-requests ${wanted}`;
  const where = report.command
    ? `the command's client must send its requests to DOCS_API_URL (${report.url}, set in its environment), as createDocsClient({ baseUrl: process.env.DOCS_API_URL }) does`
    : `send the requests to ${report.url}`;
  return `${seen}, so nothing was checked: ${where}`;
}
