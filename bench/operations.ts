// The operations part of `npm run bench`: every operation the server implements, each sent as its example request
// (operation-requests.ts) to a server on SQLite and a server on PostgreSQL holding the examples' world, side by side;
// req/s and the server's CPU per request on each engine, and their ratios, then the spread over all operations, the
// reads and the writes. More: bench/README.md, "Every operation".
import type { ChildProcess } from 'node:child_process';
import { cpSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { createDocsClient } from '../client/index.ts';
import { ManualClock } from '../server/common/clock.ts';
import { readConfig } from '../server/common/config.ts';
import type { OperationExample } from '../server/http/example-answers.ts';
import { startServer } from '../server/start/server.ts';
import { startOutside, type Outside } from '../scripts/example-world/outside.ts';
import { buildWorld, WORLD_PARTS } from '../scripts/example-world/parts.ts';
import { ADMIN_TOKEN, WORLD_START } from '../scripts/example-world/world.ts';
import { startPostgres, type PostgresServer } from '../scripts/postgres-server.ts';
import { removeTemporary, stop, temporaryDirectory } from './cleanup.ts';
import { answered, cpuMs, freePort, median, serverCommand, spawnServer } from './measure.ts';
import { type Floor, floorText, printFloor, roundTripFloor } from './round-trips.ts';
import { benchedExamples, benchSeed, type Change, FRESH, MOST, requestOf, sendAsAdmin, type SentRequest } from './operation-requests.ts';
import type { BenchSettings } from './settings.ts';

/** Where the examples' answers point, as in test/api/examples.test.ts. */
const PUBLIC_URL = 'https://docs.example.com';
/**
 * Requests of each operation's own sent to a new server before it is measured, where its requests are counted (a write
 * acting on fresh records, or adding to a bounded aggregate): its handler's code compiled by the JIT before it counts.
 */
const WARMUP = 200;
/**
 * Requests of a read (its example) and of a write of a space (its example too) that warm a write's new servers first:
 * the paths every request and every write take (HTTP, the validator, the driver, the token, the transaction), compiled
 * by V8's optimizing JIT, whose work a server that has just started spends on the first thousands of requests.
 */
const WARM: { operationId: string; requests: number; change?: Change }[] = [
  { operationId: 'getSpace', requests: 2000 },
  // Its example locks the space, which other writes' examples change: the lock is left out.
  { operationId: 'updateSpace', requests: 1000, change: { body: { editMode: undefined } } },
];
/** Requests that make fresh records, sent at once. */
const MAKERS = 8;
/** Autocannon's connections unless BENCH_CONNECTIONS says otherwise: several clients, as several instances serve. */
export const OPERATION_CONNECTIONS = 8;

/** The examples' world as one server built it: the world's id of each example id, the outside addresses. */
interface World {
  ids: Map<string, string>;
  origins: Map<string, string>;
}

/** A server measured: its engine, its process, and the world it holds. */
interface Engine {
  name: 'SQLite' | 'PostgreSQL';
  url: string;
  child: ChildProcess;
  world: World;
  /** The members of the bench's own organization not removed yet (`FreshMaker.member`). */
  members: string[];
  /** The end of what the server printed (its errors, when a request failed). */
  output(): string;
}

/** One measurement of one operation on one engine. */
interface Measured {
  rps: number;
  cpuUs?: number;
}

/** The environment every server of the part runs with, beside its engine's. */
const serverEnv = { LOG_LEVEL: 'warn', PUBLIC_URL, ALLOW_PRIVATE_NETWORKS: 'true' };

/** Builds the examples' world through the API on a server in this process, on `engine`'s database, and stops it. */
async function worldOn(engine: Record<string, string>, outside: Outside, members: number): Promise<World> {
  const clock = new ManualClock(WORLD_START);
  const running = await startServer(readConfig({ PORT: '0', ...serverEnv, LOG_LEVEL: 'silent', ...engine }), { clock, fixture: benchSeed(members) });
  try {
    const ids = await buildWorld({
      as: (user) => createDocsClient({ baseUrl: running.url, token: user === undefined ? ADMIN_TOKEN : `${user}-token` }),
      clock,
      origins: outside.origins,
      settled: () => running.ctx.jobs.idle(),
    });
    return { ids, origins: outside.origins };
  } finally {
    await running.close();
  }
}

/** Starts the measured server of `name` on the database its world was built in; resolves once it answers. */
async function startEngine(name: Engine['name'], env: Record<string, string>, world: World, members: number, settings: BenchSettings): Promise<Engine> {
  const port = await freePort();
  const { child, output } = spawnServer(serverCommand(settings), { ...serverEnv, ...env, PORT: String(port) });
  const url = `http://127.0.0.1:${port}`;
  await answered(`${url}/v1/orgs`, child, output);
  return { name, url, child, world, members: Array.from({ length: members }, (_, i) => `bench-member-${i}`), output };
}

/** Sends one request as the admin; its status and body. */
const send = (engine: Engine, request: SentRequest) => sendAsAdmin(engine.url, request);

let uniques = 0;

/** `count` requests of `example` on `engine`, each with a fresh record made for it (FRESH), or the example itself. */
async function requestsFor(engine: Engine, example: OperationExample, count: number, examples: Map<string, OperationExample>): Promise<SentRequest[]> {
  const fresh = FRESH[example.operationId];
  if (fresh === undefined) return [requestOf(example, engine.world)];
  const make = {
    async send(operationId: string, change?: Change) {
      const answer = await send(engine, requestOf(examples.get(operationId)!, engine.world, change));
      if (answer.status >= 300) throw new Error(`making a fresh record for ${example.operationId}: ${operationId} answered ${answer.status} ${answer.text.slice(0, 300)}`);
      return answer.text ? (JSON.parse(answer.text) as { id: string }) : undefined;
    },
    unique: (prefix: string) => `${prefix}${++uniques}`,
    member: () => {
      const member = engine.members.shift();
      if (member === undefined) throw new Error('no member of the bench organization is left to remove: raise BENCH_FRESH_MEMBERS');
      return member;
    },
  };
  const requests: SentRequest[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: MAKERS }, async () => {
      while (next < count) {
        const maker = { ...make, made: next++ };
        requests.push(requestOf(example, engine.world, await fresh(maker)));
      }
    }),
  );
  return requests;
}

/** Resolves once `child` has spent under 3 ms of CPU in 200 ms (background work ended), or after 30 s. */
async function settled(child: ChildProcess): Promise<void> {
  const until = performance.now() + 30_000;
  let before = cpuMs(child);
  while (performance.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    const now = cpuMs(child);
    if (before === undefined || now === undefined || now - before < 3) return;
    before = now;
  }
}

/** `requests` sent by autocannon, each once in turn (`amount`) or over and over for `seconds`; what it measured. */
async function load(engine: Engine, label: string, requests: SentRequest[], connections: number, limit: { amount: number } | { duration: number }): Promise<Measured> {
  let next = 0;
  const before = cpuMs(engine.child);
  const began = performance.now();
  // autocannon ends a run at its next sample, each second: the rate is timed here, from the start to the last answer.
  let last = began;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: engine.url,
        connections,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        requests: [
          {
            setupRequest: (request) => {
              // A request autocannon sends beyond `amount` (its connections' last ones) repeats the last.
              const sent = requests[Math.min(next++, requests.length - 1)]!;
              return { ...request, method: sent.method as never, path: sent.path, body: sent.body ?? '' };
            },
          },
        ],
        ...limit,
      },
      (error, outcome) => (error ? reject(error) : resolve(outcome)),
    );
    let answers = 0;
    instance.on('response', () => {
      last = performance.now();
      // Ended as soon as its count is answered, not at autocannon's next sample.
      if ('amount' in limit && ++answers === limit.amount) instance.stop();
    });
  });
  if (result.non2xx > 0 || result.errors > 0) {
    const statuses = Object.entries(result.statusCodeStats ?? {}).map(([status, { count }]) => `${count} × ${status}`).join(', ');
    throw new Error(`${label} on ${engine.name}: ${result.non2xx} answers not 2xx (${statuses}), ${result.errors} errors; the server's last lines: ${engine.output().slice(-600)}`);
  }
  const after = cpuMs(engine.child);
  const answered = result.requests.total;
  return {
    rps: (answered * 1000) / Math.max(1, last - began),
    ...(before === undefined || after === undefined || answered === 0 ? {} : { cpuUs: ((after - before) * 1000) / answered }),
  };
}

/**
 * How a write of `operationId` is measured when its requests are counted (FRESH, or MOST where an aggregate is bounded:
 * its warm-up, the lone first request and the requests autocannon sends past its count included): its warm-up and its
 * count of requests, BENCH_FRESH or fewer. Any other write is sent for BENCH_SECONDS, after as long a warm-up.
 */
function countsOf(operationId: string, settings: BenchSettings, connections: number): { warmup: number; count: number } {
  const most = MOST[operationId];
  if (most === undefined) return { warmup: WARMUP, count: settings.fresh };
  const warmup = Math.min(WARMUP, Math.floor(most / 5));
  return { warmup, count: Math.min(settings.fresh, most - warmup - 1 - connections) };
}

/**
 * Measures `example` on `engine`, a server of the run's own: its fresh records made first (FRESH), then the warm-up
 * (WARM on a write's new servers, then the operation itself), the server settled, and the measurement: a write whose
 * requests are counted sends its count (`countsOf`), any other operation its example for BENCH_SECONDS.
 */
async function measure(engine: Engine, example: OperationExample, examples: Map<string, OperationExample>, settings: BenchSettings): Promise<Measured> {
  const write = example.method !== 'get';
  const connections = operationConnections(settings);
  const counted = write && (FRESH[example.operationId] !== undefined || MOST[example.operationId] !== undefined);
  const counts = counted ? countsOf(example.operationId, settings, connections) : undefined;
  const fresh = FRESH[example.operationId] !== undefined;
  // One request alone first: a refusal is shown with its body (autocannon counts it only). A request autocannon
  // sends past its count (each connection's last) repeats the last: one more for each.
  const requests = await requestsFor(engine, example, fresh ? 1 + counts!.warmup + counts!.count + connections : 1, examples);
  const first = await send(engine, fresh ? requests.shift()! : requests[0]!);
  if (first.status >= 300) throw new Error(`${example.operationId} on ${engine.name} answered ${first.status} ${first.text.slice(0, 300)}`);
  if (write) {
    for (const { operationId, requests: amount, change } of WARM) {
      const warming = examples.get(operationId);
      if (warming !== undefined) await load(engine, operationId, [requestOf(warming, engine.world, change)], connections, { amount });
    }
  }
  if (counts !== undefined) {
    const { warmup } = counts;
    if (warmup > 0) await load(engine, example.operationId, fresh ? requests.splice(0, warmup) : requests, Math.min(connections, warmup), { amount: warmup });
    await settled(engine.child);
    return load(engine, example.operationId, requests, Math.min(connections, counts.count), { amount: counts.count });
  }
  await load(engine, example.operationId, requests, connections, { duration: write ? settings.seconds : Math.min(1, settings.seconds) });
  await settled(engine.child);
  return load(engine, example.operationId, requests, connections, { duration: settings.seconds });
}

/** The part's connections: BENCH_CONNECTIONS when set, OPERATION_CONNECTIONS otherwise. */
const operationConnections = (settings: BenchSettings) => settings.connectionsSet ? settings.connections : OPERATION_CONNECTIONS;

/** A ratio's median and lowest–highest over runs, as `0.42 (0.40–0.45)`. */
const spread = (values: number[]) =>
  values.length === 0 ? '-' : `${median(values).toFixed(2)} (${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)})`;

/** Prints each operation's figures, then the spread over all operations, the reads and the writes; writes them to BENCH_FIGURES. */
function report(examples: OperationExample[], results: Map<string, Measured[][]>, failures: Map<string, string>, settings: BenchSettings, load: LoadAverages, floor: Floor | undefined): void {
  const rows: FigureRow[] = examples.map((example) => {
    const { operationId } = example;
    const row = { operationId, fresh: FRESH[operationId] !== undefined, write: example.method !== 'get' };
    const failed = failures.get(operationId);
    if (failed !== undefined) return { ...row, failed };
    const [sqlite, postgres] = results.get(operationId)!;
    const medianOf = (runs: Measured[], value: (measured: Measured) => number | undefined) => median(runs.map((measured) => value(measured) ?? Number.NaN));
    return {
      ...row,
      rps: [medianOf(sqlite!, (m) => m.rps), medianOf(postgres!, (m) => m.rps)],
      cpuUs: [medianOf(sqlite!, (m) => m.cpuUs), medianOf(postgres!, (m) => m.cpuUs)],
      rpsRatios: sqlite!.map((measured, run) => postgres![run]!.rps / measured.rps),
      cpuRatios: sqlite!.map((measured, run) => postgres![run]!.cpuUs! / measured.cpuUs!).filter(Number.isFinite),
    };
  });
  const heading =
    `every operation's example, ${operationConnections(settings)} connections, ${settings.runs} interleaved runs (${settings.seconds} s each after as long a warm-up, or ` +
    `${settings.fresh} requests of a write acting on fresh records; a write on a copy of the world of its own); medians; ratios PostgreSQL/SQLite of each run's figures, median (lowest–highest)`;
  console.log(`\noperations: ${heading}`);
  console.log(`${'operation'.padEnd(36)}${'SQLite req/s'.padStart(13)}${'PG req/s'.padStart(10)}${'req/s PG/SQLite'.padStart(24)}${'CPU µs SQLite'.padStart(15)}${'PG'.padStart(7)}${'CPU PG/SQLite'.padStart(24)}`);
  for (const row of rows) {
    const name = `${row.operationId}${row.fresh ? '*' : ''}`.padEnd(36);
    if (row.failed !== undefined) {
      console.log(`${name}failed: ${row.failed}`);
      continue;
    }
    console.log(
      `${name}${row.rps![0].toFixed(0).padStart(13)}${row.rps![1].toFixed(0).padStart(10)}${spread(row.rpsRatios!).padStart(24)}` +
        `${row.cpuUs![0].toFixed(0).padStart(15)}${row.cpuUs![1].toFixed(0).padStart(7)}${spread(row.cpuRatios!).padStart(24)}`,
    );
  }
  console.log('* a fresh record for each request (bench/operation-requests.ts, FRESH)');
  console.log(`\nover operations: median (lowest–highest) of each operation's PG/SQLite ratio`);
  for (const group of groupsOf(rows)) {
    console.log(`${group.name.padEnd(8)}${String(group.operations).padStart(4)} operations   req/s PG/SQLite ${spread(group.rps).padEnd(20)}CPU PG/SQLite ${spread(group.cpu)}`);
  }
  if (floor !== undefined) printFloor(floor);
  if (settings.figures !== undefined) {
    writeFileSync(settings.figures, figuresPage(rows, settings, heading, load, floor));
    console.log(`\noperations: the figures are written to ${settings.figures}`);
  }
}

/** One operation's figures (or its failure), as printed and written. */
interface FigureRow {
  operationId: string;
  fresh: boolean;
  write: boolean;
  failed?: string;
  /** Medians over runs: SQLite's, PostgreSQL's. */
  rps?: [number, number];
  cpuUs?: [number, number];
  /** Each run's PostgreSQL/SQLite ratio. */
  rpsRatios?: number[];
  cpuRatios?: number[];
}

/** The spread of the operations' ratios (each the median of its runs'), over all, the reads and the writes. */
function groupsOf(rows: FigureRow[]): { name: string; operations: number; rps: number[]; cpu: number[] }[] {
  return (
    [
      ['all', rows],
      ['reads', rows.filter((row) => !row.write)],
      ['writes', rows.filter((row) => row.write)],
    ] as const
  ).map(([name, members]) => {
    const measured = members.filter((row) => row.failed === undefined);
    return {
      name,
      operations: measured.length,
      rps: measured.map((row) => median(row.rpsRatios!)),
      cpu: measured.filter((row) => row.cpuRatios!.length > 0).map((row) => median(row.cpuRatios!)),
    };
  });
}

/** The machine's load averages (1 minute) when the part started and when it ended. */
type LoadAverages = { start: number; end?: number };

/** The page BENCH_FIGURES names, written whole by each run: the spread over operations, then each operation. */
function figuresPage(rows: FigureRow[], settings: BenchSettings, heading: string, load: LoadAverages, floor: Floor | undefined): string {
  const number = (value: number) => Math.round(value).toLocaleString('en').replaceAll(',', ' ');
  const command = [
    'BENCH_PARTS=operations',
    `BENCH_RUNS=${settings.runs}`,
    `BENCH_SECONDS=${settings.seconds}`,
    `BENCH_FRESH=${settings.fresh}`,
    ...(settings.operations === undefined ? [] : [`BENCH_OPERATIONS=${settings.operations.join(',')}`]),
    `BENCH_FIGURES=${settings.figures}`,
    'npm run bench',
  ].join(' ');
  const lines = [
    '# Every operation on PostgreSQL and on SQLite: the figures',
    '',
    '<!-- Written by the bench (bench/operations.ts, BENCH_FIGURES): edit nothing here, run it again. -->',
    '',
    `\`${command}\`, ${new Date().toISOString().slice(0, 10)}, Node ${process.version.slice(1)}, ${cpus().length} cores, load average ` +
      `${load.start.toFixed(1)} at the start and ${(load.end ?? load.start).toFixed(1)} at the end: ${heading}. What each figure is: ` +
      '[bench/README.md](../bench/README.md#what-each-measures); what they say: [Performance on PostgreSQL](performance-postgres.md).',
    '',
    '| | operations | PG/SQLite req/s, median (lowest–highest) | PG/SQLite server CPU per request, median (lowest–highest) |',
    '|---|---|---|---|',
    ...groupsOf(rows).map((group) => `| ${group.name} | ${group.operations} | ${spread(group.rps)} | ${spread(group.cpu)} |`),
    '',
    ...(floor === undefined
      ? []
      : [
          `The floor of a read, at the reads' median CPU per request on SQLite ([bench/README.md](../bench/README.md#what-each-measures)): ${floorText(floor)}.`,
          '',
        ]),
    '`*`: a fresh record for each request (`bench/operation-requests.ts`, `FRESH`).',
    '',
    '| operation | SQLite req/s | PG req/s | PG/SQLite req/s | CPU µs SQLite / PG | PG/SQLite CPU |',
    '|---|---|---|---|---|---|',
    ...rows.map((row) =>
      row.failed !== undefined
        ? `| \`${row.operationId}\`${row.fresh ? '*' : ''} | failed: ${row.failed.replace(/[|\n]/g, ' ').slice(0, 200)} | | | | |`
        : `| \`${row.operationId}\`${row.fresh ? '*' : ''} | ${number(row.rps![0])} | ${number(row.rps![1])} | ${spread(row.rpsRatios!)} | ` +
          `${number(row.cpuUs![0])} / ${number(row.cpuUs![1])} | ${spread(row.cpuRatios!)} |`,
    ),
    '',
  ];
  return lines.join('\n');
}

/** The world built on each engine, which each measurement's servers run on a copy of. */
interface Worlds {
  sqlite: { dir: string; world: World };
  postgres: { server: PostgresServer; database: string; world: World };
}

let copies = 0;

/**
 * Servers of both engines on a copy of the world of their own (SQLite: its folder copied; PostgreSQL: a database made
 * from the world's as a template); `end` stops them and removes the copies.
 */
async function serversOnCopies(worlds: Worlds, dataDir: string, members: number, settings: BenchSettings): Promise<{ engines: Engine[]; end(): Promise<void> }> {
  const copy = `copy_${++copies}`;
  const sqliteDir = path.join(dataDir, copy);
  cpSync(worlds.sqlite.dir, sqliteDir, { recursive: true });
  const { server } = worlds.postgres;
  const admin = new pg.Client({ connectionString: server.url('postgres') });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${copy} TEMPLATE ${worlds.postgres.database}`);
  const engines: Engine[] = [];
  const end = async () => {
    for (const engine of engines) await stop(engine.child);
    await admin.query(`DROP DATABASE IF EXISTS ${copy} WITH (FORCE)`);
    await admin.end();
    rmSync(sqliteDir, { recursive: true, force: true });
  };
  try {
    const started = await Promise.allSettled([
      startEngine('SQLite', { DATA_DIR: sqliteDir }, worlds.sqlite.world, members, settings),
      startEngine('PostgreSQL', { DATABASE_URL: server.url(copy), DATA_DIR: `${sqliteDir}-pg` }, worlds.postgres.world, members, settings),
    ]);
    for (const outcome of started) if (outcome.status === 'fulfilled') engines.push(outcome.value);
    for (const outcome of started) if (outcome.status === 'rejected') throw outcome.reason;
  } catch (error) {
    await end();
    throw error;
  }
  return { engines, end };
}

/** Measures `example` on both engines, in `order`: the runs of each, by engine (SQLite first). */
async function measureBoth(engines: Engine[], order: Engine[], example: OperationExample, all: Map<string, OperationExample>, settings: BenchSettings, into: Map<string, Measured[][]>): Promise<void> {
  for (const engine of order) {
    const measured = await measure(engine, example, all, settings);
    console.error(`operations: ${example.operationId} on ${engine.name}: ${measured.rps.toFixed(0)} req/s, ${measured.cpuUs?.toFixed(0)} µs`);
    const runs = into.get(example.operationId) ?? [[], []];
    runs[engines.indexOf(engine)]!.push(measured);
    into.set(example.operationId, runs);
  }
}

/**
 * The part: PostgreSQL started by the bench (durable, as the store part starts it), the world built on each engine in
 * this process, then servers as `npm start` runs them on copies of it: one pair for every read of a run, a pair of its
 * own for each measurement of a write (a write changes the world the others run in: a space locked, a site's sections
 * bounded); each operation measured on both engines in turn, each run another going first.
 */
export async function operations(settings: BenchSettings): Promise<void> {
  const examples = benchedExamples(settings.operations);
  const all = new Map(benchedExamples().map((example) => [example.operationId, example]));
  const members = 2 * (settings.fresh + WARMUP + operationConnections(settings) + 10);
  const dataDir = temporaryDirectory('docs-bench-operations-');
  const load: LoadAverages = { start: loadavg()[0]! };
  let postgres: PostgresServer | undefined;
  let outside: Outside | undefined;
  let readers: { engines: Engine[]; end(): Promise<void> } | undefined;
  try {
    postgres = startPostgres({ port: await freePort(), durable: true });
    const admin = new pg.Client({ connectionString: postgres.url('postgres') });
    await admin.connect();
    await admin.query('CREATE DATABASE world');
    await admin.end();
    outside = await startOutside(Object.assign({}, ...WORLD_PARTS.map((part) => part.outside ?? {})));
    const sqliteDir = path.join(dataDir, 'world');
    const worlds: Worlds = {
      sqlite: { dir: sqliteDir, world: await worldOn({ DATA_DIR: sqliteDir }, outside, members) },
      postgres: { server: postgres, database: 'world', world: await worldOn({ DATABASE_URL: postgres.url('world'), DATA_DIR: `${sqliteDir}-pg` }, outside, members) },
    };
    const results = new Map<string, Measured[][]>();
    const failures = new Map<string, string>();
    const reads = examples.filter((example) => example.method === 'get');
    const writes = examples.filter((example) => example.method !== 'get');
    for (let run = 0; run < settings.runs; run++) {
      // New servers for each run's reads: a server's CPU per request moves between processes more than between the
      // runs one process answers, so that the runs' spread and median take in that of the processes.
      if (reads.length > 0) readers = await serversOnCopies(worlds, dataDir, members, settings);
      for (const [index, example] of examples.entries()) {
        if (failures.has(example.operationId)) continue;
        const write = writes.includes(example);
        const pair = write ? await serversOnCopies(worlds, dataDir, members, settings) : readers!;
        const order = (run + index) % 2 === 0 ? pair.engines : [...pair.engines].reverse();
        try {
          await measureBoth(pair.engines, order, example, all, settings, results);
        } catch (error) {
          failures.set(example.operationId, (error as Error).message);
        } finally {
          if (write) await pair.end();
        }
      }
      await readers?.end();
      readers = undefined;
    }
    const readsSqliteUs = reads
      .map((example) => results.get(example.operationId)?.[0])
      .filter((runs) => runs !== undefined && runs.length > 0 && runs.every((measured) => measured.cpuUs !== undefined))
      .map((runs) => median(runs!.map((measured) => measured.cpuUs!)));
    const floor =
      readsSqliteUs.length === 0
        ? undefined
        : await roundTripFloor(postgres, { targetUs: median(readsSqliteUs), runs: settings.runs, seconds: settings.seconds, connections: operationConnections(settings) });
    load.end = loadavg()[0]!;
    report(examples, results, failures, settings, load, floor);
  } finally {
    await readers?.end();
    await outside?.close();
    for (const part of WORLD_PARTS) await part.close?.();
    postgres?.stop();
    removeTemporary(dataDir);
  }
}
