// The type-check of `npm run dev`: TypeScript 7's native tsc on the whole project, incremental (its state shared with
// `npm run check`), at a lower priority, once when the server serves and again after any TypeScript file of the
// project changes (a change during a check runs one more after it). One `[dev] types:` line per check. Not
// `tsc --watch`: TypeScript 7.0's watch mode did not see saved files here, and TypeScript 5's takes four times as long
// to check the project.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { setPriority } from 'node:os';
import path from 'node:path';
import { type TreeWatcher, watchTree } from './watch-tree.ts';

/** The folders of tsconfig.json's `include`, whose TypeScript files the type-check re-runs on. */
const TYPECHECKED = ['scripts', 'test', 'generated', 'server', 'client', 'conformance', 'compare', 'breaking', 'release', 'bench'];

const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

export interface Typecheck {
  /** Stops watching, and the check under way: resolves once it has exited. */
  close(): Promise<void>;
}

export function startTypecheck(options: { root: string; debounceMs: number; say: (line: string) => void }): Typecheck {
  const { root, debounceMs, say } = options;
  mkdirSync(path.join(root, '.tmp'), { recursive: true });
  const tscPath = path.join(root, 'node_modules/typescript-native/bin/tsc');
  const args = ['--noEmit', '-p', '.', '--incremental', '--tsBuildInfoFile', '.tmp/check-native.tsbuildinfo', '--pretty', 'false'];
  let closed = false;
  let checker: ChildProcess | undefined;
  let again = false;
  const run = () => {
    if (closed) return;
    again = false;
    const started = performance.now();
    const tsc = spawn(process.execPath, [tscPath, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    checker = tsc;
    try {
      setPriority(tsc.pid!, 10);
    } catch {
      // not allowed here: it runs at the normal priority
    }
    let output = '';
    tsc.stdout!.on('data', (chunk: Buffer) => (output += chunk));
    tsc.stderr!.on('data', (chunk: Buffer) => (output += chunk));
    tsc.once('close', (code, signal) => {
      checker = undefined;
      if (closed) return;
      say(checkResult(output, code, signal, seconds(started)));
      if (again) run();
    });
  };
  let pause: NodeJS.Timeout | undefined;
  const changed = () => {
    if (closed) return;
    clearTimeout(pause);
    pause = setTimeout(() => {
      if (checker) again = true;
      else run();
    }, debounceMs);
  };
  const watchers: TreeWatcher[] = TYPECHECKED.map((folder) => watchTree(path.join(root, folder), (file) => /\.(ts|mts|cts|json)$/.test(file), changed));
  run();
  return {
    async close() {
      closed = true;
      clearTimeout(pause);
      for (const watcher of watchers) watcher.close();
      const tsc = checker;
      const gone = tsc && tsc.exitCode === null && tsc.signalCode === null ? new Promise((resolve) => tsc.once('exit', resolve)) : undefined;
      tsc?.kill('SIGTERM');
      await gone;
    },
  };
}

/** The `[dev]` line of a check that ended with `code` (or `signal`), having printed `output`, after `took`. */
export function checkResult(output: string, code: number | null, signal: NodeJS.Signals | null, took: string): string {
  const lines = output.split('\n').filter((line) => line.trim() !== '');
  const errors = lines.filter((line) => /error TS\d+/.test(line));
  if (code === 0) return `types: the project type-checks (${took})`;
  if (errors.length > 0) return `types: ${errors.length} type error(s) (${took}):\n${lines.join('\n')}`;
  return `the type-check stopped (exit code ${code ?? signal})${lines.length > 0 ? `:\n${lines.join('\n')}` : ''}`;
}
