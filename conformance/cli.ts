// `npm run conformance -- --base-url URL --token TOKEN` (or `docs-conformance …`): checks a running implementation
// against the contract and prints `conformance: X/Y operations exercised, Z violations` as its last line, with a
// progress line per group on stderr. Exit codes: EXIT_CODES below, which conformance/README.md and the root README
// repeat word for word (test/conformance/exit-codes.test.ts compares them).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { canIDeployMain } from './judgement/can-i-deploy-command.ts';
import { consumerIdentity } from './records/consumer.ts';
import { reportJunit } from './runner/junit.ts';
import type { PropertyOptions } from './runner/property/phase.ts';
import { runProxyCommand } from './proxy/proxy-command.ts';
import { outcome, PreflightError, type Report, runConformance, summaryLine, UsageError } from './runner/runner.ts';
import { usageMain } from './records/usage-merge-command.ts';

const USAGE = `Usage: docs-conformance --base-url URL --token TOKEN [options]
       docs-conformance proxy --target URL [options] [-- command args...]   (a validating proxy: proxy --help)
       docs-conformance can-i-deploy --usage FILE --contract VERSION    (a consumer against a contract: can-i-deploy --help)
       docs-conformance usage merge RECORD... --out FILE                (one consumer's records into one: usage merge --help)

Checks a running implementation of the Documentation Platform Management API against the contract
(generated/openapi.yaml): runs a scenario that calls every operation, sends invalid inputs derived from the
contract, and validates every response.

Required:
  --base-url URL              address of the implementation, without /v1 (http://127.0.0.1:3000)
  --token TOKEN               a token that is admin of an organization

Options:
  --organization ID           organization to run in (default: the first one the token is admin of)
  --target-organization ID    second organization for transferSpace and transferCollection (default: another
                              organization of the token where it may create content; without one, a transfer to
                              the same organization must answer 409)
  --exclude OP[,OP...]        operations not to call and not to require (repeatable)
  --report FILE               write the report as JSON
  --junit FILE                write a JUnit XML report (a test case per operation and check)
  --serve-host HOST           host under which the implementation reaches the runner's website and tunnel
                              (default 127.0.0.1)
  --serve-bind ADDRESS        interface the runner's HTTP server listens on (default: --serve-host)
  --serve-port PORT           port of the runner's HTTP server (default: a free one)
  --git-url URL               Git repository for the export and import (default: a bare repository in a temporary
                              folder, given by path: the implementation must run on the same machine)
  --content-ref REF           a branch of --git-url with content (Markdown, SUMMARY.md) a Git import brings when
                              the website import is refused (default: none; the local repository has one)
  --template ID               template for applySpaceTemplate (default getting-started)
  --wait-ms MS                longest wait for background work (default 30000)
  --timeout-ms MS             timeout of each request (default 30000)
  --contract FILE             OpenAPI document to check against (default: generated/openapi.yaml)
  --examples N                generated requests per operation in the property phase (default 3; 0 turns the
                              phase off)
  --seed N                    seed of the property phase: the same seed makes the same requests (default random,
                              printed)
  --max-response-bytes N      size bound of an answer in the property phase (default 4194304)
  --large-body-bytes N        size of the body sent to every operation to find its body size limit (default 16777216;
                              sent in chunks, stopped when the answer comes)
  --verbose                   print every request and progress
  --help                      print this help

Exit codes:
  0    every operation that is not excluded was exercised, and there is no violation
  1    a violation, or an operation not exercised for a reason the runner does not know (also a crash of the
       runner itself)
  2    usage error: missing --base-url or --token, an unknown option, an --exclude that names no operation, a
       --contract in a JSON Schema dialect the runner does not read, a --serve-host/--serve-bind/--serve-port the
       runner cannot listen on
  3    the run could not start: the base URL unreachable or not the API, the token refused, no organization the
       token is admin of (or --organization not one of its organizations); or a Node the command does not support
       (Node 22 from 22.12, 24, 26 and later)
  4    no violation, but operations skipped: the implementation refused to reach the runner's address (its
       website, tunnel or Git repository), so those operations and the ones that needed them were not exercised;
       the hint: line says what to change
  130  SIGINT: the run stopped and deleted what it had created (a second signal exits at once)
  143  SIGTERM: likewise
`;

const PROXY_USAGE = `Usage: docs-conformance proxy --target URL [options] [-- command [args...]]

Listens for HTTP requests, forwards each to --target and its answer back unchanged (streamed; the proxy adds no
header), and checks each request against the contract (generated/openapi.yaml) as a client's violation and each
answer as an implementation's violation, with the checks the runner makes of answers. With a command after --,
runs it with DOCS_API_URL set to the proxy's address and stops when it exits; without one, runs until SIGINT or
SIGTERM. Then prints each violation, one line each, and the summary line on stderr, and writes the reports.
Before the command starts, one HEAD request checks that something answers at --target. A run that fewer requests
than --min-requests went through checked nothing: it fails, naming DOCS_API_URL, where the command's client must send
its requests.

Required:
  --target URL                address of the implementation, without /v1 (http://127.0.0.1:3000)

Options:
  --port N                    port to listen on (default 0: a free one)
  --host HOST                 interface to listen on (default 127.0.0.1)
  --contract FILE             OpenAPI document to check against (default: generated/openapi.yaml)
  --max-body-bytes N          largest request or answer body checked (default 4194304); a larger one is passed on
                              and reported as not checked
  --report FILE               write the report as JSON: violations, bodies not checked, and per operation the
                              declared statuses and those seen
  --junit FILE                write a JUnit XML report (a test case per operation seen, a failure per violation)
  --min-requests N            fewer requests than N through the proxy fail the run (default 1)
  --usage FILE                write what the consumer used of the contract, its usage record (or set
                              DOCS_CONFORMANCE_USAGE); merged into the record the file already holds
  --consumer NAME             the consumer the usage record names (default: package.json's name in this folder)
  --verbose                   print every request and each violation as it happens
  --help                      print this help

Checked in each request: its method and path name an operation; path, query and header parameters (required ones
present, no undeclared query parameter, values within their schemas); credentials where the operation declares
security; the body (present when required, none where none is declared, a declared content type, JSON within the
request body schema). In each answer: the status is declared; content type, body, required headers and the error
envelope as declared for it.

Exit codes:
  0    no violation, at least --min-requests requests, and the command (when given) exited 0
  1    a violation, of a client or of the implementation (an unreachable target is one: the client gets a 502); or
       fewer requests than --min-requests (1 by default) went through the proxy
  2    usage error: no --target, an unknown option, a --contract the proxy cannot read, a --host/--port it cannot
       listen on, a --usage file that holds anything but a record of this consumer and contract (checked before the
       command runs; the file is left as it was)
  3    with a command: nothing answers at --target (refused, unknown host, no answer within 10 s); the command is
       not run
  N    the command's exit code when it failed (128 + the signal's number when a signal ended it, 127 when it could
       not be started)
`;

const EXIT = { passed: 0, failed: 1, usage: 2, preflight: 3, skipped: 4, SIGINT: 130, SIGTERM: 143 } as const;

// The Node versions the package supports (its `engines`, the root package.json's: Node 22 from 22.12, 24, 26 and
// later; server/start/runtime-check.ts makes the server's command the same check). On another Node the command, `--help`
// too, ends here with one line and exit code 3 (the run could not start), before reading its arguments (the modules it
// imports only define things). test/tooling/server-package.test.ts runs the installed command on an older Node.
{
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  if (!((major === 22 && minor >= 12) || major === 24 || major >= 26)) {
    process.stderr.write(`docs-conformance: Node ${process.versions.node} is not supported; use Node 22 (22.12 or later), 24, or 26 or later\n`);
    process.exit(EXIT.preflight);
  }
}

function fail(message: string): never {
  process.stderr.write(`docs-conformance: ${message}\n\n${USAGE}`);
  process.exit(EXIT.usage);
}

function number(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) fail(`${name} must be a non-negative integer`);
  return parsed;
}

/** --examples, --seed and --max-response-bytes: the property phase's options (`--examples 0`: off). */
function propertyOptions(values: { examples?: string; seed?: string; 'max-response-bytes'?: string; 'large-body-bytes'?: string }): PropertyOptions | false {
  const examples = number(values.examples, '--examples');
  if (examples === 0) return false;
  const seed = number(values.seed, '--seed');
  const maxResponseBytes = number(values['max-response-bytes'], '--max-response-bytes');
  const largeBodyBytes = number(values['large-body-bytes'], '--large-body-bytes');
  return {
    ...(largeBodyBytes !== undefined ? { largeBodyBytes } : {}),
    ...(examples !== undefined ? { examples } : {}),
    ...(seed !== undefined ? { seed } : {}),
    ...(maxResponseBytes !== undefined ? { maxResponseBytes } : {}),
  };
}

/** `docs-conformance proxy …`: its options, then runProxyCommand (proxy-command.ts); its usage errors are one line, exit 2. */
async function proxyMain(argv: string[]): Promise<void> {
  function usage(message: string): never {
    process.stderr.write(`docs-conformance proxy: ${message} (see docs-conformance proxy --help)\n`);
    process.exit(EXIT.usage);
  }
  const separator = argv.indexOf('--');
  const own = separator === -1 ? argv : argv.slice(0, separator);
  const command = separator === -1 ? undefined : argv.slice(separator + 1);
  let values;
  try {
    ({ values } = parseArgs({
      args: own,
      options: {
        target: { type: 'string' },
        port: { type: 'string' },
        host: { type: 'string' },
        contract: { type: 'string' },
        'max-body-bytes': { type: 'string' },
        report: { type: 'string' },
        junit: { type: 'string' },
        'min-requests': { type: 'string' },
        usage: { type: 'string' },
        consumer: { type: 'string' },
        verbose: { type: 'boolean' },
        help: { type: 'boolean' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    usage((error as Error).message.split('\n')[0]!);
  }
  if (values.help) {
    process.stdout.write(PROXY_USAGE);
    return;
  }
  if (!values.target) usage('--target is required');
  if (command !== undefined && command.length === 0) usage('-- is followed by no command');
  const integer = (value: string | undefined, name: string, max = Number.MAX_SAFE_INTEGER) => {
    if (value === undefined) return undefined;
    const parsed = Number(value);
    if (!/^\d+$/.test(value) || parsed > max) usage(`${name} must be an integer from 0 to ${max}`);
    return parsed;
  };
  const port = integer(values.port, '--port', 65_535);
  const maxBodyBytes = integer(values['max-body-bytes'], '--max-body-bytes');
  const minRequests = integer(values['min-requests'], '--min-requests');
  const usageFile = values.usage ?? (process.env.DOCS_CONFORMANCE_USAGE || undefined);
  let consumer: ReturnType<typeof consumerIdentity> | undefined;
  if (usageFile) {
    try {
      consumer = consumerIdentity(process.cwd(), values.consumer);
    } catch (error) {
      usage(`--usage: ${(error as Error).message} (--consumer NAME)`);
    }
  }
  // With a command, a signal goes on to it (the proxy stops when it exits); without one, it stops the proxy. A second
  // signal exits at once.
  const stop = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stop.signal.aborted) process.exit(EXIT[signal]);
      stop.abort(signal);
    });
  }
  try {
    const { exitCode } = await runProxyCommand({
      target: values.target,
      ...(port !== undefined ? { port } : {}),
      ...(values.host ? { host: values.host } : {}),
      ...(values.contract ? { contract: values.contract } : {}),
      ...(maxBodyBytes !== undefined ? { maxBodyBytes } : {}),
      ...(minRequests !== undefined ? { minRequests } : {}),
      ...(values.report ? { report: values.report } : {}),
      ...(values.junit ? { junit: values.junit } : {}),
      ...(usageFile && consumer ? { usage: path.resolve(usageFile), consumer } : {}),
      ...(values.verbose ? { log: (line: string) => void process.stderr.write(`${line}\n`) } : {}),
      ...(command ? { command, forwardSignals: ['SIGINT', 'SIGTERM'] as NodeJS.Signals[] } : { until: stop.signal }),
    });
    process.exitCode = exitCode;
  } catch (error) {
    if (error instanceof UsageError) usage(error.message);
    throw error;
  }
}

async function main(): Promise<void> {
  if (process.argv[2] === 'proxy') return proxyMain(process.argv.slice(3));
  if (process.argv[2] === 'can-i-deploy') {
    process.exitCode = await canIDeployMain(process.argv.slice(3), (text) => void process.stdout.write(text), (text) => void process.stderr.write(text));
    return;
  }
  if (process.argv[2] === 'usage') {
    process.exitCode = await usageMain(process.argv.slice(3), (text) => void process.stdout.write(text), (text) => void process.stderr.write(text));
    return;
  }
  let values;
  try {
    ({ values } = parseArgs({
      args: process.argv.slice(2),
      options: {
        'base-url': { type: 'string' },
        token: { type: 'string' },
        organization: { type: 'string' },
        'target-organization': { type: 'string' },
        exclude: { type: 'string', multiple: true },
        report: { type: 'string' },
        junit: { type: 'string' },
        'serve-host': { type: 'string' },
        'serve-bind': { type: 'string' },
        'serve-port': { type: 'string' },
        'git-url': { type: 'string' },
        'content-ref': { type: 'string' },
        template: { type: 'string' },
        'wait-ms': { type: 'string' },
        'timeout-ms': { type: 'string' },
        contract: { type: 'string' },
        examples: { type: 'string' },
        seed: { type: 'string' },
        'max-response-bytes': { type: 'string' },
        'large-body-bytes': { type: 'string' },
        verbose: { type: 'boolean' },
        help: { type: 'boolean' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    fail((error as Error).message);
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  if (!values['base-url']) fail('--base-url is required');
  if (!values.token) fail('--token is required');
  try {
    new URL(values['base-url']);
  } catch {
    fail(`--base-url ${values['base-url']} is not a URL`);
  }

  const out = (line: string) => process.stdout.write(`${line}\n`);
  const progress = (line: string) => process.stderr.write(`${line}\n`);
  // SIGINT/SIGTERM: stop calling operations, delete what the run created (the groups' clean-up), then exit 130/143.
  const interrupt = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (interrupt.signal.aborted) process.exit(EXIT[signal]);
      progress(`docs-conformance: ${signal}: stopping and deleting what the run created (${signal} again to exit at once)`);
      interrupt.abort(signal);
    });
  }
  let report: Report;
  try {
    report = await runConformance({
      baseUrl: values['base-url'],
      token: values.token,
      ...(values.organization ? { organization: values.organization } : {}),
      ...(values['target-organization'] ? { targetOrganization: values['target-organization'] } : {}),
      exclude: (values.exclude ?? []).flatMap((item) => item.split(',')).map((item) => item.trim()).filter(Boolean),
      ...(values['serve-host'] ? { serveHost: values['serve-host'] } : {}),
      ...(values['serve-bind'] ? { serveBind: values['serve-bind'] } : {}),
      ...(values['serve-port'] ? { servePort: number(values['serve-port'], '--serve-port') } : {}),
      ...(values['git-url'] ? { gitUrl: values['git-url'] } : {}),
      ...(values['content-ref'] ? { contentRef: values['content-ref'] } : {}),
      ...(values.template ? { template: values.template } : {}),
      ...(values['wait-ms'] ? { waitMs: number(values['wait-ms'], '--wait-ms') } : {}),
      ...(values['timeout-ms'] ? { timeoutMs: number(values['timeout-ms'], '--timeout-ms') } : {}),
      ...(values.contract ? { contract: values.contract } : {}),
      property: propertyOptions(values),
      ...(values.verbose ? { log: out } : {}),
      progress,
      signal: interrupt.signal,
    });
  } catch (error) {
    if (error instanceof UsageError) fail(error.message);
    if (error instanceof PreflightError) {
      process.stderr.write(`docs-conformance: ${error.message}\n`);
      process.exit(interrupt.signal.aborted ? EXIT[interrupt.signal.reason as 'SIGINT' | 'SIGTERM'] : EXIT.preflight);
    }
    throw error;
  }

  if (values.report) writeFileSync(values.report, `${JSON.stringify(report, null, 2)}\n`);
  if (values.junit) writeFileSync(values.junit, reportJunit(report));
  if (!values.verbose) {
    for (const violation of report.violations) {
      out(`✗ ${violation.operationId}: ${violation.message} (${violation.step}: ${violation.request.method} ${violation.request.url})`);
    }
    for (const note of report.notes) out(`note: ${note}`);
  }
  if (report.property) out(`property phase: seed ${report.property.seed}, ${report.property.summary.checks} checks, ${report.property.summary.failed} failed`);
  const skipped = new Set(report.skipped ?? []);
  const unexplained = report.notExercised.filter((id) => !skipped.has(id));
  if (unexplained.length > 0) out(`not exercised: ${unexplained.join(', ')}`);
  for (const id of unexplained) if (report.notExercisedReasons[id]) out(`  ${id}: ${report.notExercisedReasons[id]}`);
  if (skipped.size > 0) out(`skipped (not exercised, for the reason given): ${[...skipped].join(', ')}`);
  for (const id of skipped) out(`  ${id}: ${report.notExercisedReasons[id]}`);
  if (report.addressHint) out(`hint: ${report.addressHint}`);
  for (const item of report.leftBehind ?? []) {
    out(`warning: left behind: ${item.what} (made by ${item.source}): ${item.reason} (${item.request.method} ${item.request.url})`);
  }
  if (report.interrupted) out(`interrupted by ${report.interrupted}: what the run created was deleted`);
  out(summaryLine(report));
  process.exitCode = report.interrupted ? (EXIT[report.interrupted as 'SIGINT' | 'SIGTERM'] ?? EXIT.failed) : EXIT[outcome(report)];
}

main().catch((error: unknown) => {
  process.stderr.write(`docs-conformance: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = EXIT.failed;
});
