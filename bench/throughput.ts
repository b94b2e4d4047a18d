// The throughput part of `npm run bench`: the reference server as `npm start` runs it, response validation on and
// off, against a bare node:http server answering the very same bytes (bare.mjs), an Express app answering them and,
// with the `prism` part, the Prism mock, under autocannon load, interleaved in one run; then the time from `npm
// start` to the first answer, and the server's memory under load. More: bench/README.md.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { removeTemporary, started, stop, temporaryDirectory } from './cleanup.ts';
import { groupedPages, pageText } from './large-spaces.ts';
import { type BenchRequest, fixture, guardedRequests, headersOf, MAIN_REQUESTS, madeAs, pathOn, REQUESTS as ALL_REQUESTS } from './fixture.ts';
import { answered, cpuMs, freePort, type Measure, median, medians, rotated, serverCommand, spawnServer, TICKS_PER_SECOND } from './measure.ts';
import type { BenchSettings } from './settings.ts';
import pg from 'pg';
import { printFloor, roundTripFloor, roundTrips } from './round-trips.ts';
import { withSeededPostgres } from './pipelining.ts';
import { againstBaseline, postgresAgainstSqlite, ratiosOverRuns } from './against-baseline.ts';
import { startPostgres, type PostgresServer } from '../scripts/postgres-server.ts';
import { startNodeOptions } from '../scripts/build-server.ts';
import { SPEEDUPS } from '../server/common/config.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** What the bench was asked to do (settings.ts), given to `throughput`. */
let settings: BenchSettings;
/** The throughput and store parts' requests: those BENCH_REQUESTS names, or all of them. */
let REQUESTS: BenchRequest[] = ALL_REQUESTS;
const chosenRequests = (chosen: BenchSettings) =>
  chosen.requests === undefined ? ALL_REQUESTS : ALL_REQUESTS.filter((request) => chosen.requests!.includes(request.name));

/**
 * The server as `npm start` runs it; `BENCH_SERVER=tsx` runs the TypeScript sources instead, and `BENCH_NODE_ARGS`
 * gives node options for the server (such as `--cpu-prof` to profile it under load).
 */
interface Target {
  name: string;
  url: string;
  child: ChildProcess;
}

/** Starts the reference server on a fresh copy of the benchmark's data; resolves once it answers. */
async function startReference(name: string, dataDir: string, env: Record<string, string> = {}, checkout = root): Promise<Target> {
  const port = await freePort();
  // Another checkout (the store part's baseline) runs its own compiled server.
  const command = checkout === root ? serverCommand(settings) : [...startNodeOptions(), 'dist/server/main.js'];
  const { child, output } = spawnServer(command, {
    PORT: String(port),
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    DOCS_API_TOKEN: 'bench-demo-token',
    SEED_FILE: seedFile,
    ...env,
  }, checkout, checkout === root ? process.execPath : (settings.baselineNode ?? process.execPath));
  const url = `http://127.0.0.1:${port}`;
  await answered(`${url}/v1/orgs`, child, output);
  return { name, url, child };
}

/**
 * Records the reference server's answer to each request, byte for byte, for the bare server to repeat: the file the
 * bare server reads, and each request's answer body.
 */
async function record(target: Target, requests = REQUESTS): Promise<{ file: string; bodies: Map<BenchRequest, string>; from: Target }> {
  const bodies = new Map<BenchRequest, string>();
  const recorded = [];
  for (const request of requests) {
    const at = await pathOn(target, request);
    const response = await fetch(`${target.url}${at}`, {
      method: request.method,
      headers: headersOf(request),
      ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
    });
    const body = await response.text();
    if (!response.ok) throw new Error(`${request.method} ${at}: ${response.status} ${body}`);
    const headers: Record<string, string> = {};
    response.headers.forEach((value, key) => {
      if (!['date', 'connection', 'keep-alive', 'transfer-encoding'].includes(key)) headers[key] = value;
    });
    recorded.push({ method: request.method, path: at, status: response.status, headers, body });
    bodies.set(request, body);
  }
  const file = path.join(workDir, 'recorded.json');
  writeFileSync(file, JSON.stringify(recorded));
  return { file, bodies, from: target };
}

/**
 * Prism, the stateless mock server users reach for, serving the committed document (`npm exec` fetches it from the
 * npm registry into npm's cache the first time: it is no dependency of this project). It logs each request to
 * stdout; that goes to /dev/null, as when run in the background. Undefined, with a warning, when it cannot start.
 */
const PRISM = '@stoplight/prism-cli@5.16.0';
async function startPrism(): Promise<Target | undefined> {
  const port = await freePort();
  const args = ['exec', '--yes', `--package=${PRISM}`, '--', 'prism', 'mock', '--host', '127.0.0.1', '--port', String(port)];
  const child = started(
    spawn('npm', [...args, path.join(root, 'generated/openapi.yaml')], {
      cwd: workDir,
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe'],
    }),
    true,
  );
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => (output = (output + chunk).slice(-4000)));
  const url = `http://127.0.0.1:${port}`;
  try {
    // Installing it the first time and loading the document take a while.
    await answered(`${url}/v1/orgs`, child, () => output, 180_000);
    return { name: 'Prism mock', url, child };
  } catch (error) {
    console.warn(`warning: Prism (${PRISM}) did not start, so it is left out: ${(error as Error).message}`);
    await stop(child);
    return undefined;
  }
}

async function startBare(recorded: { file: string; from: Target }, framework?: 'express'): Promise<Target> {
  const port = await freePort();
  // The Express baseline serves its app as the server does (server/speed/app-server.ts, a TypeScript module: tsx).
  const bare = [path.join(root, 'bench/bare.mjs'), recorded.file];
  const args = framework ? ['--import', 'tsx', ...bare, framework] : bare;
  const { child, output } = spawnServer(args, { PORT: String(port) });
  const url = `http://127.0.0.1:${port}`;
  await answered(url, child, output);
  return madeAs(recorded.from, { name: framework ? 'bare Express' : 'bare node:http', url, child });
}

/**
 * autocannon's run of `options`. An answer that is not 2xx fails the bench, naming `label`; errors (a connection
 * reset or refused, a timeout) are a warning that says which, so that a rare one can be looked into.
 */
function cannon(label: string, options: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    const errors = new Map<string, number>();
    const instance = autocannon(options, (error, result) => {
      if (error) return reject(error);
      if (result.non2xx > 0) return reject(new Error(`${label}: ${result.non2xx} answers not 2xx`));
      if (result.errors > 0) {
        const which = [...errors].map(([message, count]) => `${count} × ${message}`).join(', ');
        console.warn(`warning: ${label}: ${result.errors} errors (${result.timeouts} timeouts): ${which}`);
      }
      resolve(result);
    });
    instance.on('reqError', (error: unknown) => {
      const message = error instanceof Error ? `${(error as NodeJS.ErrnoException).code ?? error.name}: ${error.message}` : String(error);
      errors.set(message, (errors.get(message) ?? 0) + 1);
    });
  });
}

async function load(target: Target, request: BenchRequest, options: { duration?: number; amount?: number }): Promise<Measure> {
  const { url } = target;
  const at = await pathOn(target, request);
  const before = cpuMs(target.child);
  const result = await cannon(`${request.method} ${url}${at}`, {
    url: `${url}${at}`,
    method: request.method,
    headers: headersOf(request),
    ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
    connections: settings.connections,
    ...options,
  });
  const after = cpuMs(target.child);
  const answered = result.requests.total;
  const cpuUs = before === undefined || after === undefined || answered === 0 ? undefined : ((after - before) * 1000) / answered;
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, ...(cpuUs === undefined ? {} : { cpuUs }) };
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(status.match(/VmRSS:\s+(\d+)/)![1]) / 1024;
}

let workDir = '';
let seedFile = '';

/**
 * The parts of `chosen.parts` this file runs: `throughput`, `startup`, `memory`, and `prism` (the Prism mock beside
 * them in the throughput part).
 */
export async function throughput(chosen: BenchSettings): Promise<void> {
  settings = chosen;
  REQUESTS = chosenRequests(chosen);
  const { parts } = chosen;
  if (settings.server === 'dist' && !existsSync(path.join(root, 'dist/server/main.js'))) {
    throw new Error('dist/server/main.js is missing: run `npm run build:server`');
  }
  workDir = temporaryDirectory('docs-bench-');
  seedFile = path.join(workDir, 'seed.json');
  writeFileSync(seedFile, JSON.stringify(fixture));
  if (parts.includes('throughput')) await requestRates(parts.includes('prism'));
  if (parts.includes('guard')) await guardRates();
  if (parts.includes('startup')) await startup(path.join(workDir, 'startup'));
  if (parts.includes('memory')) await memory(path.join(workDir, 'memory'));
  if (parts.includes('store')) await storeComparison(path.join(workDir, 'store'));
  if (parts.includes('mechanisms')) await mechanisms(path.join(workDir, 'mechanisms'));
  removeTemporary(workDir);
}

/**
 * The mechanisms part: what each speed mechanism that reaches past a documented surface buys (SPEEDUPS_OFF,
 * server/common/config.ts), on the Node this bench runs on. The server with all of them on, then one server for each with
 * that one off, measured interleaved (each in turn first); per request, the server's CPU per request with the
 * mechanism off against all on: the share of the CPU the mechanism saves.
 */
async function mechanisms(dataDir: string): Promise<void> {
  const targets: Target[] = [];
  try {
    targets.push(await startReference('all on', `${dataDir}-on`));
    for (const mechanism of SPEEDUPS) targets.push(await startReference(mechanism, `${dataDir}-${mechanism}`, { SPEEDUPS_OFF: mechanism }));
    const results = await measuredInTurn(targets, load);
    console.log(
      `\nmechanisms: ${settings.connections} connections, ${settings.runs} interleaved runs of ${settings.seconds} s each (median shown), node ${process.version}; ` +
        'server CPU per request in µs, and (for each mechanism off) the share of the CPU the mechanism saves',
    );
    console.log(`${'request'.padEnd(30)}${targets.map((target) => target.name.padStart(24)).join('')}`);
    for (const request of REQUESTS) {
      const cpu = targets.map((target) => medians(results.get(`${request.name}\n${target.name}`)!).cpuUs);
      const on = cpu[0];
      const cells = cpu.map((us, index) => {
        if (us === undefined || on === undefined) return 'n/a'.padStart(24);
        return (index === 0 ? `${Math.round(us)}` : `${Math.round(us)} (${(((us - on) / us) * 100).toFixed(0)}%)`).padStart(24);
      });
      console.log(`${request.name.padEnd(30)}${cells.join('')}`);
    }
  } finally {
    await Promise.all(targets.map((target) => stop(target.child)));
  }
}

/**
 * Every target warmed on every request (the JIT, the validator's compiled schemas: BENCH_WARMUP requests of each), then measured BENCH_RUNS times on
 * each request, each target in turn going first: a target measured right after another carries what that one left
 * behind (the cores' caches, a mock's processes still winding down), so a fixed order would always handicap the same
 * one. The runs of each, by `request name\ntarget name`. `measure` loads one target (`load` for a server,
 * `loadGroup` for the store part's groups of servers sharing the connections).
 */
async function measuredInTurn<T extends { name: string }>(
  targets: T[],
  measure: (target: T, request: BenchRequest, options: { duration?: number; amount?: number }) => Promise<Measure>,
  requests: BenchRequest[] = REQUESTS,
): Promise<Map<string, Measure[]>> {
  for (const request of requests) for (const target of targets) await measure(target, request, { amount: settings.warmup });
  const results = new Map<string, Measure[]>();
  for (let run = 0; run < settings.runs; run++) {
    for (const [index, request] of requests.entries()) {
      for (const target of rotated(targets, run + index)) {
        const key = `${request.name}\n${target.name}`;
        results.set(key, [...(results.get(key) ?? []), await measure(target, request, { duration: settings.seconds })]);
      }
    }
  }
  return results;
}

/** A request and its medians, one per target (validation on, off, bare node:http, bare Express, then Prism if it ran). */
interface Row {
  request: BenchRequest;
  measures: Measure[];
  /** CPU of making the answer's JSON text alone, in µs (see jsonTextUs). */
  jsonUs: number;
}

/**
 * The CPU this process spends on `JSON.stringify` of the answer's body (parsed from the bytes recorded), in µs: a
 * floor under any server of this Node that makes its answers from objects, whatever else it does. Median of 5 slices
 * of 50 ms after a warm-up.
 */
function jsonTextUs(body: string): number {
  const value: unknown = JSON.parse(body);
  for (let index = 0; index < 200; index++) JSON.stringify(value);
  const slices: number[] = [];
  for (let slice = 0; slice < 5; slice++) {
    const start = process.cpuUsage();
    const until = performance.now() + 50;
    let count = 0;
    while (performance.now() < until) {
      JSON.stringify(value);
      count++;
    }
    const used = process.cpuUsage(start);
    slices.push((used.user + used.system) / count);
  }
  return median(slices);
}

async function requestRates(withPrism: boolean): Promise<void> {
  const targets: Target[] = [];
  try {
    const on = await startReference('validation on', path.join(workDir, 'on'));
    targets.push(on);
    targets.push(await startReference('validation off', path.join(workDir, 'off'), { VALIDATE_RESPONSES: 'false' }));
    const recorded = await record(on);
    const jsonUs = new Map([...recorded.bodies].map(([request, body]) => [request, jsonTextUs(body)]));
    const bare = await startBare(recorded);
    targets.push(bare);
    targets.push(await startBare(recorded, 'express'));
    const prism = withPrism ? await startPrism() : undefined;
    if (prism) targets.push(prism);
    // Another build's server, as `npm start` runs it, validation on: what this build is compared with (bench:guard).
    const baseline = settings.baseline ? await startReference('baseline', path.join(workDir, 'baseline'), {}, path.resolve(settings.baseline)) : undefined;
    if (baseline) targets.push(baseline);

    const results = await measuredInTurn(targets, load);

    console.log(
      `throughput: ${settings.connections} connections, ${settings.runs} interleaved runs of ${settings.seconds} s each (median shown), ` +
        `node ${process.version}`,
    );
    const columns = targets.map((target) => target.name);
    console.log(
      `${'request'.padEnd(30)}${columns.map((c) => `${c} req/s (p50/p99 ms)`.padStart(36)).join('')}  on/bare  off/bare  on/off  express/bare${prism ? '  on/Prism' : ''}`,
    );
    // Each request's medians over the runs, one per target in the targets' order.
    const rows: Row[] = REQUESTS.map((request) => ({
      request,
      jsonUs: jsonUs.get(request)!,
      measures: targets.map((target) => medians(results.get(`${request.name}\n${target.name}`)!)),
    }));
    for (const { request, measures } of rows) {
      const [on, off, bare, framework] = measures as [Measure, Measure, Measure, Measure];
      const mock = prism ? measures[targets.indexOf(prism)] : undefined;
      console.log(
        `${request.name.padEnd(30)}${measures
          .map((m) => `${Math.round(m.rps)} (${m.p50}/${m.p99})`.padStart(36))
          .join('')}${(on.rps / bare.rps).toFixed(3).padStart(9)}${(off.rps / bare.rps).toFixed(3).padStart(10)}${(on.rps / off.rps).toFixed(2).padStart(8)}${(framework.rps / bare.rps).toFixed(3).padStart(14)}${mock ? (on.rps / mock.rps).toFixed(1).padStart(10) : ''}`,
      );
    }
    cpuPerRequest(targets, rows, prism);
    const runsOf = (request: BenchRequest, target: Target) => results.get(`${request.name}\n${target.name}`)!;
    if (settings.runs > 1) spreadOverRuns(runsOf, targets);
    if (baseline) {
      const moved = againstBaseline({ requests: REQUESTS, runs: settings.runs, baseline: settings.baseline! }, runsOf, on, baseline, targets[3]!);
      if (moved.length > 0) process.exitCode = 1;
    }
    await listMadeAnew(on, bare);
  } finally {
    for (const target of targets) await stop(target.child);
  }
}

/**
 * How far the two ratios the goals name move from run to run: each run's on/bare and on/off, paired within the run
 * (the targets of a run are measured one after the other, so they share that moment's machine). A median near a
 * goal's line with a wide spread says "measure again", not "met" or "not met".
 */
function spreadOverRuns(runsOf: (request: BenchRequest, target: Target) => Measure[], targets: Target[]): void {
  const [on, off, bare] = targets as [Target, Target, Target];
  const range = (ratios: number[], digits: number) =>
    `${Math.min(...ratios).toFixed(digits)}–${Math.max(...ratios).toFixed(digits)}`;
  console.log(`spread over the ${settings.runs} runs (each run's own ratio, lowest–highest):`);
  console.log(`${'request'.padEnd(30)}${'on/bare'.padStart(14)}${'on/off'.padStart(12)}`);
  for (const request of REQUESTS) {
    const [ons, offs, bares] = [on, off, bare].map((target) => runsOf(request, target).map((m) => m.rps)) as [number[], number[], number[]];
    const ofBare = ons.map((rps, run) => rps / bares[run]!);
    const ofOff = ons.map((rps, run) => rps / offs[run]!);
    console.log(`${request.name.padEnd(30)}${range(ofBare, 3).padStart(14)}${range(ofOff, 2).padStart(12)}`);
  }
}

/**
 * The guard part (`npm run bench:guard`, bench/guard.ts): this build's server and BENCH_BASELINE's, both as `npm start`
 * runs them (validation on), interleaved, then `againstBaseline`: on SQLite, with Express answering the same bytes, on
 * the guard's SQLite requests; then on PostgreSQL (one server the bench starts, a database for each build), with this
 * build on SQLite beside them, on the guard's PostgreSQL requests, and each write's server CPU PostgreSQL/SQLite
 * (`postgresAgainstSqlite`). Exits 1 when a request is slower than the baseline in every run, on either engine.
 */
async function guardRates(): Promise<void> {
  if (!settings.baseline) throw new Error('the guard part compares with another build: set BENCH_BASELINE');
  const baselineDir = path.resolve(settings.baseline);
  const guarded = guardedRequests(settings.requests);
  const judged = guarded.sqlite.length + guarded.postgres.length;
  const context = { runs: settings.runs, baseline: settings.baseline, judged };
  const targets: Target[] = [];
  try {
    const on = await startReference('this build', path.join(workDir, 'on'));
    targets.push(on);
    if (guarded.sqlite.length > 0) {
      targets.push(await startReference('baseline', path.join(workDir, 'baseline'), {}, baselineDir));
      targets.push(await startBare(await record(on, guarded.sqlite), 'express'));
      const [, baseline, express] = targets as [Target, Target, Target];
      const results = await measuredInTurn([on, baseline, express], load, guarded.sqlite);
      const runsOf = (request: BenchRequest, target: Target) => results.get(`${request.name}\n${target.name}`)!;
      const moved = againstBaseline({ ...context, requests: guarded.sqlite, engine: 'SQLite' }, runsOf, on, baseline, express);
      if (moved.length > 0) process.exitCode = 1;
    }
    if (guarded.postgres.length > 0) {
      await withSeededPostgres('docs-bench-guard-', async ({ postgres, admin }) => {
        for (const name of ['guard_this', 'guard_baseline']) await admin.query(`CREATE DATABASE ${name}`);
        const onPostgres = await startReference('this build (PostgreSQL)', path.join(workDir, 'on-pg'), { DATABASE_URL: postgres.url('guard_this') });
        targets.push(onPostgres);
        const baseline = await startReference('baseline (PostgreSQL)', path.join(workDir, 'baseline-pg'), { DATABASE_URL: postgres.url('guard_baseline') }, baselineDir);
        targets.push(baseline);
        const results = await measuredInTurn([onPostgres, baseline, on], load, guarded.postgres);
        const runsOf = (request: BenchRequest, target: Target) => results.get(`${request.name}\n${target.name}`)!;
        const moved = againstBaseline({ ...context, requests: guarded.postgres, engine: 'PostgreSQL' }, runsOf, onPostgres, baseline);
        if (moved.length > 0) process.exitCode = 1;
        postgresAgainstSqlite(guarded.postgres, settings.runs, runsOf, onPostgres, on);
      });
    }
  } finally {
    for (const target of targets) await stop(target.child);
  }
}

/**
 * The list page as it costs when it is made on every read: the server keeps a page read again while nothing was
 * written (server/http/list-page-cache.ts), so the table's list page is mostly sent from memory; after a write, or with
 * LIST_CACHE_MB=0 as here, it is made anew. Interleaved with the server as started above and bare node:http.
 */
async function listMadeAnew(on: Target, bare: Target): Promise<void> {
  const request = ALL_REQUESTS.find((candidate) => candidate.path.includes('/spaces?limit='))!;
  const anew = await startReference('made on every read', path.join(workDir, 'anew'), { LIST_CACHE_MB: '0' });
  try {
    await load(anew, request, { amount: 500 });
    const runs = new Map<Target, Measure[]>();
    for (let run = 0; run < settings.runs; run++) {
      for (const target of rotated([on, anew, bare], run)) {
        runs.set(target, [...(runs.get(target) ?? []), await load(target, request, { duration: settings.seconds })]);
      }
    }
    const [kept, made, base] = [on, anew, bare].map((target) => medians(runs.get(target)!)) as [Measure, Measure, Measure];
    const ofBare = (measure: Measure) =>
      `${Math.round(measure.rps)} req/s, ${(measure.rps / base.rps).toFixed(3)} of bare` +
      (measure.cpuUs === undefined || base.cpuUs === undefined
        ? ''
        : `, ${(base.cpuUs / measure.cpuUs).toFixed(3)} by CPU (${Math.round(measure.cpuUs)} µs)`);
    console.log(`${request.name}: kept ${ofBare(kept)}; made on every read (LIST_CACHE_MB=0) ${ofBare(made)}`);
  } finally {
    await stop(anew.child);
  }
}

/**
 * The CPU time each target spent per request, from the same runs. autocannon shares the cores with the target it
 * loads, so a fast target's req/s is held down by autocannon's own CPU; its CPU per request is not. bare/on is bare
 * node:http's CPU per request over the server's: the "fraction of bare" of on/bare, by CPU.
 */
function cpuPerRequest(targets: Target[], rows: Row[], prism: Target | undefined): void {
  const withPrism = prism !== undefined;
  if (rows.some(({ measures }) => measures.some((m) => m.cpuUs === undefined))) {
    console.log('CPU per request: not measured (it reads /proc, which this system does not have)');
    return;
  }
  console.log('CPU per request, µs (user and system time of the target\'s processes over the requests it answered):');
  console.log(
    `${'request'.padEnd(30)}${targets.map((target) => target.name.padStart(18)).join('')}  bare/on  bare/off  bare/Express${withPrism ? '  Prism/on' : ''}  JSON text  0.35 of bare`,
  );
  for (const { request, measures, jsonUs } of rows) {
    const [on, off, bare, framework] = measures.map((m) => m.cpuUs!) as [number, number, number, number];
    const mock = prism ? measures[targets.indexOf(prism)]!.cpuUs : undefined;
    console.log(
      `${request.name.padEnd(30)}${measures.map((m) => Math.round(m.cpuUs!).toString().padStart(18)).join('')}` +
        `${(bare / on).toFixed(3).padStart(9)}${(bare / off).toFixed(3).padStart(10)}${(bare / framework).toFixed(3).padStart(14)}` +
        `${mock === undefined ? '' : (mock / on).toFixed(1).padStart(10)}` +
        `${Math.round(jsonUs).toString().padStart(11)}${Math.round(bare / 0.35).toString().padStart(14)}`,
    );
  }
  console.log(
    'JSON text: the CPU this process spends on JSON.stringify of the answer alone; 0.35 of bare: the CPU per request ' +
      'the server may spend to answer at 0.35 of bare node:http, by CPU.',
  );
}

/** Time from spawning `npm start` to its first answer, on the existing database of the run above. */
async function startup(dataDir: string): Promise<void> {
  await stop((await startReference('first start', dataDir)).child);
  const times: number[] = [];
  for (let run = 0; run < 5; run++) {
    const port = await freePort();
    const spawnedAt = process.hrtime.bigint();
    const child = started(
      spawn('npm', ['start', '--silent'], {
        cwd: root,
        env: { ...process.env, PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'warn', DOCS_API_TOKEN: 'bench-demo-token' },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      }),
      true,
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk));
    await answered(`http://127.0.0.1:${port}/v1/orgs`, child, () => output);
    times.push(Number(process.hrtime.bigint() - spawnedAt) / 1e6);
    await stop(child);
  }
  console.log(`start-up: first answer ${Math.round(median(times))} ms after \`npm start\` on an existing database (median of 5)`);
}

/**
 * RSS of the server (validation on) over 100 000 requests cycling through the benchmark's requests, read after each
 * tenth of them. RSS moves with the size of V8's old generation between its full collections (the live
 * heap does not move), so one reading proves little: the readings of each half are shown, with their medians. Then
 * the same with large spaces beside them (see largeSpacesRun).
 */
async function memory(dataDir: string): Promise<void> {
  await memoryRun('memory (validation on)', dataDir, MAIN_REQUESTS);
  const large = largeSpacesRun();
  // Seeded by a start of its own: what is measured is a server started on the existing database.
  await stop((await startReference('seeding', `${dataDir}-large`, { SEED_FILE: large.seedFile })).child);
  await memoryRun(`memory with large spaces (${large.label})`, `${dataDir}-large`, large.requests, large.seedFile);
}

/**
 * The benchmark's data with two more spaces, of BENCH_MEMORY_PAGES (4 900) and a fifth of that (groups of 49 pages
 * of about 2 KB, each linking to the next), and what reads them: their content and page tree, a page, a page of their
 * links and of their comments, a comment posted. Such a space's content is kept parsed, and its answers kept, as far as
 * CONTENT_CACHE_MB allows: this run shows what that costs in RSS, beside the benchmark's own requests.
 */
function largeSpacesRun(): { label: string; seedFile: string; requests: BenchRequest[] } {
  const text = pageText();
  const sizes = [settings.memoryPages, Math.round(settings.memoryPages / 5)];
  const spaces = sizes.map((size, index) => {
    const { groups, perGroup } = groupedPages(size, (g, i) => ({
      id: `p${g}-${i}`,
      title: `Page ${g}-${i}`,
      markdown: `# Page ${g}-${i}\n\nGo on to [the next page](page-${g}-${i + 1}).\n\n${text}`,
    }));
    return {
      id: `large-${index}`,
      title: `${size} pages`,
      pages: groups.map(({ g, pages }) => ({ id: `g${g}`, title: `Group ${g}`, pages })),
      // A page in the middle of the space.
      middle: `p${Math.floor(groups.length / 2)}-${Math.floor(perGroup / 2)}`,
    };
  });
  const seeded = structuredClone(fixture);
  seeded.organizations[0]!.spaces.push(...(spaces.map(({ middle: _, ...space }) => space) as never[]));
  const file = path.join(workDir, 'seed-large.json');
  writeFileSync(file, JSON.stringify(seeded));
  const reads = spaces.flatMap((space): BenchRequest[] => {
    const at = `/v1/spaces/${space.id}`;
    return [
      { name: 'content', method: 'GET', path: `${at}/content` },
      { name: 'page tree', method: 'GET', path: `${at}/content/pages` },
      { name: 'a page', method: 'GET', path: `${at}/content/page/${space.middle}` },
      { name: 'links', method: 'GET', path: `${at}/links?limit=50` },
      { name: 'comments', method: 'GET', path: `${at}/comments?limit=50` },
      { name: 'a comment', method: 'POST', path: `${at}/comments`, body: { page: space.middle, body: { markdown: 'A comment.' } } },
    ];
  });
  return { label: `${sizes.join(' and ')} pages of 2 KB`, seedFile: file, requests: [...MAIN_REQUESTS, ...reads] };
}

async function memoryRun(label: string, dataDir: string, requests: BenchRequest[], seed?: string): Promise<void> {
  const target = await startReference('memory', dataDir, seed ? { SEED_FILE: seed } : {});
  try {
    const pid = target.child.pid!;
    const parts = 10;
    const rss = [rssMb(pid)];
    for (let part = 0; part < parts; part++) {
      await cannon(label, {
        url: target.url,
        connections: settings.connections,
        amount: Math.round(settings.memoryRequests / parts),
        requests: requests.map((request) => ({
          method: request.method,
          path: request.path,
          headers: headersOf(request),
          ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
        })),
      });
      rss.push(rssMb(pid));
    }
    const half = (from: number) => rss.slice(from, from + parts / 2);
    const show = (values: number[]) => `${values.map((mb) => mb.toFixed(0)).join(' ')} (median ${median(values).toFixed(0)})`;
    console.log(
      `${label}: RSS ${rss[0]!.toFixed(0)} MB after start-up; after each ${Math.round(settings.memoryRequests / parts)} requests, ` +
        `first half ${show(half(1))}, second half ${show(half(1 + parts / 2))}; ${rss.at(-1)!.toFixed(0)} MB after ${settings.memoryRequests}`,
    );
  } finally {
    await stop(target.child);
  }
}

/** Servers measured together in the store part: one, or several sharing the load (two instances on one database). */
interface Group {
  name: string;
  members: Target[];
}

/** `request` on every member of `group` at once, the connections shared among them: rates summed, the worst p99. */
async function loadGroup(group: Group, request: BenchRequest, options: { duration?: number; amount?: number }): Promise<Measure> {
  const connections = Math.max(1, Math.round(settings.connections / group.members.length));
  const runs = await Promise.all(
    group.members.map((member) =>
      loadWith(member, request, {
        ...options,
        connections,
        ...(options.amount === undefined ? {} : { amount: Math.round(options.amount / group.members.length) }),
      }),
    ),
  );
  const cpu = runs.map((run) => run.cpuUs);
  return {
    rps: runs.reduce((sum, run) => sum + run.rps, 0),
    p50: Math.max(...runs.map((run) => run.p50)),
    p99: Math.max(...runs.map((run) => run.p99)),
    ...(cpu.every((us) => us !== undefined) ? { cpuUs: cpu.reduce((sum, us) => sum + us!, 0) / runs.length } : {}),
  };
}

/** `load` with its own autocannon options (the store part's groups share the connections). */
async function loadWith(target: Target, request: BenchRequest, options: autocannon.Options | { duration?: number; amount?: number; connections: number }): Promise<Measure> {
  const at = await pathOn(target, request);
  const before = cpuMs(target.child);
  const result = await cannon(`${request.method} ${target.url}${at}`, {
    url: `${target.url}${at}`,
    method: request.method,
    headers: headersOf(request),
    ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
    ...options,
  } as autocannon.Options);
  const after = cpuMs(target.child);
  const answered = result.requests.total;
  const cpuUs = before === undefined || after === undefined || answered === 0 ? undefined : ((after - before) * 1000) / answered;
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, ...(cpuUs === undefined ? {} : { cpuUs }) };
}

/** CPU time of a PostgreSQL server's processes (the postmaster and every backend it started), in ms, from /proc. */
function postgresCpuMs(server: PostgresServer): number {
  const postmaster = Number(readFileSync(path.join(server.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  let ticks = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(entry) === postmaster || Number(fields[1]) === postmaster) ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // The process ended meanwhile.
    }
  }
  return (ticks * 1000) / TICKS_PER_SECOND;
}

/** What the database did for `count` requests of one kind: statements (pg_stat_statements), transactions, CPU. */
async function databaseWork(
  server: PostgresServer,
  database: string,
  run: () => Promise<number>,
): Promise<{ statements: number; transactions: number; cpuUs: number; texts: { query: string; calls: number; meanUs: number }[] }> {
  const client = new pg.Client({ connectionString: server.url(database) });
  await client.connect();
  try {
    const counts = async () => {
      const { rows } = await client.query<{ statements: string; transactions: string }>(
        `SELECT (SELECT sum(calls) FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())) AS statements,
                (SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database()) AS transactions`,
      );
      return { statements: Number(rows[0]!.statements), transactions: Number(rows[0]!.transactions) };
    };
    // Statistics reach the views when a backend reports them: the counts are read after a pause, twice each side.
    await client.query('SELECT pg_stat_clear_snapshot()');
    await client.query('SELECT pg_stat_statements_reset()');
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const before = await counts();
    const cpuBefore = postgresCpuMs(server);
    const requests = await run();
    const cpuAfter = postgresCpuMs(server);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await client.query('SELECT pg_stat_clear_snapshot()');
    const after = await counts();
    // Each statement the requests sent, most called first: how many per request, and PostgreSQL's time for each.
    const { rows: texts } = await client.query<{ query: string; calls: string; mean: number }>(
      `SELECT query, calls, mean_exec_time AS mean FROM pg_stat_statements
        WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND query NOT LIKE '%pg_stat%'
        ORDER BY calls DESC LIMIT 12`,
    );
    // This client's own two statements and transactions of the second reading are not the server's.
    return {
      statements: (after.statements - before.statements - 3) / requests,
      transactions: (after.transactions - before.transactions - 3) / requests,
      cpuUs: ((cpuAfter - cpuBefore) * 1000) / requests,
      texts: texts.map((row) => ({ query: row.query, calls: Number(row.calls) / requests, meanUs: row.mean * 1000 })),
    };
  } finally {
    await client.end();
  }
}

/**
 * The store part: the same requests on the SQLite store and on the PostgreSQL store (one instance, then two sharing
 * the load on one database), and on BENCH_BASELINE's server when given (on SQLite, and on PostgreSQL with a database of
 * its own on the same PostgreSQL server), interleaved in one run. PostgreSQL is
 * started by the bench from Debian's binaries (as the tests start theirs), durable (fsync on), its commits not
 * waiting for the disk as SQLite's `synchronous = NORMAL`. Then what each request costs the database, which is what a
 * larger machine needs to give it: statements and transactions per request (round trips are the statements, less
 * one per write, whose COMMIT and lock release travel together), and the database's CPU per request.
 */
async function storeComparison(dataDir: string): Promise<void> {
  const groups: Group[] = [];
  const children: ChildProcess[] = [];
  let postgres: PostgresServer | undefined;
  const single = (target: Target): Group => {
    children.push(target.child);
    return { name: target.name, members: [target] };
  };
  try {
    if (settings.baseline) groups.push(single(await startReference('baseline (SQLite)', `${dataDir}-baseline`, {}, path.resolve(settings.baseline))));
    const sqlite = single(await startReference('SQLite', `${dataDir}-sqlite`));
    let baselinePostgres: Group | undefined;
    groups.push(sqlite);
    postgres = startPostgres({ port: await freePort(), durable: true, settings: ['shared_preload_libraries=pg_stat_statements', 'pg_stat_statements.track_utility=on'] });
    const admin = new pg.Client({ connectionString: postgres.url('postgres') });
    await admin.connect();
    await admin.query('CREATE DATABASE bench');
    await admin.end();
    const setup = new pg.Client({ connectionString: postgres.url('bench') });
    await setup.connect();
    await setup.query('CREATE EXTENSION pg_stat_statements');
    await setup.end();
    if (settings.baseline) {
      const baselineAdmin = new pg.Client({ connectionString: postgres.url('postgres') });
      await baselineAdmin.connect();
      await baselineAdmin.query('CREATE DATABASE bench_baseline');
      await baselineAdmin.end();
      const baselineEnv = { DATABASE_URL: postgres.url('bench_baseline') };
      baselinePostgres = single(await startReference('baseline (PostgreSQL)', `${dataDir}-baseline-pg`, baselineEnv, path.resolve(settings.baseline)));
      groups.push(baselinePostgres);
    }
    const env = { DATABASE_URL: postgres.url('bench') };
    const first = await startReference('PostgreSQL', `${dataDir}-pg1`, env);
    const one = single(first);
    groups.push(one);
    const second = await startReference('PostgreSQL (second instance)', `${dataDir}-pg2`, env);
    children.push(second.child);
    const two: Group = { name: 'PostgreSQL, 2 instances', members: [first, second] };
    groups.push(two);

    const results = await measuredInTurn(groups, loadGroup);
    console.log(`\nstore: ${settings.connections} connections, ${settings.runs} interleaved runs of ${settings.seconds} s each (median shown), PostgreSQL ${await postgresVersion(postgres)}`);
    console.log(`${'request'.padEnd(30)}${groups.map((group) => `${group.name} req/s (p50/p99 ms)`.padStart(40)).join('')}${settings.baseline ? '  SQLite/baseline  PG/baseline' : ''}  PG/SQLite  PG×2/PG`);
    for (const request of REQUESTS) {
      const measures = groups.map((group) => medians(results.get(`${request.name}\n${group.name}`)!));
      const of = (group: Group) => measures[groups.indexOf(group)]!;
      console.log(
        `${request.name.padEnd(30)}${measures.map((m) => `${Math.round(m.rps)} (${m.p50}/${m.p99})`.padStart(40)).join('')}` +
          `${settings.baseline ? (of(sqlite).rps / measures[0]!.rps).toFixed(3).padStart(17) + (of(one).rps / of(baselinePostgres!).rps).toFixed(3).padStart(13) : ''}` +
          `${(of(one).rps / of(sqlite).rps).toFixed(3).padStart(11)}${(of(two).rps / of(one).rps).toFixed(2).padStart(9)}`,
      );
    }
    console.log(`server CPU per request, µs: ${groups.map((group) => group.name).join(' / ')}`);
    for (const request of REQUESTS) {
      const cpu = groups.map((group) => medians(results.get(`${request.name}\n${group.name}`)!).cpuUs);
      console.log(`${request.name.padEnd(30)}${cpu.map((us) => (us === undefined ? '-' : us.toFixed(0)).padStart(12)).join('')}`);
    }
    ratiosOverRuns(results, REQUESTS, sqlite, one, baselinePostgres);
    const readsSqliteUs = REQUESTS.filter((request) => request.method === 'GET')
      .map((request) => medians(results.get(`${request.name}\n${sqlite.name}`)!).cpuUs)
      .filter((us) => us !== undefined);
    if (readsSqliteUs.length > 0) {
      printFloor(await roundTripFloor(postgres, { targetUs: median(readsSqliteUs), runs: settings.runs, seconds: settings.seconds, connections: settings.connections }));
    }

    console.log('\nPostgreSQL, per request (one instance, 2 000 requests of each kind): statements, transactions, database CPU µs');
    for (const request of REQUESTS) {
      const work = await databaseWork(postgres, 'bench', async () => {
        await loadGroup(one, request, { amount: 2000 });
        return 2000;
      });
      console.log(`${request.name.padEnd(30)}${work.statements.toFixed(1).padStart(12)}${work.transactions.toFixed(1).padStart(14)}${work.cpuUs.toFixed(0).padStart(10)}`);
      for (const statement of work.texts) {
        console.log(`${''.padEnd(4)}${statement.calls.toFixed(2).padStart(6)} × ${statement.meanUs.toFixed(0).padStart(5)} µs  ${statement.query.replace(/\s+/g, ' ').slice(0, 110)}`);
      }
    }
    await roundTrips(postgres);
  } finally {
    for (const child of children) await stop(child);
    postgres?.stop();
  }
}

async function postgresVersion(server: PostgresServer): Promise<string> {
  const client = new pg.Client({ connectionString: server.url('postgres') });
  await client.connect();
  try {
    return (await client.query<{ server_version: string }>('SHOW server_version')).rows[0]!.server_version;
  } finally {
    await client.end();
  }
}
