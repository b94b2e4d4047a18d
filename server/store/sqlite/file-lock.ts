// A lock on a file that the kernel releases when its holder ends, however it ends (a clean stop, a crash, `kill -9`,
// a container stopped): SQLite's own file locks (POSIX advisory locks on the file; LockFileEx on Windows), taken by
// holding the file, a SQLite database, in an exclusive transaction that is never committed. data-dir.ts locks
// DATA_DIR with it; it lives here, with the rest of what runs SQL. Taking the lock writes nothing to the disk (the
// transaction's journal is kept in memory), so a server starts on a full disk.
import Database from 'better-sqlite3';

/** A lock held until `release()` (or until the process ends). */
export interface FileLock {
  release(): void;
}

/** The file could not be opened as a database (the system's reason is the cause). */
export class FileLockOpenError extends Error {}

/** Another process holds the lock. */
export class FileLockBusyError extends Error {}

/**
 * Takes the exclusive lock of `file` (which must exist), waiting up to `waitMs` for another holder to let it go.
 * Throws FileLockOpenError, FileLockBusyError, or SQLite's error when the lock cannot be taken for another reason.
 */
export function lockFile(file: string, waitMs: number): FileLock {
  let database: Database.Database;
  try {
    database = new Database(file, { timeout: waitMs });
  } catch (error) {
    throw new FileLockOpenError(`${file} cannot be opened`, { cause: error });
  }
  try {
    // The exclusive transaction of an empty file writes its first page, which a journal on the disk would need room
    // for: in memory, nothing is written (the transaction is never committed).
    database.pragma('journal_mode = MEMORY');
    database.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    database.close();
    const code = (error as { code?: string }).code;
    if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') throw new FileLockBusyError(`${file} is locked by another process`, { cause: error });
    throw error;
  }
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      try {
        database.exec('ROLLBACK');
      } finally {
        database.close();
      }
    },
  };
}
