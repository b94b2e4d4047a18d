// The floor of what a read of PostgreSQL adds to a request (bench/round-trips.ts, `roundTripFloor`): a bare node:http
// server that answers each request with one row, read from SQLite (better-sqlite3) or from PostgreSQL (postgres.js,
// awaited), after `?work=<units>` of the request's own work (objects made and serialized, as a server's request makes
// them). Run as `node --import tsx bench/bare-round-trip.ts sqlite <file>` or `... postgres <url> [<socket folder>]`,
// on PORT (any free one when unset); it prints its port once it listens, as bench/bare.mjs does.
import { createServer } from 'node:http';
import Database from 'better-sqlite3';
import postgres from 'postgres';

const ROWS = 100;
const [engine, address, host] = process.argv.slice(2);

/** One unit of a request's own work: 20 small objects made, then serialized. */
const work = (units: number): number => {
  let length = 0;
  for (let unit = 0; unit < units; unit++) {
    const objects = [];
    for (let i = 0; i < 20; i++) objects.push({ id: i, name: `item ${i}`, tags: [i, unit] });
    length += JSON.stringify(objects).length;
  }
  return length;
};

let row: (id: number) => unknown;
if (engine === 'sqlite') {
  const db = new Database(address);
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE IF NOT EXISTS items (id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT NOT NULL)');
  const insert = db.prepare('INSERT OR IGNORE INTO items VALUES (?, ?, ?)');
  for (let id = 1; id <= ROWS; id++) insert.run(id, `Item ${id}`, 'x'.repeat(200));
  const select = db.prepare('SELECT id, title, body FROM items WHERE id = ?');
  row = (id) => select.get(id);
} else if (engine === 'postgres') {
  const sql = postgres(address!, { max: 1, ...(host === undefined ? {} : { host }), onnotice: () => undefined });
  await sql`CREATE TABLE IF NOT EXISTS items (id integer PRIMARY KEY, title text NOT NULL, body text NOT NULL)`;
  await sql`INSERT INTO items SELECT id, 'Item ' || id, repeat('x', 200) FROM generate_series(1, ${ROWS}::int) id ON CONFLICT DO NOTHING`;
  row = async (id) => (await sql`SELECT id, title, body FROM items WHERE id = ${id}`)[0];
} else {
  throw new Error(`bare-round-trip: the engine is sqlite or postgres, got "${engine}"`);
}

let next = 0;
const server = createServer(async (request, response) => {
  const units = Number(new URL(request.url!, 'http://bare').searchParams.get('work') ?? 0);
  const made = work(units);
  const body = JSON.stringify({ row: await row((next++ % ROWS) + 1), made });
  response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  response.end(body);
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => console.log(`port ${(server.address() as { port: number }).port}`));
