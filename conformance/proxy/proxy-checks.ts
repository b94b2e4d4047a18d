// What the validating proxy makes of an exchange once it is over: the request checked against the contract (a
// client's violation: request-check.ts) and the answer with the runner's response validator (an implementation's
// violation: validate.ts), from the copies of their bodies kept as they passed (`Tee`), and recorded (`Traffic`): its
// violations, what could not be checked and why, the operation's statuses and the contract coverage.
import type { IncomingMessage } from 'node:http';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { type Contract, declaredResponse, type Operation, pointerSegment } from '../contract/contract.ts';
import { type Coverage, emptyCoverage, recordAnswer } from '../contract/coverage.ts';
import { httpExchange, usageOf } from '../records/usage-fields.ts';
import { emptyOperationUsage, mergeOperationUsage, type UsageRecord } from '../records/usage-format.ts';
import type { NotChecked, ProxyOperationReport, ProxyViolation, Side } from './proxy-report.ts';
import { violationLine } from './proxy-report.ts';
import { byPointer, type Finding, headerValue, type RequestChecker, type RequestHead, type RequestProblemKind } from '../contract/request-check.ts';
import { bodySchemaPointer, contractAnswerProblem, type Problem, type ProblemKind, type ResponseValidator } from '../contract/validate.ts';

/** A copy of a body as it passes, kept up to a cap; past the cap only its size is counted. */
export class Tee {
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

/** An exchange as the proxy forwarded it: its request, the answer's status (0 when none came) and its operation. */
export interface ExchangeSummary {
  method: string;
  path: string;
  status: number;
  operation: Operation | undefined;
  /** performance.now() when the request came. */
  started: number;
}

/** What passed through in an exchange, for its checks. */
export interface Seen {
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
}

/** The traffic the proxy has seen: each exchange checked and recorded as it ends. */
export class Traffic {
  readonly violations: ProxyViolation[] = [];
  readonly notChecked: NotChecked[] = [];
  readonly operations: Record<string, ProxyOperationReport> = {};
  readonly coverage: Coverage;
  /** Exchanges recorded. */
  requests = 0;

  constructor(
    contract: Contract,
    private readonly checker: RequestChecker,
    private readonly validator: ResponseValidator,
    /** The largest body checked. */
    private readonly cap: number,
    private readonly log: ((line: string) => void) | undefined,
    /** What the consumer used, when its usage is recorded (usage-format.ts). */
    readonly usage?: UsageRecord,
  ) {
    this.coverage = emptyCoverage(contract);
    this.contract = contract;
  }

  private readonly contract: Contract;

  /** Checks an exchange that is over, and records it. */
  record(exchange: ExchangeSummary, seen: Seen): void {
    this.requests++;
    const { method, path, status, operation } = exchange;
    const base = { method, path, status, ...(operation ? { operationId: operation.operationId } : {}) };
    const found: ProxyViolation[] = seen.clientFindings.map((finding) => ({ side: 'client', ...base, ...finding }));
    const failed = (side: Side, error: unknown) => this.notChecked.push({ side, ...base, reason: `the proxy could not check it: ${(error as Error).message}` });
    if (seen.checkFailure !== undefined) failed('client', new Error(seen.checkFailure));

    if (operation && !seen.preflight && seen.checkFailure === undefined) {
      if (!seen.requestComplete && !seen.requestTee.overflowed) {
        this.notChecked.push({ side: 'client', ...base, reason: 'the request body did not arrive whole' });
      } else {
        const decoded = bodyText(seen.requestTee, headerValue(seen.requestHeaders['content-encoding']), this.cap);
        if ('reason' in decoded) this.notChecked.push({ side: 'client', ...base, reason: decoded.reason });
        const text = 'text' in decoded ? decoded.text : undefined;
        try {
          for (const finding of this.checker.checkBody(operation, seen.head, { bytes: seen.requestTee.bytes, text })) found.push({ side: 'client', ...base, ...finding });
        } catch (error) {
          failed('client', error);
        }
      }
    }

    if (seen.networkError !== undefined) {
      found.push({ side: 'implementation', ...base, kind: 'network', message: seen.cutShort ? `the answer was cut short: ${seen.networkError}` : `the target did not answer (${seen.networkError}); the proxy answered 502` });
    } else if (operation && status === 0) {
      this.notChecked.push({ side: 'implementation', ...base, reason: 'the client closed the connection before the answer came' });
    } else if (operation) {
      const stats = (this.operations[operation.operationId] ??= { method: operation.method.toUpperCase(), path: operation.path, requests: 0, statuses: [] });
      stats.requests++;
      if (!stats.statuses.includes(status)) stats.statuses.push(status);
      recordAnswer(this.coverage, operation, status, seen.responseHeaders.find(([name]) => name.toLowerCase() === 'content-type')?.[1]);
      if (!seen.answerComplete) this.notChecked.push({ side: 'implementation', ...base, reason: 'the client closed the connection before the answer ended' });
      else {
        try {
          for (const finding of this.answerFindings(operation, exchange.method, status, seen.responseHeaders, seen.responseTee, base)) found.push({ side: 'implementation', ...base, ...finding });
        } catch (error) {
          failed('implementation', error);
        }
        const fromContract = contractAnswerProblem(asHeaders(seen.responseHeaders));
        if (fromContract) found.push({ side: 'implementation', ...base, ...fromContract });
        // A request the contract refuses is reported (a client violation), not recorded: a record holds what the contract accepts.
        if (this.usage && !found.some((violation) => violation.side === 'client') && seen.checkFailure === undefined) this.recordUsage(operation, status, seen);
      }
    }
    for (const violation of found) {
      this.violations.push(violation);
      this.log?.(`  ✗ ${violationLine(violation)}`);
    }
    this.log?.(`→ ${method} ${path} ${status || '-'}${operation ? ` ${operation.operationId}` : ''} (${Math.round(performance.now() - exchange.started)} ms)`);
  }

  /** Adds what the exchange used to the usage record (its bodies as far as they were kept): of a request the contract accepts. */
  private recordUsage(operation: Operation, status: number, seen: Seen): void {
    const match = this.checker.match(seen.head.method, seen.head.pathname);
    const text = (tee: Tee, encoding: string | undefined) => {
      const decoded = bodyText(tee, encoding, this.cap);
      return 'text' in decoded ? decoded.text : undefined;
    };
    const responseHeaders = asHeaders(seen.responseHeaders);
    const exchange = httpExchange(
      this.contract,
      operation,
      match?.pathParams ?? {},
      {
        search: seen.head.search,
        headers: seen.requestHeaders,
        contentType: headerValue(seen.requestHeaders['content-type']),
        text: seen.requestComplete ? text(seen.requestTee, headerValue(seen.requestHeaders['content-encoding'])) : undefined,
      },
      status,
      { contentType: responseHeaders.get('content-type') ?? undefined, text: seen.head.method.toUpperCase() === 'HEAD' ? undefined : text(seen.responseTee, responseHeaders.get('content-encoding') ?? undefined), headers: Object.fromEntries(responseHeaders) },
    );
    mergeOperationUsage((this.usage!.operations[operation.operationId] ??= emptyOperationUsage()), usageOf(this.contract, exchange));
  }

  private answerFindings(operation: Operation, method: string, status: number, headerList: [string, string][], tee: Tee, base: Omit<NotChecked, 'side' | 'reason'>): Finding<ProblemKind>[] {
    const headers = asHeaders(headerList);
    const declared = declaredResponse(operation, status);
    if (method.toUpperCase() === 'HEAD' || !declared) {
      // HEAD: GET's answer without its body; what is checked is the status.
      return declared ? [] : problemFindings(this.validator, operation, status, headers, undefined, this.validator.validate(operation, { status, headers, text: '' }));
    }
    const decoded = bodyText(tee, headers.get('content-encoding') ?? undefined, this.cap);
    if ('reason' in decoded) {
      this.notChecked.push({ side: 'implementation', ...base, reason: decoded.reason });
      // The status, headers and content type are still checked; a body where none is declared is one all the same.
      const problems = this.validator.validate(operation, { status, headers, text: '' }).filter((problem) => problem.kind !== 'invalid-json');
      if (tee.bytes > 0 && (status === 204 || declared.response.contentTypes.length === 0)) {
        problems.push({ kind: 'unexpected-body', message: `${status} is declared without a body, but one of ${tee.bytes} bytes was sent` });
      }
      return problemFindings(this.validator, operation, status, headers, undefined, problems);
    }
    const problems = this.validator.validate(operation, { status, headers, text: decoded.text });
    if (problems.length === 0) return [];
    let json: unknown;
    try {
      json = JSON.parse(decoded.text);
    } catch {
      json = undefined;
    }
    return problemFindings(this.validator, operation, status, headers, json, problems);
  }

}
