// What the benches that load a server process share (throughput.ts, operations.ts, proxy.ts): a server started, a free
// port, the wait for a process's first answer, the CPU its processes spent (from /proc), the medians of interleaved runs,
// and the cores the servers and the bench run on (BENCH_SERVER_CPUS).
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startNodeOptions } from '../scripts/build-server.ts';
import { leadsGroup, started } from './cleanup.ts';
import { BENCH_TOKEN } from './fixture.ts';
import type { BenchSettings } from './settings.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The node arguments of the reference server as `npm start` runs it (or its sources: BENCH_SERVER=tsx), BENCH_NODE_ARGS added. */
export const serverCommand = (settings: BenchSettings): string[] => [
  ...startNodeOptions(),
  ...settings.nodeArgs,
  ...(settings.server === 'tsx' ? ['--import', 'tsx', 'server/main.ts'] : ['dist/server/main.js']),
];

/** The cores the servers under test run on (`placeProcesses`); any when undefined. */
let serverCpus: string | undefined;

/**
 * BENCH_SERVER_CPUS: the servers `spawnServer` starts from now on run on `cores`, and this process (every thread of it,
 * and so the load it sends) and what it starts otherwise, PostgreSQL among them, on the machine's other cores: the
 * server's CPU per request is then that of its own work, not also that of sharing its cores with the database, as
 * where the database has a host of its own. Through taskset (util-linux), which the settings checked for.
 */
export function placeProcesses(cores: readonly number[] | undefined): void {
  if (cores === undefined) return;
  const others = Array.from({ length: cpus().length }, (_, core) => core).filter((core) => !cores.includes(core));
  execFileSync('taskset', ['--all-tasks', '--pid', '--cpu-list', others.join(','), String(process.pid)], { stdio: 'ignore' });
  serverCpus = cores.join(',');
}

/** Starts `node args` in `cwd` with `env` added, stopped with the bench (`started`); the end of what it printed. */
export function spawnServer(args: string[], env: Record<string, string>, cwd = root, node = process.execPath): { child: ChildProcess; output: () => string } {
  // taskset runs node in its own process: the child's pid is the server's.
  const [command, words] = serverCpus === undefined ? [node, args] : ['taskset', ['--cpu-list', serverCpus, node, ...args]];
  const child = started(spawn(command, words, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] }));
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk).slice(-4000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  return { child, output: () => output };
}

/** A port nothing listens on now, on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Waits until `url` answers (any status), asking every 5 ms with the bench token, or fails, with the process's
 * `output`, when the process exits first or `timeoutMs` have passed.
 */
export async function answered(url: string, child: ChildProcess, output: () => string, timeoutMs = Infinity): Promise<void> {
  let exited = false;
  child.once('exit', () => (exited = true));
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (exited) throw new Error(`${url}: the process exited before answering:\n${output()}`);
    if (performance.now() > deadline) throw new Error(`${url}: no answer within ${timeoutMs / 1000} s:\n${output()}`);
    try {
      await fetch(url, { headers: { authorization: `Bearer ${BENCH_TOKEN}` } });
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
}

/** One run of one request on one target. */
export interface Measure {
  rps: number;
  p50: number;
  p99: number;
  /** CPU time the target's processes spent per request answered, in µs (undefined without /proc). */
  cpuUs?: number;
}

/** Clock ticks per second of /proc/<pid>/stat's CPU times (USER_HZ, 100 on Linux). */
export const TICKS_PER_SECOND = 100;

/**
 * CPU time (user and system) spent so far by the target's processes, in ms, from /proc: the process itself, or for
 * one started in a process group of its own (Prism, through npm) every process of that group. Undefined where there
 * is no /proc (not Linux).
 */
export function cpuMs(child: ChildProcess): number | undefined {
  const times = (stat: string) => {
    // The fields after the command's name, which is in parentheses and may hold spaces: state is field 3.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { pgid: Number(fields[2]), ticks: Number(fields[11]) + Number(fields[12]) };
  };
  try {
    if (!leadsGroup(child)) return (times(readFileSync(`/proc/${child.pid}/stat`, 'utf8')).ticks * 1000) / TICKS_PER_SECOND;
    let ticks = 0;
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const member = times(readFileSync(`/proc/${entry}/stat`, 'utf8'));
        if (member.pgid === child.pid) ticks += member.ticks;
      } catch {
        // The process ended meanwhile.
      }
    }
    return (ticks * 1000) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** `items` starting at `by` (modulo their number), the ones before it moved to the end. */
export const rotated = <T>(items: readonly T[], by: number): T[] => {
  const start = items.length === 0 ? 0 : by % items.length;
  return [...items.slice(start), ...items.slice(0, start)];
};

/** The middle value, or the mean of the two middle ones. */
export const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/** The medians of a target's runs of one request (CPU only when every run measured it). */
export function medians(runs: Measure[]): Measure {
  const cpu = runs.map((m) => m.cpuUs).filter((us) => us !== undefined);
  return {
    rps: median(runs.map((m) => m.rps)),
    p50: median(runs.map((m) => m.p50)),
    p99: median(runs.map((m) => m.p99)),
    ...(cpu.length === runs.length ? { cpuUs: median(cpu) } : {}),
  };
}
