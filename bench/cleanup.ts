// The bench's processes and temporary data, and their end however the bench ends: every part that starts a server
// (throughput.ts) or writes a database (bench.ts's `ids`) goes through here, so that nothing it started or
// wrote outlives it (`test/tooling/bench-cleanup.test.ts`).
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import path from 'node:path';

/** Every process the bench started that has not exited yet. */
const running = new Set<ChildProcess>();
/** Servers started through npm (Prism, `npm start`), in a process group of their own (`detached`): stopped with their whole group. */
const processGroups = new WeakSet<ChildProcess>();

/** Records `child` in `running` until it exits; `group`: it leads a process group of its own. */
export function started<Child extends ChildProcess>(child: Child, group = false): Child {
  cleanUpOnExit();
  running.add(child);
  if (group) processGroups.add(child);
  child.once('exit', () => running.delete(child));
  return child;
}

/** Whether `child` was started as the leader of a process group of its own (`started(child, true)`). */
export const leadsGroup = (child: ChildProcess): boolean => processGroups.has(child);

/** Sends SIGTERM to `child`, or to its whole process group if it leads one. */
function terminate(child: ChildProcess): void {
  try {
    if (processGroups.has(child)) process.kill(-child.pid!, 'SIGTERM');
    else child.kill('SIGTERM');
  } catch {
    // It exited in the meantime.
  }
}

/** Stops `child` (its whole group if it leads one) and waits for it to exit. */
export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exit = new Promise((resolve) => child.once('exit', resolve));
  terminate(child);
  await exit;
}

let cleaningUp = false;

/**
 * However the bench ends, the servers it started end with it, and its data goes. Besides a normal end, that is an
 * error, including EPIPE when what reads its output has gone (`npm run bench | head`: node ignores SIGPIPE, so the
 * next line printed throws), and a signal sent to the bench alone (SIGTERM or SIGHUP; Ctrl-C reaches the terminal's
 * whole process group, but not the servers started in groups of their own). Without this, they went on running,
 * holding their ports and their share of the machine, and their data stayed in the temporary directory. Set up
 * once, by the first process started or temporary directory made.
 */
function cleanUpOnExit(): void {
  if (cleaningUp) return;
  cleaningUp = true;
  process.once('exit', () => {
    for (const child of running) terminate(child);
    for (const dir of temporaryDirectories) rmSync(dir, { recursive: true, force: true });
  });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => process.exit(128 + constants.signals[signal]));
  }
}

/** The bench's temporary directories that still exist: each part's data, removed however the bench ends. */
const temporaryDirectories = new Set<string>();

/** A new temporary directory for a part of the bench, removed by `removeTemporary` or when the bench ends. */
export function temporaryDirectory(prefix: string): string {
  cleanUpOnExit();
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  temporaryDirectories.add(dir);
  return dir;
}

/** Removes `dir`, a directory `temporaryDirectory` made. */
export function removeTemporary(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  temporaryDirectories.delete(dir);
}
