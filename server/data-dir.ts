// DATA_DIR at start-up: the folder is checked (created when missing) and locked before the database is opened, so
// that an unusable folder is one line naming the path and the reason, and a second server on the same folder is
// refused instead of sharing the database and re-running the background jobs of the first.
import { closeSync, mkdirSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { StartupError } from './config.ts';

/** The lock file in DATA_DIR: the pid, host and start time of the server that holds the folder. */
export const LOCK_FILE = 'server.lock';

export interface LockInfo {
  pid: number;
  host: string;
  startedAt: string;
}

export interface DataDirLock {
  /** The lock this server took over from a dead process, if it did (for a log line). */
  takenOver?: LockInfo;
  release(): void;
}

/** A DATA_DIR the server cannot use; the message names the folder and the reason. */
export class DataDirError extends StartupError {}

const reason = (error: unknown) => {
  const { code, message } = error as NodeJS.ErrnoException;
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EROFS') return 'read-only file system';
  if (code === 'ENOSPC') return 'no space left on the device';
  return code ?? message;
};

/**
 * Makes sure `dir` is a folder the server can write to, creating it and its missing parents. It does not use
 * `mkdirSync(dir, { recursive: true })`: on Node 20 that loops forever when a parent exists but refuses children with
 * ENOENT (`DATA_DIR=/proc/nope`: mkdir /proc/nope says ENOENT, mkdir /proc says EEXIST, and round again), which is why
 * such a start used to hang. Here each missing folder is created once, from the deepest existing ancestor down.
 */
export function prepareDataDir(dir: string): void {
  const missing: string[] = [];
  let existing = dir;
  for (;;) {
    let stats;
    try {
      stats = statSync(existing, { throwIfNoEntry: false });
    } catch (error) {
      // A file on the way: found as such one step up.
      if ((error as NodeJS.ErrnoException).code !== 'ENOTDIR') throw new DataDirError(`DATA_DIR ${dir} cannot be used: ${existing} cannot be read (${reason(error)}). Choose another DATA_DIR.`);
    }
    if (stats) {
      if (!stats.isDirectory()) {
        throw existing === dir
          ? new DataDirError(`DATA_DIR ${dir} is not a directory. Choose a folder (it is created if missing).`)
          : new DataDirError(`DATA_DIR ${dir} cannot be created: ${existing} is not a directory. Choose another DATA_DIR.`);
      }
      break;
    }
    missing.unshift(existing);
    const parent = path.dirname(existing);
    if (parent === existing) break;
    existing = parent;
  }
  for (const folder of missing) {
    try {
      mkdirSync(folder);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST' && statSync(folder).isDirectory()) continue;
      const why = (error as NodeJS.ErrnoException).code === 'ENOENT' ? `${path.dirname(folder)} does not accept new folders` : reason(error);
      throw new DataDirError(`DATA_DIR ${dir} cannot be created: ${why}. Choose another DATA_DIR.`);
    }
  }
}

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

function readLock(file: string): LockInfo | undefined {
  try {
    const info = JSON.parse(readFileSync(file, 'utf8')) as Partial<LockInfo>;
    if (Number.isInteger(info.pid) && typeof info.host === 'string') return info as LockInfo;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw error;
  }
  return undefined;
}

/**
 * Takes `DATA_DIR/server.lock` (created exclusively, holding this process's pid, host and start time). A lock held by
 * a live process, or by a process on another host (whose life cannot be checked from here), refuses the start,
 * naming that process. A lock left by a process of this host that no longer runs (or an unreadable one, from a crash
 * while it was written) is taken over. Released by `release()` when the server closes.
 */
export function lockDataDir(dir: string): DataDirLock {
  const file = path.join(dir, LOCK_FILE);
  const mine: LockInfo = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString() };
  let takenOver: LockInfo | undefined;
  for (let attempt = 0; ; attempt++) {
    let fd: number;
    try {
      fd = openSync(file, 'wx');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new DataDirError(`DATA_DIR ${dir} is not writable: ${reason(error)} (creating ${LOCK_FILE}). Choose another DATA_DIR or fix its permissions.`);
      }
      let held: LockInfo | undefined;
      try {
        held = readLock(file);
      } catch {
        continue; // released in between: try again
      }
      const stale = held === undefined || (held.host === mine.host && !isAlive(held.pid));
      if (!stale || attempt > 3) {
        const who = held ? `process ${held.pid} on ${held.host}, started ${held.startedAt}` : 'another process';
        const remote = held && held.host !== mine.host ? `, or delete ${file} if that server no longer runs` : '';
        throw new DataDirError(
          `DATA_DIR ${dir} is in use by another server (${who}): stop it, or choose another DATA_DIR${remote}.`,
        );
      }
      takenOver = held ?? { pid: 0, host: mine.host, startedAt: 'unknown' };
      try {
        unlinkSync(file);
      } catch (unlinkError) {
        if ((unlinkError as NodeJS.ErrnoException).code !== 'ENOENT') throw unlinkError;
      }
      continue;
    }
    try {
      writeSync(fd, `${JSON.stringify(mine)}\n`);
    } finally {
      closeSync(fd);
    }
    let released = false;
    return {
      ...(takenOver ? { takenOver } : {}),
      release() {
        if (released) return;
        released = true;
        try {
          // Only our own lock: a lock taken over by another process after ours was judged stale stays.
          if (readLock(file)?.pid === mine.pid) unlinkSync(file);
        } catch {
          // already gone
        }
      },
    };
  }
}
