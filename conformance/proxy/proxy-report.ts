// The validating proxy's report (proxy.ts's `report()`, with the command's outcome: proxy-command.ts) and what is
// made of it: a violation's line, the summary line, the line of a run too few requests went through, and the JUnit XML.
import type { Coverage } from '../contract/coverage.ts';
import { junitXml } from '../runner/junit.ts';
import type { RequestProblemKind } from '../contract/request-check.ts';
import type { CheckResult } from '../contract/types.ts';
import type { ProblemKind } from '../contract/validate.ts';

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
