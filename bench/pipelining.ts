// Connections that pipeline and never read (server/docs/limits.md, "Requests pipelined on one connection"):
// `connections` connections each write `requests` pipelined GETs of a list in one go and read nothing, while a
// well-behaved client asks on a connection of its own, one request after the other, from a thread of its own. Reports
// RSS and its growth per connection, and the well-behaved client's latency during the load and back to usual after it
// (the `bounds` part's table, bench/bounds.ts); the `pipelining` part: that latency, this build against BENCH_BASELINE's.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createConnection, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import autocannon from 'autocannon';
import pg from 'pg';
import { startNodeOptions } from '../scripts/build-server.ts';
import { startPostgres, type PostgresServer } from '../scripts/postgres-server.ts';
import { removeTemporary, stop, temporaryDirectory } from './cleanup.ts';
import { BENCH_TOKEN, fixture } from './fixture.ts';
import { answered, freePort, median, serverCommand, spawnServer } from './measure.ts';
import type { BenchSettings } from './settings.ts';

export interface PipelineFigures {
  baseMb: number;
  peakMb: number;
  afterMb: number;
  /** (peak - base) / connections, in kB. */
  perConnectionKb: number;
  /** The well-behaved client's usual answer (median before the load), in ms. */
  usualMs: number;
  /** Its slowest answer during the load and the 99th percentile of its answers then, in ms. */
  slowestMs: number;
  p99Ms: number;
  /** Its slowest answer in the AFTER_MS after the attackers closed, in ms. */
  slowestAfterMs: number;
  /**
   * How long after the attackers closed the server answered at its usual speed again, in ms: the end of the last
   * second after the close (counted from it, the answers by when they were asked) whose median answer was slower than
   * twice the usual one; 0 when none was. On a shared machine single answers are slow at times whatever the server
   * does: a second's median is what the server's speed sets.
   */
  backMs: number;
  /** The well-behaved client's requests left unanswered. */
  failures: number;
}

/** How long the well-behaved client is watched once the attackers closed. */
const AFTER_MS = 8000;
/** How long it asks before the load: its usual answers. */
const BEFORE_MS = 3000;

export const rssMb = (pid: number): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

/**
 * The well-behaved client, in a thread of its own so that the attackers' work in this one never delays it: a request
 * every 20 ms on its keep-alive connection until told to stop; it posts 'warm' after its 30th answer, and at the end
 * [ended at (ms since the epoch), ms] of each.
 */
const POLITE = `
const { parentPort, workerData } = require('node:worker_threads');
let asking = true;
parentPort.on('message', () => (asking = false));
(async () => {
  const times = [];
  while (asking) {
    const started = performance.now();
    try {
      // A request the server never answers (its connection never accepted) fails after a minute.
      const answer = await fetch(workerData.url, { headers: workerData.headers, signal: AbortSignal.timeout(60000) });
      await answer.arrayBuffer();
      times.push([Date.now(), performance.now() - started]);
    } catch {
      times.push([Date.now(), Infinity]);
    }
    if (times.length === 30) parentPort.postMessage('warm');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  parentPort.postMessage(times);
})();
`;

const percentile = (values: number[], fraction: number): number => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * fraction))] ?? 0;

/** The load above on the server at `url` (process `pid`), asking for `path`, with `authorization` or without. */
export async function pipelineLoad(
  url: string,
  pid: number,
  options: { path: string; authorization?: string; connections: number; requests: number; holdMs: number },
): Promise<PipelineFigures> {
  const { hostname, port } = new URL(url);
  const headers = options.authorization === undefined ? '' : `Authorization: ${options.authorization}\r\n`;
  const one = `GET ${options.path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\n${headers}\r\n`;
  const burst = Buffer.from(one.repeat(options.requests));

  const worker = new Worker(POLITE, {
    eval: true,
    workerData: { url: `${url}${options.path}`, headers: options.authorization === undefined ? {} : { authorization: options.authorization } },
  });
  const warm = new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  await warm;
  const polite = new Promise<[number, number][]>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  await sleep(BEFORE_MS);
  const baseMb = rssMb(pid);

  const loadStart = Date.now();
  const sockets: Socket[] = [];
  let peakMb = baseMb;
  const sample = setInterval(() => (peakMb = Math.max(peakMb, rssMb(pid))), 50);
  for (let index = 0; index < options.connections; index++) {
    const socket = createConnection({ host: hostname, port: Number(port) });
    socket.on('error', () => undefined);
    socket.pause();
    socket.on('connect', () => socket.write(burst));
    sockets.push(socket);
    if (index % 50 === 49) await sleep(10);
  }
  await sleep(options.holdMs);
  peakMb = Math.max(peakMb, rssMb(pid));
  const closedAt = Date.now();
  for (const socket of sockets) socket.destroy();
  await sleep(AFTER_MS);
  clearInterval(sample);
  const afterMb = rssMb(pid);
  worker.postMessage('stop');
  const times = (await polite).map(([at, ms]) => ({ at, ms }));
  await worker.terminate();

  // An answer counts where it began: a request asked before the load and answered during it was slowed by it. The
  // client's first answers (its connection, its code compiled) are not its usual ones.
  const before = times.slice(30).filter((each) => each.at - each.ms < loadStart).map((each) => each.ms);
  const during = times.filter((each) => each.at - each.ms >= loadStart && each.at - each.ms < closedAt).map((each) => each.ms);
  const after = times.filter((each) => each.at - each.ms >= closedAt);
  const usual = percentile(before, 0.5);
  const seconds = Array.from({ length: AFTER_MS / 1000 }, (_, second) =>
    after.filter((each) => Math.floor((each.at - each.ms - closedAt) / 1000) === second).map((each) => each.ms),
  );
  const slowSeconds = seconds.map((answers, second) => (answers.length === 0 || percentile(answers, 0.5) > 2 * usual ? second : -1));
  return {
    baseMb,
    peakMb,
    afterMb,
    perConnectionKb: ((peakMb - baseMb) * 1024) / options.connections,
    usualMs: usual,
    slowestMs: Math.max(0, ...during),
    p99Ms: percentile(during, 0.99),
    slowestAfterMs: Math.max(0, ...after.map((each) => each.ms)),
    backMs: (Math.max(...slowSeconds) + 1) * 1000,
    failures: times.filter((each) => each.ms === Number.POSITIVE_INFINITY).length,
  };
}

/** The requests each attacking connection writes, and how long they are held open before the bench closes them. */
export const PIPELINE_REQUESTS = 2000;
export const PIPELINE_HOLD_MS = 10_000;
const spaces = `/v1/orgs/${fixture.organizations[0]!.id}/spaces`;

/** Warms a server up: `amount` requests of the list the attackers ask for, with the bench token. */
export function warm(url: string, amount: number, connections: number): Promise<void> {
  return new Promise((resolve, reject) => {
    autocannon({ url: `${url}${spaces}`, connections, amount, headers: { authorization: `Bearer ${BENCH_TOKEN}` } }, (error) => (error ? reject(error) : resolve()));
  });
}

/**
 * What the bounds and pipelining parts start from: a temporary folder `dir` holding the fixture as `seed`, and a
 * PostgreSQL server `postgres` with an `admin` connection; all of it stopped and removed once `work` ends, however it ends.
 */
export async function withSeededPostgres(prefix: string, work: (world: { dir: string; seed: string; postgres: PostgresServer; admin: pg.Client }) => Promise<void>): Promise<void> {
  const dir = temporaryDirectory(prefix);
  let postgres: PostgresServer | undefined;
  try {
    const seed = path.join(dir, 'seed.json');
    writeFileSync(seed, JSON.stringify(fixture));
    postgres = startPostgres({ port: await freePort() });
    const admin = new pg.Client({ connectionString: postgres.url('postgres') });
    await admin.connect();
    try {
      await work({ dir, seed, postgres, admin });
    } finally {
      // Ended before its server stops, whatever `work` did: a client whose server went away fails the process.
      await admin.end().catch(() => undefined);
    }
  } finally {
    postgres?.stop();
    removeTemporary(dir);
  }
}

/**
 * The `pipelining` part: the load above on SQLite and PostgreSQL, without a token and with one, speed mechanisms on,
 * on this build and (BENCH_BASELINE) another, interleaved, BENCH_RUNS runs each on servers of their own, each build
 * first in turn. Prints each run, then per setting the medians and each run's ratio baseline/this.
 */
export async function pipeliningPart(settings: BenchSettings): Promise<void> {
  await withSeededPostgres('docs-bench-pipelining-', async ({ dir, seed, postgres, admin }) => {
    const builds = [{ name: 'this', checkout: undefined as string | undefined }];
    if (settings.baseline !== undefined) builds.push({ name: 'baseline', checkout: path.resolve(settings.baseline) });
    console.log(
      `pipelining: ${settings.pipelineConnections} connections each writing ${PIPELINE_REQUESTS} pipelined GET ${spaces} and reading nothing, held ` +
        `${PIPELINE_HOLD_MS / 1000} s, while a well-behaved client asks on its own connection every 20 ms (from a thread of its own). ` +
        'Its answers in ms: usual (median before), p99 and slowest during the load, slowest in the 8 s after; back: ms from the attackers ' +
        'closing to the end of the last second whose median answer was over twice the usual one; RSS growth per connection in kB. ' +
        `Builds: this${settings.baseline === undefined ? '' : `, baseline (${settings.baseline})`}, interleaved, each first in turn; ${settings.runs} runs`,
    );
    const columns = ['usual', 'p99', 'slowest', 'after', 'back', 'kB/conn', 'failed'];
    console.log(`${'engine'.padEnd(12)}${'token'.padEnd(7)}${'build'.padEnd(10)}${'run'.padEnd(5)}${columns.map((name) => name.padStart(9)).join('')}`);
    let databases = 0;
    for (const engine of ['SQLite', 'PostgreSQL'] as const) {
      for (const token of [false, true]) {
        const figures = new Map<string, PipelineFigures[]>(builds.map((build) => [build.name, []]));
        for (let run = 0; run < settings.runs; run++) {
          for (const build of run % 2 === 0 ? builds : [...builds].reverse()) {
            const name = `pipelining_${databases++}`;
            if (engine === 'PostgreSQL') await admin.query(`CREATE DATABASE ${name}`);
            const port = await freePort();
            const command = build.checkout === undefined ? serverCommand(settings) : [...startNodeOptions(), 'dist/server/main.js'];
            const { child, output } = spawnServer(
              command,
              {
                PORT: String(port),
                LOG_LEVEL: 'silent',
                MAX_CONNECTIONS: String(settings.pipelineConnections + 100),
                DATA_DIR: path.join(dir, name),
                SEED_FILE: seed,
                ...(engine === 'PostgreSQL' ? { DATABASE_URL: postgres.url(name) } : {}),
              },
              build.checkout,
              build.checkout === undefined ? process.execPath : (settings.baselineNode ?? process.execPath),
            );
            const url = `http://127.0.0.1:${port}`;
            try {
              await answered(`${url}/v1/orgs`, child, output);
              await warm(url, 2000, settings.connections);
              const measured = await pipelineLoad(url, child.pid!, {
                path: spaces,
                ...(token ? { authorization: `Bearer ${BENCH_TOKEN}` } : {}),
                connections: settings.pipelineConnections,
                requests: PIPELINE_REQUESTS,
                holdMs: PIPELINE_HOLD_MS,
              });
              figures.get(build.name)!.push(measured);
              console.log(`${engine.padEnd(12)}${(token ? 'yes' : 'no').padEnd(7)}${build.name.padEnd(10)}${String(run + 1).padEnd(5)}${row(measured)}`);
            } finally {
              await stop(child);
            }
          }
        }
        for (const build of builds) {
          const runs = figures.get(build.name)!;
          console.log(`${engine.padEnd(12)}${(token ? 'yes' : 'no').padEnd(7)}${build.name.padEnd(10)}${'med'.padEnd(5)}${row(medianFigures(runs))}`);
        }
        if (builds.length === 2) {
          const ratios = (key: 'p99Ms' | 'slowestMs' | 'backMs') =>
            figures.get('this')!.map((mine, run) => (mine[key] === 0 ? `${figures.get('baseline')![run]![key]}/0` : (figures.get('baseline')![run]![key] / mine[key]).toFixed(1))).join(' ');
          console.log(`${' '.repeat(19)}baseline/this, each run: p99 ${ratios('p99Ms')}; slowest ${ratios('slowestMs')}; back ${ratios('backMs')}`);
        }
      }
    }
  });
}

const row = (each: PipelineFigures) =>
  each.usualMs.toFixed(1).padStart(9) +
  [each.p99Ms, each.slowestMs, each.slowestAfterMs, each.backMs, each.perConnectionKb, each.failures].map((value) => value.toFixed(0).padStart(9)).join('');

const medianFigures = (runs: PipelineFigures[]): PipelineFigures => {
  const of = (key: keyof PipelineFigures) => median(runs.map((each) => each[key]));
  return {
    baseMb: of('baseMb'),
    peakMb: of('peakMb'),
    afterMb: of('afterMb'),
    perConnectionKb: of('perConnectionKb'),
    usualMs: of('usualMs'),
    slowestMs: of('slowestMs'),
    p99Ms: of('p99Ms'),
    slowestAfterMs: of('slowestAfterMs'),
    backMs: of('backMs'),
    failures: of('failures'),
  };
};
