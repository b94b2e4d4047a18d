// DATA_DIR at start-up: the folder is checked (created when missing) and locked before the database is opened, so
// that an unusable folder is one line naming the path and the reason, and a second server on the same folder is
// refused instead of sharing the database and re-running the background jobs of the first.
import { closeSync, mkdirSync, openSync, readFileSync, readSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { StartupError } from '../common/config.ts';
import { FileLockBusyError, FileLockOpenError, lockFile, type FileLock } from '../store/sqlite/file-lock.ts';

/** The lock file in DATA_DIR: held locked by the server that runs on the folder (see lockDataDir). */
export const LOCK_FILE = 'server.lock';

export interface LockInfo {
  pid: number;
  host: string;
  startedAt: string;
}

export interface DataDirLock {
  /** The server that held the lock before and did not stop cleanly, as it recorded itself (for a log line). */
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

/** Where the server holding the lock writes who it is (for the message of a refused start; not the lock itself). */
export const HOLDER_FILE = 'server.json';

/** How long a start waits for the lock while another start takes it (the kernel releases a dead holder's at once). */
const LOCK_WAIT_MS = 200;

function readHolder(dir: string): LockInfo | undefined {
  try {
    const info = JSON.parse(readFileSync(path.join(dir, HOLDER_FILE), 'utf8')) as Partial<LockInfo>;
    if (Number.isInteger(info.pid) && typeof info.host === 'string' && typeof info.startedAt === 'string') return info as LockInfo;
  } catch {
    // none, or half written
  }
  return undefined;
}

/** `server.lock` as an earlier version wrote it: JSON naming a pid, which only that version's servers read. */
function isLegacyLock(file: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const head = Buffer.alloc(16);
    const read = readSync(fd, head, 0, 16, 0);
    return read > 0 && head.subarray(0, read).toString('latin1') !== 'SQLite format 3\0'.slice(0, read);
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Takes `DATA_DIR/server.lock`: an exclusive lock on an open file, which the kernel releases when the process that
 * holds it ends, however it ends (a clean stop, a crash, `kill -9`, a container stopped): a lock is never judged by
 * a pid, so a pid reused after a restart (a container's 1) refuses nothing, and a dead holder, reaped or not, holds
 * nothing. The file is a SQLite database held in an exclusive transaction that is never committed (SQLite's own
 * locks: store/sqlite/file-lock.ts); it stays in DATA_DIR (deleting a lock file that another process may have open would let two servers
 * hold two files). Two starts at once: exactly one gets the lock, the other is refused. Who holds it is written
 * beside it (`server.json`: pid, host, start time) for the message of a refused start, and removed at a clean stop.
 * Released by `release()` when the server closes.
 */
export function lockDataDir(dir: string): DataDirLock {
  const file = path.join(dir, LOCK_FILE);
  const mine: LockInfo = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString() };
  let takenOver: LockInfo | undefined;
  if (isLegacyLock(file)) {
    // An earlier version's lock: its server stopped before this one was installed (its pid means nothing here).
    try {
      const legacy = JSON.parse(readFileSync(file, 'utf8')) as Partial<LockInfo>;
      if (Number.isInteger(legacy.pid) && typeof legacy.host === 'string') takenOver = legacy as LockInfo;
    } catch {
      // unreadable: replaced all the same
    }
    rmSync(file, { force: true });
  }
  let lock: FileLock;
  try {
    // Created (or opened) here first: SQLite says only SQLITE_CANTOPEN, the system says why.
    closeSync(openSync(file, 'a'));
    lock = lockFile(file, LOCK_WAIT_MS);
  } catch (error) {
    if (error instanceof FileLockBusyError) {
      const held = readHolder(dir);
      const who = held ? ` (process ${held.pid} on ${held.host}, started ${held.startedAt})` : '';
      throw new DataDirError(`DATA_DIR ${dir} is in use by another server${who}: stop it, or choose another DATA_DIR.`);
    }
    if (error instanceof FileLockOpenError || !(error as { code?: string }).code?.startsWith('SQLITE')) {
      const cause = error instanceof FileLockOpenError ? error.cause : error;
      throw new DataDirError(`DATA_DIR ${dir} is not writable: ${reason(cause)} (opening ${LOCK_FILE}). Choose another DATA_DIR or fix its permissions.`);
    }
    throw new DataDirError(`DATA_DIR ${dir} cannot be locked: ${(error as Error).message} (${LOCK_FILE}). Delete ${file} if no server runs on this DATA_DIR.`);
  }
  // The previous holder, when it did not stop cleanly: its record is still there.
  const previous = readHolder(dir);
  if (previous && !takenOver) takenOver = previous;
  try {
    writeFileSync(path.join(dir, HOLDER_FILE), `${JSON.stringify(mine)}\n`);
  } catch {
    // only the message of a refused start loses its detail
  }
  let released = false;
  return {
    ...(takenOver ? { takenOver } : {}),
    release() {
      if (released) return;
      released = true;
      rmSync(path.join(dir, HOLDER_FILE), { force: true });
      lock.release();
    },
  };
}
