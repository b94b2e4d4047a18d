// The bench's measures of a round trip to PostgreSQL: what it costs postgres.js alone (the store part prints it after
// the requests), and what it adds to a bare server's request of a given cost (the store and operations parts).
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import autocannon from 'autocannon';
import postgresJs from 'postgres';
import { connectionOptions } from '../server/store/postgres/store.ts';
import { startNodeOptions } from '../scripts/build-server.ts';
import type { PostgresServer } from '../scripts/postgres-server.ts';
import { removeTemporary, stop, temporaryDirectory } from './cleanup.ts';
import { answered, cpuMs, freePort, median, rotated, spawnServer } from './measure.ts';

/** A client of one connection to database `name` of `server`. */
function clientOf(server: PostgresServer, name: string): postgresJs.Sql {
  const { url, host } = connectionOptions(server.url(name));
  return postgresJs(url, { max: 1, ...(host === undefined ? {} : { host }), onnotice: () => undefined });
}

/**
 * What a statement costs a client of postgres.js, the server's driver, measured in this process on the same database:
 * CPU per statement (a SELECT of one row), each awaited before the next is sent (as a write waits for its read) and 16
 * sent together (as concurrent reads travel). The difference is the round trip: the write to the database's socket
 * that wakes it, the wait, the wake-up for its answer; a write of the store pays at least one, which SQLite never does.
 */
export async function roundTrips(server: PostgresServer): Promise<void> {
  const sql = clientOf(server, 'bench');
  const statements = 2000;
  const together = 16;
  const cpuPerStatement = async (send: () => Promise<unknown>) => {
    const before = process.cpuUsage();
    await send();
    const used = process.cpuUsage(before);
    return (used.user + used.system) / statements;
  };
  const oneByOne = async () => {
    for (let i = 0; i < statements; i++) await sql`SELECT ${i}::int AS n`;
  };
  const inBatches = async () => {
    for (let i = 0; i < statements; i += together) await Promise.all(Array.from({ length: together }, (_, j) => sql`SELECT ${i + j}::int AS n`));
  };
  try {
    const [alone, batched]: number[][] = [[], []];
    // The first turn warms the code up and is not counted.
    for (let turn = 0; turn < 4; turn++) {
      const [a, b] = [await cpuPerStatement(oneByOne), await cpuPerStatement(inBatches)];
      if (turn === 0) continue;
      alone.push(a);
      batched.push(b);
    }
    console.log(
      `\npostgres.js in this process, CPU per statement (median of 3 × ${statements}): ` +
        `each awaited before the next ${median(alone).toFixed(0)} µs, ${together} sent together ${median(batched).toFixed(0)} µs`,
    );
  } finally {
    await sql.end();
  }
}

/** What a round trip adds to a bare server's request of a given cost (`roundTripFloor`). */
export interface Floor {
  /** The CPU per request of the bare server's request on SQLite, on PostgreSQL, in µs (medians of the runs). */
  sqliteUs: number;
  postgresUs: number;
  /** Each run's PostgreSQL/SQLite ratio of the bare server's CPU per request. */
  ratios: number[];
}

/**
 * The floor of a read of PostgreSQL: a bare node:http server (bench/bare-round-trip.ts) started with the reference
 * server's node options, on each engine, answering each request with one row, its requests first doing as much work of
 * their own as makes them cost `targetUs` of CPU on SQLite (calibrated on SQLite: its cost without the work and with
 * some). Then `runs` interleaved runs of `seconds` each (after as long a warm-up) at `connections`: PostgreSQL/SQLite
 * of such a server is what one round trip adds to a request of that cost in a server that adds nothing else to it.
 */
export async function roundTripFloor(server: PostgresServer, options: { targetUs: number; runs: number; seconds: number; connections: number }): Promise<Floor> {
  const admin = clientOf(server, 'postgres');
  const folder = temporaryDirectory('docs-bench-floor-');
  const children: ChildProcess[] = [];
  try {
    await admin`DROP DATABASE IF EXISTS bench_floor`;
    await admin`CREATE DATABASE bench_floor`;
    const { url, host } = connectionOptions(server.url('bench_floor'));
    const start = async (...engine: string[]) => {
      const port = await freePort();
      const { child, output } = spawnServer([...startNodeOptions(), '--import', 'tsx', 'bench/bare-round-trip.ts', ...engine], { PORT: String(port) });
      children.push(child);
      const base = `http://127.0.0.1:${port}/`;
      await answered(base, child, output);
      return { child, base };
    };
    const sqlite = await start('sqlite', path.join(folder, 'floor.db'));
    const postgres = await start('postgres', url, ...(host === undefined ? [] : [host]));
    const cpuPerRequest = async (target: { child: ChildProcess; base: string }, units: number, seconds: number) => {
      const before = cpuMs(target.child);
      const result = await autocannon({ url: `${target.base}?work=${units}`, connections: options.connections, duration: seconds });
      const after = cpuMs(target.child);
      if (result.non2xx > 0 || result.errors > 0) throw new Error(`bench/bare-round-trip.ts: ${result.non2xx} answers not 2xx, ${result.errors} errors`);
      return before === undefined || after === undefined ? Number.NaN : ((after - before) * 1000) / result.requests.total;
    };
    // The work's units that make SQLite's request cost targetUs: its cost is linear in them; the line is drawn through
    // its cost without work and with a probe's, then again through the units that line gave.
    await cpuPerRequest(sqlite, 40, 1);
    const without = await cpuPerRequest(sqlite, 0, 2);
    let units = 40;
    for (let step = 0; step < 2; step++) {
      const cost = await cpuPerRequest(sqlite, units, 2);
      units = Math.max(0, Math.round(((options.targetUs - without) * units) / Math.max(1e-9, cost - without)));
    }
    const runs: [number[], number[]] = [[], []];
    for (let run = 0; run < options.runs; run++) {
      for (const target of rotated([sqlite, postgres], run)) {
        await cpuPerRequest(target, units, options.seconds);
        runs[target === sqlite ? 0 : 1].push(await cpuPerRequest(target, units, options.seconds));
      }
    }
    return { sqliteUs: median(runs[0]), postgresUs: median(runs[1]), ratios: runs[1].map((us, run) => us / runs[0][run]!) };
  } finally {
    for (const child of children) await stop(child);
    await admin`DROP DATABASE IF EXISTS bench_floor WITH (FORCE)`.catch(() => undefined);
    await admin.end();
    removeTemporary(folder);
  }
}

/** A floor as printed and written: the bare server's CPU on each engine and its ratio's median (lowest–highest). */
export const floorText = (floor: Floor): string =>
  `a bare server's request of ${floor.sqliteUs.toFixed(0)} µs on SQLite costs ${floor.postgresUs.toFixed(0)} µs reading PostgreSQL once, PG/SQLite ` +
  `${median(floor.ratios).toFixed(2)} (${Math.min(...floor.ratios).toFixed(2)}–${Math.max(...floor.ratios).toFixed(2)})`;

/** Prints a floor under the part's figures. */
export const printFloor = (floor: Floor): void => console.log(`the floor of a read at the reads' median cost on SQLite (bench/round-trips.ts): ${floorText(floor)}`);
