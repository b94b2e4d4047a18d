// Benchmarks of the reference server (`npm run bench`). First its throughput against bare node:http, its start-up
// time and its memory under load (bench-throughput.ts), on the compiled server `npm start` runs (rebuilt first).
// Then the cost of one page of a list as the collection grows, through the real stack (HTTP, validation of requests
// and responses), and the memory the server holds: keyset pagination should keep a page's cost flat however long
// the list; the numbers show whether it does. `BENCH_PARTS` (throughput, prism, startup, memory, lists) chooses
// parts; `prism` adds the Prism mock to the throughput part.
import { readConfig } from '../server/config.ts';
import { newId } from '../server/domain/ids.ts';
import { startServer } from '../server/server.ts';
import { throughput } from './bench-throughput.ts';
import { buildServer } from './build-server.ts';

const PARTS = (process.env.BENCH_PARTS ?? 'throughput,prism,startup,memory,lists').split(',');
if (['throughput', 'startup', 'memory'].some((part) => PARTS.includes(part))) {
  if (process.env.BENCH_SERVER !== 'tsx') await buildServer();
  await throughput(PARTS);
  console.log();
}
if (PARTS.includes('lists')) await lists();

async function lists() {
  const SIZES = (process.env.BENCH_SIZES ?? '100,1000,10000,50000').split(',').map(Number);
  const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
  const token = 'bench-token';

  const running = await startServer(
    readConfig({ PORT: '0', DATA_DIR: ':memory:', LOG_LEVEL: 'silent', DOCS_API_TOKEN: token }),
  );
  const { db } = running.ctx;
  const get = async (path: string) => {
    const response = await fetch(`${running.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
    if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as { next?: { page: string }; count: number };
  };
  const time = async (work: () => Promise<unknown>) => {
    await work(); // warm: the validator compiles a route on its first call
    const started = process.hrtime.bigint();
    for (let round = 0; round < ROUNDS; round++) await work();
    return Number(process.hrtime.bigint() - started) / 1e6 / ROUNDS;
  };

  console.log(`one page (limit 50) of GET /v1/orgs/{id}/members and /spaces, mean of ${ROUNDS} calls`);
  console.log('size      members p1   members deep   spaces p1   spaces deep   rss MB');
  for (const size of SIZES) {
    const org = `bench-${size}`;
    const now = new Date().toISOString();
    db.transaction(() => {
      db.prepare(`INSERT INTO organizations (id, title, created_at, type) VALUES (?, ?, ?, 'business')`).run(org, org, now);
      db.prepare(`INSERT INTO members (organization_id, user_id, role, joined_at) VALUES (?, 'demo-admin', 'admin', ?)`).run(org, now);
      const user = db.prepare('INSERT INTO users (id, display_name, created_at) VALUES (?, ?, ?)');
      const member = db.prepare(`INSERT INTO members (organization_id, user_id, role, joined_at) VALUES (?, ?, 'read', ?)`);
      const space = db.prepare(
        `INSERT INTO spaces (id, organization_id, title, revision_id, share_key, position, created_at, updated_at)
         VALUES (?, ?, ?, 'none', 'k', ?, ?, ?)`,
      );
      for (let i = 0; i < size; i++) {
        const id = newId();
        const at = new Date(Date.parse(now) + i).toISOString();
        user.run(id, `User ${i}`, now);
        member.run(org, id, at);
        space.run(newId(), org, `Space ${i}`, i, at, at);
      }
    })();

    // A deep page: the cursor that leaves the last 100 items, reached by following next links (outside the timing).
    const deepCursor = async (path: string) => {
      let cursor: string | undefined;
      for (let walked = 0; walked < size - 100; ) {
        const step = Math.min(1000, size - 100 - walked);
        const page = await get(`${path}?limit=${step}${cursor ? `&page=${encodeURIComponent(cursor)}` : ''}`);
        cursor = page.next?.page;
        walked += step;
      }
      return cursor;
    };
    const members = `/v1/orgs/${org}/members`;
    const spaces = `/v1/orgs/${org}/spaces`;
    const [membersDeep, spacesDeep] = [await deepCursor(members), await deepCursor(spaces)];
    const deep = (path: string, cursor: string | undefined) => () =>
      get(cursor ? `${path}?limit=50&page=${encodeURIComponent(cursor)}` : `${path}?limit=50`);
    const row = [
      await time(() => get(`${members}?limit=50`)),
      await time(deep(members, membersDeep)),
      await time(() => get(`${spaces}?limit=50`)),
      await time(deep(spaces, spacesDeep)),
    ].map((ms) => `${ms.toFixed(1)} ms`.padStart(13));
    console.log(`${String(size).padEnd(8)}${row.join('')}${String(Math.round(process.memoryUsage().rss / 1e6)).padStart(9)}`);
  }
  await running.close();
}
