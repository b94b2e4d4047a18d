// The validating proxy (`docs-conformance proxy --target URL`): forwards every request to the target and every answer
// back, unchanged and streamed (proxy-exchange.ts), checking each request against the contract (a client's violation)
// and each answer with the runner's response validator (an implementation's; proxy-checks.ts), bodies up to a size
// cap. Its report: proxy-report.ts; the proxy as a command: proxy-command.ts; what it checks: conformance/README.md.
import { Agent as HttpAgent, createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { type Contract, loadContract, type OpenApiDocument } from '../contract/contract.ts';
import { Traffic } from './proxy-checks.ts';
import { forwardExchange, type Upstream } from './proxy-exchange.ts';
import type { ProxyReport, ProxyViolation } from './proxy-report.ts';
import { requestCheckerOf } from '../contract/request-check.ts';
import { UsageError } from '../runner/session.ts';
import { contractIdentity } from '../records/consumer.ts';
import { emptyUsage, type UsageRecord } from '../records/usage-format.ts';
import { dialectProblem, validatorOf } from '../contract/validate.ts';

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
  /** Record what this consumer used of the contract (`usage()`; docs/consumers.md). */
  consumer?: UsageRecord['consumer'];
}

export interface RunningProxy {
  /** Where the proxy listens (`http://127.0.0.1:PORT`). */
  readonly url: string;
  readonly target: string;
  readonly violations: readonly ProxyViolation[];
  /** Requests answered so far. */
  readonly requests: number;
  report(): ProxyReport;
  /** What the consumer used, when `consumer` was given: its usage record so far. */
  usage(): UsageRecord | undefined;
  /** Resolves when every exchange under way has been checked and recorded. */
  idle(): Promise<void>;
  /** Stops listening, lets the exchanges under way finish, then closes every connection. */
  close(): Promise<void>;
}

/** How long close() waits for exchanges under way before it cuts their connections. */
const CLOSE_GRACE_MS = 5_000;

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
  const cap = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const secure = target.protocol === 'https:';
  // Connections to the target are kept alive and shared by the exchanges. An idle one is closed after 4 s, before
  // the 5 s at which node:http servers (the reference server's among them) close theirs, so that a request is not
  // sent on a connection the target is closing.
  const agent = secure ? new HttpsAgent({ keepAlive: true, timeout: 4_000 }) : new HttpAgent({ keepAlive: true, timeout: 4_000 });
  const checker = requestCheckerOf(contract);
  const usage = options.consumer ? emptyUsage(options.consumer, contractIdentity(contract), 'proxy') : undefined;
  const traffic = new Traffic(contract, checker, validatorOf(contract), cap, options.log, usage);
  const upstream: Upstream = { target, prefix: target.pathname.replace(/\/+$/, ''), agent, checker, traffic, cap };

  const startedAt = new Date();
  const pending = new Set<Promise<void>>();
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const exchange = forwardExchange(upstream, req, res);
    pending.add(exchange);
    void exchange.finally(() => pending.delete(exchange));
  };

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
    violations: traffic.violations,
    get requests() {
      return traffic.requests;
    },
    report(): ProxyReport {
      const { violations, notChecked, operations, coverage, requests } = traffic;
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
    usage: () => (traffic.usage ? structuredClone(traffic.usage) : undefined),
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
