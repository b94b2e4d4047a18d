// `npm run bench` stops the servers it started, and removes its data, however it ends: a signal to the bench process
// alone while a server it spawned runs (SIGHUP), and while `npm start` runs in a process group of its own (SIGTERM).
// How the bench runs here: test/README.md, "The bench's clean-up".
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';

const scratch = mkdtempSync(path.join(tmpdir(), 'bench-cleanup-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The parent of each process now running, by pid (from /proc). */
function parents(): Map<number, number> {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The fields after the command's name, which is in parentheses and may hold spaces: the parent is field 4.
      parentOf.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // It ended meanwhile.
    }
  }
  return parentOf;
}

/** The processes descending from `pid`, with their command lines. */
function descendants(pid: number): { pid: number; command: string }[] {
  const parentOf = parents();
  const found: { pid: number; command: string }[] = [];
  const within = new Set([pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [child, parent] of parentOf) {
      if (within.has(parent) && !within.has(child)) {
        within.add(child);
        grew = true;
        let command = '';
        try {
          command = readFileSync(`/proc/${child}/cmdline`, 'utf8').replaceAll('\0', ' ');
        } catch {
          // It ended meanwhile.
        }
        found.push({ pid: child, command });
      }
    }
  }
  return found;
}

const alive = (pid: number) => {
  try {
    // A zombie (state Z) has ended; only its parent has not collected it yet.
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

/** Waits for `probe` to give a value, up to a bound: how long a failure takes to show (a start on a loaded machine takes far less). */
async function until<T>(what: string, probe: () => T | undefined, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Starts the bench's start-up part (or `part`) in a temporary directory of its own. */
function startBench(name: string, part = 'startup'): { bench: ChildProcess; temp: string; output: () => string } {
  const temp = path.join(scratch, name);
  mkdirSync(temp);
  const bench = spawn(process.execPath, ['--import', 'tsx', 'bench/bench.ts'], {
    env: { ...process.env, BENCH_PARTS: part, BENCH_SERVER: 'tsx', TMPDIR: temp },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  bench.stdout!.on('data', (chunk: Buffer) => (output += chunk));
  bench.stderr!.on('data', (chunk: Buffer) => (output += chunk));
  return { bench, temp, output: () => output };
}

const benchDirs = (temp: string, prefix = 'docs-bench-') => readdirSync(temp).filter((entry) => entry.startsWith(prefix));

/** Waits for the bench to exit, then for every process it had started to end; gives the bench's exit. */
async function ended(bench: ChildProcess, started: { pid: number; command: string }[]) {
  const exit = await new Promise<{ code: number | null; signal: string | null }>((resolve) => {
    if (bench.exitCode !== null || bench.signalCode !== null) resolve({ code: bench.exitCode, signal: bench.signalCode });
    else bench.once('exit', (code, signal) => resolve({ code, signal }));
  });
  await until(`the bench's servers to end: ${started.map((p) => p.command).join('; ')}`, () =>
    started.some((child) => alive(child.pid)) ? undefined : true,
  );
  return exit;
}

describe('npm run bench, ended early', { skip: !existsSync('/proc/self/stat'), timeout: 180_000 }, () => {
  test('SIGHUP while a server it spawned runs: the server ends, the bench exits 129, its data is gone', async () => {
    const { bench, temp, output } = startBench('hup');
    const started = await until('the first server', () => {
      const found = descendants(bench.pid!);
      return found.some((child) => child.command.includes('server/main.ts')) ? found : undefined;
    });
    expect(benchDirs(temp)).toHaveLength(1);
    bench.kill('SIGHUP');
    expect(await ended(bench, started), output()).toEqual({ code: 129, signal: null });
    expect(benchDirs(temp)).toEqual([]);
  });

  test('SIGTERM while `npm start` runs in a group of its own: npm and its server end, the bench exits 143', async () => {
    const { bench, temp, output } = startBench('term');
    const started = await until('`npm start`', () => {
      const found = descendants(bench.pid!);
      return found.some((child) => child.command.includes('dist/server/main.js')) ? found : undefined;
    });
    // npm, the shell it runs the script in, and node.
    expect(started.length).toBeGreaterThanOrEqual(2);
    bench.kill('SIGTERM');
    expect(await ended(bench, started), output()).toEqual({ code: 143, signal: null });
    expect(benchDirs(temp)).toEqual([]);
  });

  test('SIGTERM during the ids part, which starts no server: the bench exits 143, its database is gone', async () => {
    const { bench, temp, output } = startBench('ids', 'ids');
    await until("the ids part's database", () => (benchDirs(temp, 'bench-ids-').length === 1 ? true : undefined));
    bench.kill('SIGTERM');
    expect(await ended(bench, []), output()).toEqual({ code: 143, signal: null });
    expect(benchDirs(temp, 'bench-ids-')).toEqual([]);
  });
});
