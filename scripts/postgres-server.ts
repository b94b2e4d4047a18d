// A real PostgreSQL server for the tests, started from the binaries of Debian's `postgresql` package (`.ci/run`
// installs it when missing): `initdb` and `pg_ctl` on a temporary folder, listening on a Unix socket only, with the
// settings of a throwaway database (no fsync). initdb refuses to run as root, so as root (CI) every command runs as
// the `postgres` user the package creates. It stops however the test run ends: by `stop()`, and otherwise by a
// watchdog process that stops it when the process that started it is gone (a run killed with SIGKILL included).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';

export interface PostgresServer {
  /** The folder of its data (its postmaster.pid names the server's process). */
  dataDir: string;
  /** The folder of its Unix socket (the `host` of a connection). */
  socketDir: string;
  port: number;
  /** The superuser to connect as. */
  user: string;
  /** The address of database `name` on this server. */
  url(name: string): string;
  /** Stops the server, keeping its data (a database that went away). */
  pause(): void;
  /**
   * Stops the server as a crash does (`pg_ctl -m immediate`: every session cut off mid-statement, no checkpoint, a
   * recovery at the next start), keeping its data; `resume` starts it again.
   */
  crash(): void;
  /** Starts it again after `pause`. */
  resume(): void;
  stop(): void;
}

/** The folder of PostgreSQL's server binaries: PG_BIN, the newest of /usr/lib/postgresql/<version>/bin, or PATH. */
export function postgresBinaries(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root).filter((name) => /^\d+$/.test(name)).sort((a, b) => Number(b) - Number(a));
    for (const version of versions) {
      const bin = path.join(root, version, 'bin');
      if (existsSync(path.join(bin, 'initdb'))) return bin;
    }
  }
  const found = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' }).stdout.trim();
  if (found) return path.dirname(found);
  throw new Error(
    'PostgreSQL is not installed: the tests on PostgreSQL need its server binaries (Debian: apt-get install postgresql; `.ci/run` does it), or PG_BIN naming their folder',
  );
}

const isRoot = () => process.getuid?.() === 0;

/** Runs a PostgreSQL binary, as the `postgres` user when this process is root. */
function runAs(bin: string, args: string[]): void {
  const command = isRoot() ? ['runuser', '-u', 'postgres', '--', bin, ...args] : [bin, ...args];
  const result = spawnSync(command[0]!, command.slice(1), { encoding: 'utf8' });
  if (result.status !== 0) {
    throw new Error(`${path.basename(bin)} failed (${result.status}): ${result.stderr || result.stdout}`);
  }
}

/** Starts a PostgreSQL server of its own on a temporary folder; the caller stops it. */
/**
 * `durable`: fsync and full-page writes on, as a server that keeps data (the bench); off for tests. `settings`: more
 * `-c name=value` settings (the bench's pg_stat_statements).
 */
export function startPostgres(options: { port?: number; durable?: boolean; settings?: string[] } = {}): PostgresServer {
  const bin = postgresBinaries();
  const root = mkdtempSync(path.join(tmpdir(), 'docs-platform-pg-'));
  const data = path.join(root, 'data');
  const socketDir = path.join(root, 'socket');
  const log = path.join(root, 'server.log');
  // The folder and the socket's belong to the user that runs the server.
  execFileSync('mkdir', ['-p', data, socketDir]);
  if (isRoot()) {
    const { uid, gid } = userIdsOf('postgres');
    for (const folder of [root, data, socketDir]) chownSync(folder, uid, gid);
  }
  chmodSync(data, 0o700);
  const port = options.port ?? 5432;
  const user = isRoot() ? 'postgres' : userInfo().username;
  runAs(path.join(bin, 'initdb'), ['-D', data, '-U', user, '--auth=trust', '--encoding=UTF8', '--locale=C.UTF-8', '--no-sync']);
  const start = () =>
    runAs(path.join(bin, 'pg_ctl'), [
      '-D',
      data,
      '-l',
      log,
      '-w',
      '-o',
      [
        `-k ${socketDir}`,
        "-c listen_addresses=''",
        `-p ${port}`,
        // Commits do not wait for the log to reach the disk (a crash loses the last moments, never consistency), as
        // the SQLite store's `synchronous = NORMAL`.
        '-c synchronous_commit=off',
        ...(options.durable ? [] : ['-c fsync=off', '-c full_page_writes=off']),
        '-c max_connections=300',
        '-c shared_buffers=64MB',
        ...(options.settings ?? []).map((setting) => `-c ${setting}`),
      ].join(' '),
      'start',
    ]);
  start();
  const stopCommand = `${path.join(bin, 'pg_ctl')} -D ${data} -m immediate stop`;
  // The watchdog: stops the server and removes its folder once this process is gone, however it ended.
  const watchdog = spawn(
    'sh',
    ['-c', `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done; ${isRoot() ? `runuser -u postgres -- ${stopCommand}` : stopCommand} >/dev/null 2>&1; rm -rf ${root}`],
    { detached: true, stdio: 'ignore' },
  );
  watchdog.unref();
  let stopped = false;
  return {
    dataDir: data,
    socketDir,
    port,
    user,
    url: (name) => `postgres://${user}@localhost:${port}/${name}?host=${encodeURIComponent(socketDir)}`,
    pause: () => runAs(path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop']),
    crash: () => runAs(path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']),
    resume: start,
    stop() {
      if (stopped) return;
      stopped = true;
      try {
        // Not running (paused, or it failed to start again): nothing to stop.
        if (existsSync(path.join(data, 'postmaster.pid'))) runAs(path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', 'stop']);
      } finally {
        rmSync(root, { recursive: true, force: true });
        try {
          process.kill(watchdog.pid!);
        } catch {
          // already gone
        }
      }
    },
  };
}

function userIdsOf(name: string): { uid: number; gid: number } {
  const ids = (flag: string) => Number(execFileSync('id', [flag, name], { encoding: 'utf8' }).trim());
  try {
    return { uid: ids('-u'), gid: ids('-g') };
  } catch {
    throw new Error(`the tests on PostgreSQL run it as the user "${name}" when run as root, and there is none (Debian's postgresql package creates it)`);
  }
}
