// How long a whole conformance run takes against the reference server as `npm start` runs it, every time, and what
// the run leaves in the server's log: `npx tsx bench/conformance-timing.ts` (RUNS, default 10; Linux, for the
// server's CPU time in /proc). Measured, not asserted. What it runs and prints: bench/README.md; its figures:
// conformance/README.md ("How long a run takes").
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { started, stop, temporaryDirectory } from './cleanup.ts';
import { buildConformance, CONFORMANCE_BIN } from '../scripts/build-conformance.ts';
import { buildServer, startCommandWords } from '../scripts/build-server.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RUNS = Number(process.env.RUNS ?? 10);
const TOKEN = 'secret';

interface Run {
  seconds: number;
  /** Of the property phase, from the run's report. */
  propertySeconds: number;
  code: number | null;
  last: string;
  notes: string[];
  /** The machine's load average over the last minute, when the run ended. */
  load: number;
  /** CPU seconds the server spent during the run. */
  serverCpu: number;
}

/** CPU seconds process `pid` has used so far (user and system; Linux's /proc, in clock ticks of 1/100 s). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Starts the built server as `npm start` does; resolves with its address, its pid and a reader of its log so far. */
async function startServer(dataDir: string): Promise<{ url: string; pid: number; log: () => string; stopServer: () => Promise<void> }> {
  const [, ...args] = startCommandWords();
  const child = started(
    spawn(process.execPath, args, {
      cwd: root,
      env: { ...process.env, PORT: '0', DATA_DIR: dataDir, DOCS_API_TOKEN: TOKEN, ALLOW_PRIVATE_ADDRESSES: '127.0.0.1', LOG_FORMAT: 'json' },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  let log = '';
  child.stdout!.on('data', (chunk: Buffer) => (log += chunk));
  child.stderr!.on('data', (chunk: Buffer) => (log += chunk));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      const found = /listening on (http:\/\/\S+)/.exec(log);
      if (found) {
        clearInterval(timer);
        resolve(found[1]!);
      }
    }, 20);
    child.once('exit', (code) => {
      clearInterval(timer);
      reject(new Error(`the server exited (${code}) before it listened:\n${log}`));
    });
  });
  return { url, pid: child.pid!, log: () => log, stopServer: () => stop(child) };
}

/** One run of the runner's command against `url`, to its end. */
function runOnce(url: string, serverPid: number, report: string): Promise<Run> {
  return new Promise((resolve) => {
    const begun = performance.now();
    const serverBefore = cpuSeconds(serverPid);
    const child = started(spawn(process.execPath, [CONFORMANCE_BIN, '--base-url', url, '--token', TOKEN, '--report', report], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] }));
    let stdout = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk));
    child.stderr!.resume();
    child.once('exit', (code) => {
      const lines = stdout.trim().split('\n');
      const property = (JSON.parse(readFileSync(report, 'utf8')) as { property?: { durationMs: number } }).property;
      resolve({
        seconds: (performance.now() - begun) / 1000,
        propertySeconds: (property?.durationMs ?? 0) / 1000,
        code,
        last: lines.at(-1) ?? '',
        notes: lines.filter((line) => line.startsWith('note: ')),
        load: loadavg()[0]!,
        serverCpu: cpuSeconds(serverPid) - serverBefore,
      });
    });
  });
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

async function main(): Promise<void> {
  await buildServer();
  await buildConformance();
  const folder = temporaryDirectory('conformance-timing-');
  const server = await startServer(path.join(folder, 'data'));
  const runs: Run[] = [];
  try {
    for (let index = 1; index <= RUNS; index++) {
      const run = await runOnce(server.url, server.pid, path.join(folder, `run-${index}.json`));
      runs.push(run);
      const notes = run.notes.length > 0 ? `\n  ${run.notes.join('\n  ')}` : '';
      console.log(
        `run ${index}: ${run.seconds.toFixed(1)} s (property phase ${run.propertySeconds.toFixed(1)} s; server CPU ${run.serverCpu.toFixed(1)} s), load ${run.load.toFixed(1)}, exit ${run.code}, ${run.last}${notes}`,
      );
    }
  } finally {
    await server.stopServer();
  }
  const seconds = runs.map((run) => run.seconds);
  console.log(`${runs.length} runs: ${Math.min(...seconds).toFixed(1)} to ${Math.max(...seconds).toFixed(1)} s, median ${median(seconds).toFixed(1)} s; ${runs.filter((run) => run.notes.length > 0).length} with a note, ${runs.filter((run) => run.code !== 0).length} not passing`);
  const log = server.log().split('\n').filter(Boolean);
  const raw = log.filter((line) => !line.startsWith('{'));
  const lookups = [...new Set(log.flatMap((line) => [...line.matchAll(/getaddrinfo (?:ENOTFOUND|EAI_AGAIN) ([^\s"\\]+)/g)].map((match) => match[1]!)))];
  console.log(`server log: ${log.length} lines, ${raw.length} not JSON${raw.length > 0 ? `:\n  ${raw.slice(0, 10).join('\n  ')}` : ''}`);
  console.log(`host names the server failed to look up: ${lookups.length === 0 ? 'none' : lookups.join(', ')}`);
}

await main();
