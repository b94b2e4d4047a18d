// One exchange through the validating proxy: the client's request forwarded to the target and the target's answer
// back, unchanged and streamed, with copies of both bodies kept as they pass (up to a cap, proxy-checks.ts's `Tee`);
// once the answer is over, the exchange is checked and recorded (`Traffic`). What HTTP asks of a proxy: hop-by-hop
// headers are not forwarded (RFC 9110, section 7.6.1), `Host` names the target, `Expect` is the proxy's to answer,
// `Proxy-Authorization` is meant for a proxy; a target that does not answer gets the client a 502.
import type { Agent as HttpAgent, ClientRequest, IncomingMessage, ServerResponse } from 'node:http';
import { request as httpRequest } from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';
import { request as httpsRequest } from 'node:https';
import type { Operation } from '../contract/contract.ts';
import { Tee, type Traffic } from './proxy-checks.ts';
import { type Finding, headerValue, type RequestChecker, type RequestHead, type RequestProblemKind } from '../contract/request-check.ts';

/** What the exchanges of one proxy share: where they go, how they are checked, and where they are recorded. */
export interface Upstream {
  target: URL;
  /** The target's path, put before each request's. */
  prefix: string;
  /** Connections to the target, kept alive and shared. */
  agent: HttpAgent | HttpsAgent;
  checker: RequestChecker;
  traffic: Traffic;
  /** The largest body kept for checking. */
  cap: number;
}

// Headers that belong to one connection, not to the message (RFC 9110, section 7.6.1): never forwarded as they are.
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'transfer-encoding', 'upgrade']);
/** How long an exchange whose answer is done waits for the rest of the request body before it is recorded. */
const BODY_GRACE_MS = 2_000;

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

/**
 * The request's headers as they are sent on, raw: hop-by-hop headers dropped but a chunked request's framing; Host
 * names the target; Expect is the proxy's to answer (node:http sends the 100 Continue); Proxy-Authorization is meant
 * for a proxy.
 */
function forwardedHeaders(req: IncomingMessage, host: string, chunked: boolean): string[] {
  const incoming = pairs(req.rawHeaders);
  const named = connectionTokens(incoming);
  const forward: string[] = ['Host', host];
  for (const [name, value] of incoming) {
    const lower = name.toLowerCase();
    if (lower === 'transfer-encoding') {
      if (chunked) forward.push(name, value);
      continue;
    }
    if (lower === 'host' || lower === 'expect' || lower === 'proxy-authorization' || named.has(lower) || HOP_BY_HOP.has(lower)) continue;
    forward.push(name, value);
  }
  return forward;
}

/** Forwards one exchange; resolves once it is checked and recorded (never rejects: a failure to record is recorded). */
export function forwardExchange(upstream: Upstream, req: IncomingMessage, res: ServerResponse): Promise<void> {
  return new Exchange(upstream, req, res).run();
}

class Exchange {
  private readonly started = performance.now();
  private readonly method: string;
  private readonly path: string;
  private readonly head: RequestHead;
  /** A browser's CORS preflight is the browser's, not the client's request: passed on, not checked. */
  private readonly preflight: boolean;
  private readonly operation: Operation | undefined;
  /** A check that fails in itself (a schema Ajv cannot compile) must not stop the traffic: it is reported instead. */
  private checkFailure: string | undefined;
  private clientFindings: Finding<RequestProblemKind>[] = [];
  private readonly requestTee: Tee;
  private readonly responseTee: Tee;
  private readonly forward: string[];
  private readonly bodyless: boolean;
  private status = 0;
  private responseHeaders: [string, string][] = [];
  private responded = false;
  private requestEnded = false;
  private networkError: string | undefined;
  private cutShort = false;
  private answerEnded = false;
  private outgoing: ClientRequest | undefined;
  /** The answer is sent (or the client gone): a request body still arriving is read and dropped. */
  private discard = false;
  private requestSettled = false;
  private finishResponse!: () => void;
  private readonly responseDone = new Promise<void>((resolve) => (this.finishResponse = resolve));
  private settleRequest!: () => void;
  private readonly requestDone = new Promise<void>((resolve) => (this.settleRequest = resolve));

  constructor(
    private readonly upstream: Upstream,
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
  ) {
    this.method = req.method ?? 'GET';
    this.path = req.url ?? '/';
    this.head = { method: this.method, ...splitTarget(this.path), headers: req.headers };
    this.preflight = this.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined;
    const { checker } = upstream;
    const match = this.preflight ? undefined : checker.match(this.method, this.head.pathname);
    this.operation = match?.operation;
    try {
      this.clientFindings = this.preflight ? [] : match ? checker.checkHead(match, this.head) : [checker.unknown(this.head)];
    } catch (error) {
      this.checkFailure = (error as Error).message;
    }
    this.requestTee = new Tee(upstream.cap);
    this.responseTee = new Tee(upstream.cap);
    const chunked = /(?:^|,)\s*chunked\s*$/i.test(headerValue(req.headers['transfer-encoding']) ?? '');
    this.forward = forwardedHeaders(req, upstream.target.host, chunked);
    this.bodyless = !chunked && !(Number(req.headers['content-length'] ?? 0) > 0);
  }

  run(): Promise<void> {
    this.pipeRequest();
    this.open(0);
    if (this.bodyless) this.req.resume();
    return this.recorded().catch((error: unknown) => {
      this.upstream.traffic.notChecked.push({ side: 'implementation', method: this.method, path: this.path, status: this.status, reason: `the proxy could not record it: ${(error as Error).message}` });
    });
  }

  private finishRequest = () => {
    this.requestSettled = true;
    this.settleRequest();
  };

  /** The request body on to the target as it arrives (copied aside), and the ends of both sides. */
  private pipeRequest(): void {
    const { req, res } = this;
    res.sendDate = false;
    res.on('close', () => {
      // The client went away before the answer was sent, or the answer is done before the request body (the target
      // refused it by its length): the exchange with the target stops there, its connection with it.
      if (this.outgoing && (!res.writableFinished || !this.outgoing.writableFinished)) this.outgoing.destroy();
      this.discard = true;
      req.resume();
      this.finishResponse();
    });
    req.on('data', (chunk: Buffer) => {
      this.requestTee.push(chunk);
      const outgoing = this.outgoing;
      if (this.discard || !outgoing || outgoing.destroyed) return;
      if (!outgoing.write(chunk)) {
        req.pause();
        outgoing.once('drain', () => req.resume());
      }
    });
    req.on('end', () => {
      this.requestEnded = true;
      if (!this.discard && this.outgoing && !this.outgoing.destroyed) this.outgoing.end();
      this.finishRequest();
    });
    req.on('close', this.finishRequest);
    req.on('error', this.finishRequest);
  }

  /** The client's answer when the target gave none: a 502 with the error envelope, or its connection cut. */
  private answerBadGateway(reason: string): void {
    const { res } = this;
    this.networkError = reason;
    this.status = 502;
    this.discard = true;
    if (res.headersSent) {
      this.cutShort = true;
      res.destroy();
      return;
    }
    const body = JSON.stringify({ error: { code: 502, message: `docs-conformance proxy: no answer from ${this.upstream.target.origin}: ${reason}` } });
    res.writeHead(502, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  }

  /** Sends the request to the target (`attempt` 1: again, on a kept-alive connection the target had just closed). */
  private open(attempt: number): void {
    const { target, prefix, agent } = this.upstream;
    const secure = target.protocol === 'https:';
    const request = (secure ? httpsRequest : httpRequest)({
      protocol: target.protocol,
      hostname: target.hostname.replace(/^\[|\]$/g, ''),
      port: target.port || (secure ? 443 : 80),
      method: this.method,
      path: `${prefix}${this.head.pathname}${this.head.search ? `?${this.head.search}` : ''}`,
      headers: this.forward,
      setHost: false,
      agent,
    });
    this.outgoing = request;
    request.on('error', (error: NodeJS.ErrnoException) => {
      // After the answer came, the target closed its side of a body it refused; after the client went away, the
      // proxy closed this request itself: neither is the target's failure.
      if (this.responded || this.discard) return;
      // A kept-alive connection the target closed as the request went out: a request without a body is sent again.
      if (attempt === 0 && this.bodyless && request.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE')) return this.open(1);
      this.answerBadGateway(error.code ?? error.message);
    });
    request.on('response', (answer: IncomingMessage) => this.pipeAnswer(answer));
    if (this.bodyless) request.end();
  }

  /** The target's answer back to the client as it arrives (copied aside), its trailers too. */
  private pipeAnswer(answer: IncomingMessage): void {
    const { res } = this;
    this.responded = true;
    this.status = answer.statusCode ?? 0;
    const received = pairs(answer.rawHeaders);
    const hop = connectionTokens(received);
    this.responseHeaders = received.filter(([name]) => !HOP_BY_HOP.has(name.toLowerCase()) && !hop.has(name.toLowerCase()));
    if (res.destroyed) {
      answer.destroy();
      return;
    }
    res.writeHead(this.status, answer.statusMessage, this.responseHeaders.flat());
    answer.on('data', (chunk: Buffer) => {
      this.responseTee.push(chunk);
      if (!res.write(chunk)) {
        answer.pause();
        res.once('drain', () => answer.resume());
      }
    });
    answer.on('end', () => {
      this.answerEnded = true;
      const trailers = pairs(answer.rawTrailers);
      if (trailers.length > 0) res.addTrailers(trailers);
      res.end();
    });
    answer.on('close', () => {
      if (answer.complete || this.discard) return;
      this.networkError = 'the connection to the target closed before the answer ended';
      this.cutShort = true;
      res.destroy();
    });
  }

  /** Once the answer is over: the exchange checked and recorded. */
  private async recorded(): Promise<void> {
    await this.responseDone;
    // The answer may end before the request body does (a body the target refused by its length): the rest of it is
    // read and dropped, for a moment at most.
    const waited =
      this.requestSettled || (await Promise.race([this.requestDone.then(() => true), new Promise<false>((resolve) => setTimeout(() => resolve(false), BODY_GRACE_MS).unref())]));
    this.upstream.traffic.record(
      { method: this.method, path: this.path, status: this.status, operation: this.operation, started: this.started },
      {
        clientFindings: this.clientFindings,
        requestTee: this.requestTee,
        requestComplete: this.requestEnded && waited,
        requestHeaders: this.req.headers,
        head: this.head,
        responseTee: this.responseTee,
        responseHeaders: this.responseHeaders,
        answerComplete: this.answerEnded,
        checkFailure: this.checkFailure,
        networkError: this.networkError,
        cutShort: this.cutShort,
        preflight: this.preflight,
      },
    );
  }
}
