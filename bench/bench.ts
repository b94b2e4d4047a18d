// `npm run bench`: the reference server's benchmarks, part by part (`BENCH_PARTS`, all by default): throughput, start-up
// and memory of the compiled server, memory under requests carrying values of their own, the store, the speed
// mechanisms, lists and revisions as they grow, the order of new ids, the harness's reset, the daily loop, the typed
// client's recording mode, the contract's breaking-change rule. BENCH_* variables it cannot use stop it first, exit 2
// (settings.ts). Each part: bench/README.md and docs/performance.md ("Running the bench").
import { readFileSync } from 'node:fs';
import { readConfig } from '../server/common/config.ts';
import type { RevisionContent } from '../server/content/model.ts';
import { commitSpaceContent } from '../server/content/revisions.ts';
import { newId, newRandomId } from '../server/common/ids.ts';
import { startServer } from '../server/start/server.ts';
import { SqliteStore } from '../server/store/sqlite/store.ts';
import { BenchSettingsError, benchSettings } from './settings.ts';
import { removeTemporary, temporaryDirectory } from './cleanup.ts';
import { benchReset, resetTable } from './reset.ts';
import { benchSave, saveTable } from './save.ts';
import { benchClient, clientTable } from './client-recording.ts';
import { groupedPages, pageText } from './large-spaces.ts';
import { throughput } from './throughput.ts';
import { operations } from './operations.ts';
import { bounds } from './bounds.ts';
import { pipeliningPart } from './pipelining.ts';
import { buildServer } from '../scripts/build-server.ts';
import { placeProcesses } from './measure.ts';

/** Compiles of spec/ each way in the spec-rule part. */
const SPEC_RULE_RUNS = 9;
const settings = readSettings();
const { parts } = settings;
placeProcesses(settings.serverCpus);
if (parts.some((part) => part === 'throughput' || part === 'guard' || part === 'startup' || part === 'memory' || part === 'store' || part === 'mechanisms')) {
  if (settings.server === 'dist') await buildServer();
  await throughput(settings);
  console.log();
}
if (parts.includes('bounds')) {
  if (settings.server === 'dist') await buildServer();
  await bounds(settings);
  console.log();
}
if (parts.includes('pipelining')) {
  if (settings.server === 'dist') await buildServer();
  await pipeliningPart(settings);
  console.log();
}
if (parts.includes('operations')) {
  if (settings.server === 'dist') await buildServer();
  await operations(settings);
  console.log();
}
if (parts.includes('lists')) await lists();
if (parts.includes('revisions')) await revisions();
if (parts.includes('ids')) await idOrder();
if (parts.includes('reset')) {
  console.log(`\nThe test harness's reset() (bench/reset.ts): ${settings.resets} resets per test file, files side by side\n`);
  console.log(resetTable(await benchReset(settings.resets)));
}
if (parts.includes('save')) {
  console.log(`\nThe daily loop (bench/save.ts): ${settings.saves} saves of each case\n`);
  console.log(saveTable(await benchSave(settings.saves)));
}
if (parts.includes('client')) {
  console.log(`\nThe typed client's recording mode (bench/client-recording.ts)\n`);
  console.log(clientTable(await benchClient()));
}
if (parts.includes('spec-rule')) {
  console.log(`\nThe contract's breaking-change rule (bench/spec-rule-timing.ts)\n`);
  // Loaded only for it: the TypeSpec compiler is no part of the others.
  const { specRuleTiming } = await import('./spec-rule-timing.ts');
  console.log(await specRuleTiming(SPEC_RULE_RUNS));
}

/** The settings, or the variables it cannot use on stderr and exit 2. */
function readSettings() {
  try {
    return benchSettings();
  } catch (error) {
    if (!(error instanceof BenchSettingsError)) throw error;
    for (const line of error.message.split('\n')) console.error(`npm run bench: ${line}`);
    process.exit(2);
  }
}

/**
 * The server in this process, on an in-memory database, with the demo admin's token and no kept list pages: `call`
 * sends a request of the API and gives its JSON answer (`{}` for none), `time` the mean time of `rounds` calls of
 * `work` in ms, after one call to warm it (the validator compiles an operation's checks on its first call; a
 * revision's links are indexed).
 */
async function inProcessServer(defaultRounds: number) {
  const token = 'bench-token';
  // Pages of lists made on every call (LIST_CACHE_MB=0): these parts measure what making a page costs; the same page
  // read again with nothing written would otherwise be sent as kept (server/http/list-page-cache.ts).
  const running = await startServer(
    readConfig({ PORT: '0', DATA_DIR: ':memory:', LOG_LEVEL: 'silent', DOCS_API_TOKEN: token, LIST_CACHE_MB: '0' }),
  );
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${running.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text(); // empty for a 204
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return (text ? JSON.parse(text) : {}) as { id: string; revision: string; next?: { page: string }; count: number };
  };
  const time = async (work: () => Promise<unknown>, rounds = defaultRounds) => {
    await work();
    const started = process.hrtime.bigint();
    for (let round = 0; round < rounds; round++) await work();
    return Number(process.hrtime.bigint() - started) / 1e6 / rounds;
  };
  // These parts write rows directly, on the SQLite store the in-process server opens by default.
  const store = running.ctx.store;
  if (!(store instanceof SqliteStore)) throw new Error('the lists and revisions parts run on SQLite (unset DATABASE_URL)');
  return { running, db: store.connection, call, time };
}

async function lists() {
  const { sizes: SIZES, rounds: ROUNDS } = settings;
  const { running, db, call, time } = await inProcessServer(ROUNDS);
  const get = (path: string) => call('GET', path);
  // `count` more rows like the one with this id (made through the API, so valid whatever the schema), one second apart.
  const copies = (table: string, id: string, count: number, vary: (row: Record<string, unknown>, at: string, i: number) => void) => {
    const row = db.prepare(`SELECT * FROM ${table} WHERE id = ?`).get(id) as Record<string, unknown>;
    const columns = Object.keys(row);
    const insert = db.prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
    const start = Date.parse(String(row.created_at ?? row.posted_at));
    for (let i = 0; i < count; i++) {
      const copy: Record<string, unknown> = { ...row, id: newId() };
      vary(copy, new Date(start + (i + 1) * 1000).toISOString(), i);
      insert.run(...columns.map((column) => copy[column]));
    }
  };

  // Each list, as the organization (or one space of it) grows to `size` of its items.
  const LISTS = ['members', 'members by name', 'members by activity', 'spaces', 'collections', 'sites', 'teams', 'change requests', 'comments'];
  const results = new Map<string, string[]>(LISTS.map((list) => [list, []]));
  // Single requests, reads and writes, in the same organizations (a move places a space before the middle one).
  const REQUESTS = ['GET an organization', 'GET a space', 'GET a member', "GET a space's links", 'POST a space', 'POST a comment', 'PATCH a member', 'move a space', 'delete and restore a space'];
  const requests = new Map<string, string[]>(REQUESTS.map((request) => [request, []]));
  const rss: string[] = [];
  for (const size of SIZES) {
    const org = `bench-${size}`;
    const now = new Date().toISOString();
    db.prepare(`INSERT INTO organizations (id, title, created_at, type) VALUES (?, ?, ?, 'business')`).run(org, org, now);
    db.prepare(`INSERT INTO members (organization_id, user_id, role, joined_at) VALUES (?, 'demo-admin', 'admin', ?)`).run(org, now);
    const space = await call('POST', `/v1/orgs/${org}/spaces`, { title: 'Discussed' });
    const made = {
      collection: await call('POST', `/v1/orgs/${org}/collections`, { title: 'Collection' }),
      site: await call('POST', `/v1/orgs/${org}/sites`, { title: 'Site' }),
      team: await call('PUT', `/v1/orgs/${org}/teams`, { title: 'Team' }),
      changeRequest: await call('POST', `/v1/spaces/${space.id}/change-requests`, { subject: 'Change' }),
      comment: await call('POST', `/v1/spaces/${space.id}/comments`, { body: { markdown: 'A comment.' } }),
    };
    const seeded = { member: '' };
    db.transaction(() => {
      const user = db.prepare('INSERT INTO users (id, display_name, created_at) VALUES (?, ?, ?)');
      const member = db.prepare(`INSERT INTO members (organization_id, user_id, role, joined_at, last_seen_at) VALUES (?, ?, 'read', ?, ?)`);
      const spaceRow = db.prepare(
        `INSERT INTO spaces (id, organization_id, title, revision_id, share_key, position, created_at, updated_at)
         VALUES (?, ?, ?, 'none', 'k', ?, ?, ?)`,
      );
      for (let i = 0; i < size; i++) {
        const id = newId();
        if (i === size - 1) seeded.member = id;
        const at = new Date(Date.parse(now) + i).toISOString();
        // Names in another order than the users' creation.
        user.run(id, `User ${(i * 7919) % size}`, now);
        member.run(org, id, at, at);
        spaceRow.run(`${org}-space-${i}`, org, `Space ${i}`, i, at, at);
      }
      copies('collections', made.collection.id, size - 1, (row, at, i) => Object.assign(row, { created_at: at, position: i + 2 }));
      copies('sites', made.site.id, size - 1, (row, at) => Object.assign(row, { created_at: at, proxy: null }));
      copies('teams', made.team.id, size - 1, (row, at) => Object.assign(row, { created_at: at }));
      copies('change_requests', made.changeRequest.id, size - 1, (row, at, i) => Object.assign(row, { created_at: at, updated_at: at, number: i + 2 }));
      copies('comments', made.comment.id, size - 1, (row, at) => Object.assign(row, { posted_at: at }));
    })();
    // The rows above are written in this process, blocking its event loop for seconds at the larger sizes: let the
    // timers that came due meanwhile run (the server's keep-alive timeout closes the idle connection the client
    // would otherwise reuse for the next call, which then fails with ECONNRESET).
    await new Promise((resolve) => setTimeout(resolve, 50));

    const paths: Record<string, string> = {
      members: `/v1/orgs/${org}/members?`,
      'members by name': `/v1/orgs/${org}/members?sort=name&`,
      'members by activity': `/v1/orgs/${org}/members?sort=lastSeenAt&`,
      spaces: `/v1/orgs/${org}/spaces?`,
      collections: `/v1/orgs/${org}/collections?`,
      sites: `/v1/orgs/${org}/sites?`,
      teams: `/v1/orgs/${org}/teams?`,
      'change requests': `/v1/spaces/${space.id}/change-requests?`,
      comments: `/v1/spaces/${space.id}/comments?`,
    };
    for (const list of LISTS) {
      const path = paths[list]!;
      // A deep page: the cursor that leaves the last 100 items, reached by following next links (outside the timing).
      let cursor: string | undefined;
      const total = (await get(`${path}limit=1`)).count;
      for (let walked = 0; walked < total - 100; ) {
        const step = Math.min(1000, total - 100 - walked);
        cursor = (await get(`${path}limit=${step}${cursor ? `&page=${encodeURIComponent(cursor)}` : ''}`)).next?.page;
        walked += step;
      }
      const first = await time(() => get(`${path}limit=50`));
      const deep = await time(() => get(`${path}limit=50${cursor ? `&page=${encodeURIComponent(cursor)}` : ''}`));
      results.get(list)!.push(`${first.toFixed(1)} / ${deep.toFixed(1)}`);
    }
    let n = 0;
    const work: Record<string, () => Promise<unknown>> = {
      'GET an organization': () => get(`/v1/orgs/${org}`),
      'GET a space': () => get(`/v1/spaces/${space.id}`),
      'GET a member': () => get(`/v1/orgs/${org}/members/${seeded.member}`),
      "GET a space's links": () => get(`/v1/spaces/${space.id}/links`),
      'POST a space': () => call('POST', `/v1/orgs/${org}/spaces`, { title: `Created ${n++}` }),
      'POST a comment': () => call('POST', `/v1/spaces/${space.id}/comments`, { body: { markdown: `Comment ${n++}` } }),
      'PATCH a member': () => call('PATCH', `/v1/orgs/${org}/members/${seeded.member}`, { role: n++ % 2 ? 'edit' : 'read' }),
      'move a space': () =>
        call('POST', `/v1/spaces/${org}-space-${n++ % size}/move`, {
          position: { before: { type: 'space', space: `${org}-space-${Math.floor(size / 2)}` } },
        }),
      'delete and restore a space': async () => {
        const created = await call('POST', `/v1/orgs/${org}/spaces`, { title: `Deleted ${n++}` });
        await call('DELETE', `/v1/spaces/${created.id}`);
        await call('POST', `/v1/spaces/${created.id}/restore`);
      },
    };
    for (const request of REQUESTS) requests.get(request)!.push((await time(work[request]!)).toFixed(1));
    rss.push(String(Math.round(process.memoryUsage().rss / 1e6)));
  }
  await running.close();

  console.log(`one page (limit 50) of each list as it grows to each size, mean of ${ROUNDS} calls: first page / a deep page, ms`);
  const row = (label: string, cells: string[]) => console.log(`${label.padEnd(28)}${cells.map((cell) => cell.padStart(15)).join('')}`);
  row('list', SIZES.map(String));
  for (const list of LISTS) row(list, results.get(list)!);
  row('rss MB', rss);
  console.log(`\none request in the same organizations (and the space of the lists above), mean of ${ROUNDS} calls, ms`);
  row('request', SIZES.map(String));
  for (const request of REQUESTS) row(request, requests.get(request)!);
}

/**
 * What one request costs in a space whose content grows to `BENCH_PAGES` pages (groups of 49 documents of
 * `BENCH_PAGE_BYTES` of text, 2 000 by default) and as many files, each page linking to the next and showing a file:
 * the requests that look up one page or file, or show a page of a list drawn from the content, should cost the same
 * at every size; a write of content (a template, adding a page) stores the whole revision, and the whole content and
 * its page tree grow with it (shown for scale).
 */
async function revisions() {
  // The most a revision holds is 5 000 pages: 4 900 by default, to leave room for the pages the writes add.
  const { pages: SIZES, rounds: ROUNDS } = settings;
  // Each page's text: about 2 KB by default, a short page of documentation.
  const text = pageText(settings.pageBytes);
  const { running, call, time } = await inProcessServer(ROUNDS);
  const REQUESTS = [
    'GET a page',
    "a page's links",
    "a page's backlinks",
    'GET a file',
    'files, first page',
    'files, last page',
    'comments, first page',
    "space's links, first page",
    "space's links, last page",
    "space's links, 50 open change requests",
    'search, a word of every page',
    'POST a comment',
    'a template applied, then its links',
    'GET the content (whole)',
    'GET the page tree (whole)',
  ];
  const results = new Map<string, string[]>(REQUESTS.map((request) => [request, []]));
  const now = new Date().toISOString();
  for (const size of SIZES) {
    const space = await call('POST', '/v1/orgs/demo/spaces', { title: `${size} pages` });
    const layout = groupedPages(size, (g, i, index) => ({
      id: `p${g}-${i}`, title: `Page ${g}-${i}`, slug: `page-${i}`, type: 'document', createdAt: now, updatedAt: now, pages: [],
      markdown: `# Page ${g}-${i}\n\nGo on to [the next page](page-${i + 1}).\n\n![A figure](f${index}.png)\n\n${text}`,
    }));
    const { perGroup } = layout;
    const groups = layout.groups.length;
    const pages = layout.groups.map(({ g, pages: inGroup }) => ({
      id: `g${g}`, title: `Group ${g}`, slug: `group-${g}`, type: 'group', createdAt: now, updatedAt: now, pages: inGroup,
    }));
    const files = Array.from({ length: groups * perGroup }, (_, i) => ({ id: `f${i}`, name: `f${i}.png`, contentType: 'image/png', size: 100 }));
    await running.ctx.store.write((db) => commitSpaceContent(db, space.id, [space.revision], { pages, files, reusableContents: [], variables: {} } as RevisionContent, now));
    const last = { page: `p${groups - 1}-${perGroup - 1}`, file: `f${files.length - 1}` };
    for (let i = 0; i < 50; i++) {
      await call('POST', `/v1/spaces/${space.id}/comments`, { page: `p${(i * 7) % groups}-${i % perGroup}`, body: { markdown: `Comment ${i}` } });
    }
    // The cursor to the last page of a list, followed through the list outside the timing.
    const lastPage = async (path: string) => {
      let cursor: string | undefined;
      for (let page = await call('GET', `${path}?limit=1000`); page.next; page = await call('GET', `${path}?limit=1000&page=${encodeURIComponent(cursor!)}`)) {
        cursor = page.next.page;
      }
      return cursor ? `${path}?limit=50&page=${encodeURIComponent(cursor)}` : `${path}?limit=50`;
    };
    const at = `/v1/spaces/${space.id}`;
    const deep = { files: await lastPage(`${at}/content/files`), links: await lastPage(`${at}/links`) };
    let n = 0;
    const work: Record<string, () => Promise<unknown>> = {
      'GET a page': () => call('GET', `${at}/content/page/${last.page}`),
      "a page's links": () => call('GET', `${at}/content/page/${last.page}/links`),
      "a page's backlinks": () => call('GET', `${at}/content/page/${last.page}/backlinks`),
      'GET a file': () => call('GET', `${at}/content/files/${last.file}`),
      'files, first page': () => call('GET', `${at}/content/files?limit=50`),
      'files, last page': () => call('GET', deep.files),
      'comments, first page': () => call('GET', `${at}/comments?limit=50`),
      "space's links, first page": () => call('GET', `${at}/links?limit=50`),
      "space's links, last page": () => call('GET', deep.links),
      // Its counts include the broken links of the open change requests (each on the revision it started from).
      "space's links, 50 open change requests": () => call('GET', `${at}/links?limit=50`),
      'search, a word of every page': () => call('GET', `${at}/search?query=documentation&limit=20`),
      'POST a comment': () => call('POST', `${at}/comments`, { page: last.page, body: { markdown: `Comment ${n++}` } }),
      // A write of content makes a new revision, whose links are indexed when they are first asked for.
      'a template applied, then its links': async () => {
        await call('POST', `${at}/content/template`, { id: 'changelog' });
        await call('GET', `${at}/content/page/${last.page}/links`);
      },
      'GET the content (whole)': () => call('GET', `${at}/content`),
      'GET the page tree (whole)': () => call('GET', `${at}/content/pages`),
    };
    const before: Record<string, () => Promise<unknown>> = {
      "space's links, 50 open change requests": async () => {
        for (let i = 0; i < 50; i++) await call('POST', `${at}/change-requests`, { subject: `Change ${i}` });
      },
    };
    for (const request of REQUESTS) {
      await before[request]?.();
      const whole = request.includes('(whole)');
      results.get(request)!.push((await time(work[request]!, whole ? Math.max(1, Math.ceil(ROUNDS / 4)) : ROUNDS)).toFixed(1));
    }
  }
  await running.close();
  console.log(`\none request in a space of each number of pages (and as many files), mean of ${ROUNDS} calls (the whole content: a quarter of them), ms`);
  const row = (label: string, cells: string[]) => console.log(`${label.padEnd(40)}${cells.map((cell) => cell.padStart(15)).join('')}`);
  row('request', SIZES.map(String));
  for (const request of REQUESTS) row(request, results.get(request)!);
}

/**
 * What the order of new ids costs a write, in SQLite alone: rows of a comment's shape, keyed by id as the server's
 * tables are (`id TEXT PRIMARY KEY`, with an index that new rows extend at its end, as `comments_space` does), in a
 * database opened as the server opens its own (store/db.ts: write-ahead log, `synchronous = NORMAL`, its page cache),
 * `BENCH_ID_ROWS` rows in (100 000), then 40 000 more, 5 to a transaction as the server's group commit takes them
 * under the throughput part's load. Once with random ids (20 characters, as the server made before its ids sorted by
 * creation time), once with the server's ids (`newId`), in creation order: wall and CPU time per insert,
 * and the system calls that wrote and read the files, per insert. Each random id is an entry at a random place of
 * the index of ids: a leaf of its own written to the log at each commit, and copied into the database again at each
 * checkpoint. Ids in creation order share the index's last leaf. Then both again with no checkpoints, which
 * parts what the commit costs from what the checkpoint does.
 */
async function idOrder() {
  const rows = settings.idRows;
  const inserts = 40_000;
  const perCommit = 5;
  // The system calls this process made to read and write files (Linux only: none elsewhere).
  const io = () => {
    let text: string;
    try {
      text = readFileSync('/proc/self/io', 'utf8');
    } catch {
      return { reads: NaN, writes: NaN };
    }
    const fields = Object.fromEntries(
      text
        .trim()
        .split('\n')
        .map((line) => line.split(': ') as [string, string]),
    );
    return { reads: Number(fields.syscr), writes: Number(fields.syscw) };
  };
  console.log(
    `\nan insert into a table of ${rows} rows keyed by id, ${perCommit} to a transaction, ${inserts} inserts, per insert (SQLite alone, the server's settings)`,
  );
  console.log(`${'ids'.padEnd(44)}${['wall µs', 'CPU µs', 'writes', 'reads'].map((cell) => cell.padStart(10)).join('')}`);
  // Each order twice: with the server's checkpoints (every 1 000 pages of the log), then with none, which shows what
  // is paid at the commit (each changed page written to the log) and what at the checkpoint (each page the log holds
  // read back, copied into the database and synced).
  for (const [label, makeId, checkpoints] of [
    ['random (20 characters)', () => newRandomId(20), true],
    ['in creation order (newId)', () => newId(), true],
    ['random (20 characters), no checkpoints', () => newRandomId(20), false],
    ['in creation order (newId), no checkpoints', () => newId(), false],
  ] as const) {
    const dir = temporaryDirectory('bench-ids-');
    const store = SqliteStore.open(dir);
    const db = store.connection;
    if (!checkpoints) db.pragma('wal_autocheckpoint = 0');
    db.exec(`CREATE TABLE bench_rows (id TEXT PRIMARY KEY, space_id TEXT NOT NULL, posted_by TEXT NOT NULL,
                                      posted_at TEXT NOT NULL, body TEXT NOT NULL);
             CREATE INDEX bench_rows_space ON bench_rows (space_id, posted_at, id);`);
    const insert = db.prepare('INSERT INTO bench_rows (id, space_id, posted_by, posted_at, body) VALUES (?, ?, ?, ?, ?)');
    const body = JSON.stringify({ markdown: 'Is this **right**?' });
    const commit = (count: number) => {
      db.exec('BEGIN IMMEDIATE');
      for (let i = 0; i < count; i++) insert.run(makeId(), 'bench-space', 'bench-admin', new Date().toISOString(), body);
      db.exec('COMMIT');
    };
    for (let done = 0; done < rows; done += 500) commit(Math.min(500, rows - done));
    const io0 = io();
    const cpu0 = process.cpuUsage();
    const started = process.hrtime.bigint();
    for (let done = 0; done < inserts; done += perCommit) commit(perCommit);
    const wall = Number(process.hrtime.bigint() - started) / 1e3 / inserts;
    const cpu = process.cpuUsage(cpu0);
    const io1 = io();
    db.close();
    removeTemporary(dir);
    const cells = [wall, (cpu.user + cpu.system) / inserts, (io1.writes - io0.writes) / inserts, (io1.reads - io0.reads) / inserts];
    console.log(`${label.padEnd(44)}${cells.map((cell) => cell.toFixed(1).padStart(10)).join('')}`);
    // Each order is timed in one synchronous loop: a signal sent to the bench meanwhile ends it here, its database
    // removed with the bench's other temporary data.
    await new Promise((resolve) => setImmediate(resolve));
  }
}
