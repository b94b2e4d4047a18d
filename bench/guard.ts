// `npm run bench:guard`: this checkout's server against another build's (`main` as committed, or GUARD_BASE=<commit>),
// interleaved in one run (the bench's `guard` part), on SQLite and on PostgreSQL: per request, req/s and server CPU
// against it (and against Express answering the same bytes); exit 1 when a request is slower in every run (docs/development.md, "Before a change to
// the request path"). The other build is exported from git into a temporary folder, its dependencies this checkout's
// when the lockfile is the same (else npm ci), and built there; BENCH_* variables apply as to the bench.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runsNeeded } from './against-baseline.ts';
import { guardedRequests } from './fixture.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const base = process.env.GUARD_BASE || 'main';
/** The guard part's requests, on SQLite and on PostgreSQL (bench/fixture.ts), among those BENCH_REQUESTS names. */
const named = process.env.BENCH_REQUESTS ? process.env.BENCH_REQUESTS.split(',').map((name) => name.trim()) : undefined;
const guarded = guardedRequests(named);
const judged = guarded.sqlite.length + guarded.postgres.length;

const commit = execFileSync('git', ['rev-parse', '--verify', `${base}^{commit}`], { cwd: root, encoding: 'utf8' }).trim();
const folder = mkdtempSync(path.join(tmpdir(), 'bench-guard-'));
const run = (command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env) => {
  const result = spawnSync(command, args, { cwd, env, stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} in ${cwd}: exit ${result.status ?? result.signal}`);
};
let status = 1;
try {
  console.log(`bench:guard: ${base} (${commit.slice(0, 12)}) into ${folder}`);
  execFileSync('sh', ['-c', `git archive ${commit} | tar -x -C "${folder}"`], { cwd: root, stdio: 'inherit' });
  const sameLock = existsSync(path.join(folder, 'package-lock.json')) && readFileSync(path.join(folder, 'package-lock.json'), 'utf8') === readFileSync(path.join(root, 'package-lock.json'), 'utf8');
  if (sameLock) symlinkSync(path.join(root, 'node_modules'), path.join(folder, 'node_modules'), 'dir');
  else run('npm', ['ci', '--no-audit', '--no-fund'], folder);
  run(process.execPath, ['--import', 'tsx', 'scripts/build-server.ts'], folder);
  const env = {
    ...process.env,
    BENCH_PARTS: 'guard',
    BENCH_BASELINE: folder,
    BENCH_RUNS: process.env.BENCH_RUNS || String(runsNeeded(judged)),
    BENCH_SECONDS: process.env.BENCH_SECONDS || '3',
    // Unset, the guard part takes each engine's set (guardedRequests); named, a write runs on both engines.
    ...(named === undefined ? {} : { BENCH_REQUESTS: named.join(',') }),
  };
  const bench = spawnSync(process.execPath, ['--import', 'tsx', 'bench/bench.ts'], { cwd: root, env, stdio: 'inherit' });
  status = bench.status ?? 1;
} catch (error) {
  console.error(`bench:guard: ${(error as Error).message}`);
} finally {
  rmSync(folder, { recursive: true, force: true });
}
process.exit(status);
