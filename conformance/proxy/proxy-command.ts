// The validating proxy as a command (`docs-conformance proxy`; cli.ts gives it its options): it checks that something
// answers at the target, then runs a command against the proxy (DOCS_API_URL) or runs until a signal, writes the
// reports and sums up, and fails a run that too few requests went through.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { constants } from 'node:os';
import { coverageLine } from '../contract/coverage.ts';
import { type ProxyOptions, startProxy } from './proxy.ts';
import { type ProxyReport, proxyJunit, proxySummaryLine, tooFewRequests, violationLine } from './proxy-report.ts';
import { UsageError } from '../runner/session.ts';
import { type UsageRecord, UsageRecordError } from '../records/usage-format.ts';
import { checkUsageFile, writeUsageFile } from '../records/usage-merge.ts';

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
  /**
   * Write the consumer's usage record here (`consumer` names it): merged into the record the file holds, of the same
   * consumer and contract document, so that several runs make one record; a file that is not such a record is a
   * UsageError before the command runs (and the proxy starts), and the file is left as it was.
   */
  usage?: string;
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
  // The record's file is checked before anything runs: a suite's run is not lost to a file the record cannot go into.
  const recording = proxy.usage();
  if (options.usage && recording) {
    try {
      checkUsageFile(options.usage, recording);
    } catch (error) {
      await proxy.close();
      if (error instanceof UsageRecordError) throw new UsageError(`--usage: ${error.message}`);
      throw error;
    }
  }
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
  const usage = proxy.usage();
  let unwritten: string | undefined;
  try {
    if (options.usage && usage) writeUsage(options.usage, usage);
  } catch (error) {
    // The file changed while the command ran (it was checked before): said, and exit 2.
    if (!(error instanceof UsageRecordError)) throw error;
    unwritten = `the usage record was not written: ${error.message}`;
  }
  for (const violation of report.violations) print(`✗ ${violationLine(violation)}`);
  for (const item of report.notChecked) print(`note: not checked (${item.side}): ${item.operationId ?? '(no operation)'} ${item.method} ${item.path} ${item.status || '-'}: ${item.reason}`);
  print(`docs-conformance proxy: ${coverageLine(report.coverage)}`);
  if (command && commandCode !== 0 && !unstarted) print(`docs-conformance proxy: the command ${command.signal ? `was ended by ${command.signal}` : `exited with ${command.exitCode ?? commandCode}`}`);
  const tooFew = tooFewRequests(report);
  if (tooFew !== undefined) print(`docs-conformance proxy: ${tooFew}`);
  if (unwritten !== undefined) print(`docs-conformance proxy: ${unwritten}`);
  print(proxySummaryLine(report));
  const failed = report.violations.length > 0 || tooFew !== undefined;
  return { exitCode: commandCode !== 0 ? commandCode : unwritten !== undefined ? 2 : failed ? 1 : 0, report };
}

/** Writes `usage` into `file`, merged into the record the file holds (usage-merge.ts: a broken or foreign one throws). */
export function writeUsage(file: string, usage: UsageRecord): void {
  writeUsageFile(file, usage, { merge: true });
}
