// The bench's measure of postgres.js alone (the store part prints it after the requests).
import postgresJs from 'postgres';
import { connectionOptions } from '../server/store/postgres/store.ts';
import type { PostgresServer } from '../scripts/postgres-server.ts';
import { median } from './measure.ts';

/**
 * What a statement costs a client of postgres.js, the server's driver, measured in this process on the same database:
 * CPU per statement (a SELECT of one row), each awaited before the next is sent (as a write waits for its read) and 16
 * sent together (as concurrent reads travel). The difference is the round trip: the write to the database's socket
 * that wakes it, the wait, the wake-up for its answer; a write of the store pays at least one, which SQLite never does.
 */
export async function roundTrips(server: PostgresServer): Promise<void> {
  const { url, host } = connectionOptions(server.url('bench'));
  const sql = postgresJs(url, { max: 1, ...(host === undefined ? {} : { host }), onnotice: () => undefined });
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
