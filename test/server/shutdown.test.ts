// A shutdown that always ends: the compiled server (as `npm start` runs it) exits by SHUTDOWN_TIMEOUT_MS whatever its
// output is connected to (pipes nobody reads, a pipe closed), drops and counts the log lines its output does not take,
// answers the requests in flight, starts one shutdown however many signals come, and past its deadline exits with one
// line naming what it gave up on, without losing an acknowledged write (on both engines).
// The cases: test/README.md, "The server as a process".
// @needs processes
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { afterAll, describe, expect, test } from 'vitest';
import { createDocsClient } from '../../client/index.ts';
import { serverArguments } from '../support/built-server.ts';
import { createTestDatabase, runEngines, type TestDatabase } from '../support/databases.ts';
import { ok } from '../support/expect.ts';
import { eventually, heldServer, type Instance, type LogLine, logLines, startInstance } from '../support/instances.ts';
import { repoRoot } from '../support/repo.ts';

const scratch = mkdtempSync(path.join(tmpdir(), 'shutdown-test-'));
const children: ChildProcess[] = [];
const databases: TestDatabase[] = [];
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await Promise.all(databases.map((database) => database.drop()));
  rmSync(scratch, { recursive: true, force: true });
});

const TOKEN = 'shutdown-admin';
/** Long enough for any exit these tests wait for, loaded machine included; an exit that never comes fails the test. */
const EXIT_BOUND_MS = 60_000;

/** Resolves with the exit code once `child` exits; kills it and throws when that takes more than EXIT_BOUND_MS. */
async function exitOf(child: ChildProcess, exited: Promise<number | null>): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the server did not exit within ${EXIT_BOUND_MS} ms`));
    }, EXIT_BOUND_MS);
  });
  try {
    return await Promise.race([exited, bound]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Starts the compiled server with stdout and stderr as pipes this process does not read (until `read` is called):
 * a parent that forgets them, a log collector that stalls. The address comes from ADDRESS_FILE.
 */
async function startUnread(name: string, env: Record<string, string> = {}) {
  const dataDir = path.join(scratch, name);
  const addressFile = path.join(scratch, `${name}.address`);
  const child = spawn(process.execPath, serverArguments(), {
    cwd: repoRoot,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, ADDRESS_FILE: addressFile, DOCS_API_TOKEN: TOKEN, LOG_LEVEL: 'info', LOG_FORMAT: 'json', LOG_REQUESTS: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  // A 'readable' listener that never reads: the pipe fills (this process's buffer takes 64 KiB, then stops taking),
  // and what it holds is kept when the server exits (Node discards the output of a child's stream nothing listens to).
  const stall = () => {};
  child.stdout.on('readable', stall);
  child.stderr.on('readable', stall);
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const url = await eventually(async () => (existsSync(addressFile) ? readFileSync(addressFile, 'utf8').trim() : undefined), EXIT_BOUND_MS);
  /** Everything `stream` holds and will hold until it closes (read from now on). */
  const read = async (stream: Readable) => {
    let text = '';
    const closed = new Promise<void>((resolve) => stream.once('close', resolve));
    stream.off('readable', stall);
    // A stream with 'readable' listeners does not flow; it knows it has none from the next turn on.
    await new Promise((resolve) => setImmediate(resolve));
    stream.on('data', (chunk: Buffer) => (text += chunk)).resume();
    return { text: () => text, closed };
  };
  return { child, url, exited, read };
}

/** The log lines of `text`, JSON lines, without a last one cut off. */
const jsonLines = (text: string): LogLine[] =>
  text
    .split('\n')
    .slice(0, text.endsWith('\n') ? undefined : -1)
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);

/** A path no route has, 4 000 characters long: each request is an access-log line of about 4 KB (a 404). */
const LONG_PATH = `/v1/${'x'.repeat(4000)}`;

/**
 * Sends `count` requests, 20 at a time, each answered 404 and logged with its long path: about 2.5 MB of log for 600,
 * more than a pipe, the reader's buffer and the server's bound of 1 MiB together hold. Resolves with their statuses.
 */
async function burst(url: string, count: number): Promise<Record<number, number>> {
  const statuses: Record<number, number> = {};
  let sent = 0;
  await Promise.all(
    Array.from({ length: 20 }, async () => {
      while (sent < count) {
        sent++;
        const response = await fetch(`${url}${LONG_PATH}`, { headers: { authorization: `Bearer ${TOKEN}` } });
        await response.arrayBuffer();
        statuses[response.status] = (statuses[response.status] ?? 0) + 1;
      }
    }),
  );
  return statuses;
}

const REQUESTS = 600;

describe('a log that cannot be written holds nothing', () => {
  test('stdout and stderr unread: every request of a burst is answered, and SIGTERM ends the server by its deadline, the give-up line on stderr counting every line stdout did not take', async () => {
    const server = await startUnread('unread', { SHUTDOWN_TIMEOUT_MS: '2000' });
    expect(await burst(server.url, REQUESTS)).toEqual({ 404: REQUESTS });
    server.child.kill('SIGTERM');
    // The server closed everything at once, then waited for its log lines until the deadline.
    expect(await exitOf(server.child, server.exited)).toBe(1);

    // What the pipes took before the exit: the start's lines and the first requests' on stdout, the give-up line on
    // stderr (the log, holding lines it had not written, would have put it behind them).
    const stdout = await server.read(server.child.stdout!);
    const stderr = await server.read(server.child.stderr!);
    await Promise.all([stdout.closed, stderr.closed]);
    const written = jsonLines(stdout.text()).filter((line) => line.msg === 'request' || line.msg === 'shutting down');
    const [gaveUp, ...more] = jsonLines(stderr.text());
    expect(more).toEqual([]);
    expect(gaveUp).toMatchObject({ level: 50, requests: 0, jobs: 0, shutdownTimeoutMs: 2000 });
    expect(gaveUp!.msg).toMatch(/^shutdown did not finish within SHUTDOWN_TIMEOUT_MS \(2000 ms\): exiting anyway, giving up on \d+ log lines not written$/);
    // Most of the lines were never taken; each was either written or counted: the requests' and "shutting down".
    expect(written.length).toBeLessThan(REQUESTS / 2);
    expect(written.length + (gaveUp!.logLines as number)).toBe(REQUESTS + 1);
  }, 120_000);

  test('stdout read again after a stall: the count of the lines dropped meanwhile is logged, and with the lines written it makes every request', async () => {
    const server = await startUnread('stalled');
    expect(await burst(server.url, REQUESTS)).toEqual({ 404: REQUESTS });
    const stdout = await server.read(server.child.stdout!);
    const stderr = await server.read(server.child.stderr!);
    const dropped = await eventually(async () => jsonLines(stdout.text()).find((line) => line.droppedLogLines !== undefined), EXIT_BOUND_MS);
    expect(dropped).toMatchObject({ level: 40, msg: expect.stringMatching(/^\d+ log lines were dropped: standard output took none for a while, and the log keeps at most 1024 KiB waiting$/) });
    const requests = jsonLines(stdout.text()).filter((line) => line.msg === 'request');
    expect(requests.length + (dropped.droppedLogLines as number)).toBe(REQUESTS);

    server.child.kill('SIGTERM');
    expect(await exitOf(server.child, server.exited)).toBe(0);
    await Promise.all([stdout.closed, stderr.closed]);
    expect(jsonLines(stdout.text()).filter((line) => line.msg === 'shutting down')).toHaveLength(1);
    expect(stderr.text()).toBe('');
  }, 120_000);

  test('stdout closed by its reader (EPIPE): requests are answered, SIGTERM ends the server cleanly, and the lines not written are counted on stderr', async () => {
    const server = await startUnread('closed');
    const stderr = await server.read(server.child.stderr!);
    await new Promise<void>((resolve) => server.child.stdout!.once('close', resolve).destroy());
    const client = createDocsClient({ baseUrl: server.url, token: TOKEN });
    for (let i = 0; i < 20; i++) ok(await client.GET('/v1/orgs'));
    server.child.kill('SIGTERM');
    expect(await exitOf(server.child, server.exited)).toBe(0);
    await stderr.closed;
    // The twenty requests' lines and "shutting down".
    expect(jsonLines(stderr.text())).toEqual([expect.objectContaining({ level: 40, droppedLogLines: 21, msg: '21 log lines not written (EPIPE)' })]);
  }, 120_000);
});

/**
 * A request in flight: a POST creating a space in the demo organization, whose body the server waits for until
 * `finish` sends it. It asks `Expect: 100-continue`, so the server's `100 Continue` says that it has the request
 * (Node answers it as it hands the request to the app). `answer` resolves with what came back after that, once the
 * connection closes.
 */
async function requestInFlight(url: string, title: string) {
  const { hostname, port } = new URL(url);
  const socket: Socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk));
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.once('close', resolve));
  const body = JSON.stringify({ title });
  socket.write(
    `POST /v1/orgs/demo/spaces HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`,
  );
  const CONTINUE = 'HTTP/1.1 100 Continue\r\n\r\n';
  await eventually(async () => (received.startsWith(CONTINUE) ? true : undefined));
  return { finish: () => socket.write(body), answer: closed.then(() => received.slice(CONTINUE.length)) };
}

/** The titles of the demo organization's spaces, as `instance` lists them. */
const titles = async (instance: Instance) =>
  ok(await instance.client(TOKEN).GET('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId: 'demo' }, query: { limit: 100 } } })).items.map((space) => space.title);

describe('one shutdown', () => {
  test('a second signal during a shutdown starts no second one: the request in flight is answered, the server exits 0, and the write is kept', async () => {
    const dataDir = path.join(scratch, 'second-signal');
    const server = await startInstance({ DATA_DIR: dataDir, DOCS_API_TOKEN: TOKEN });
    const held = await requestInFlight(server.url, 'answered while shutting down');
    server.child.kill('SIGTERM');
    await eventually(async () => logLines(server).find((line) => line.msg === 'shutting down'));
    // It accepts no new connection.
    await expect(fetch(`${server.url}/health`)).rejects.toThrow();
    server.child.kill('SIGINT');
    await eventually(async () => logLines(server).find((line) => line.msg === 'already shutting down: this changes nothing'));
    held.finish();
    const answer = await held.answer;
    expect(answer).toMatch(/^HTTP\/1\.1 201 /);
    expect(answer).toMatch(/\r\nConnection: close\r\n/i);
    expect(await exitOf(server.child, server.exited)).toBe(0);
    expect(logLines(server).filter((line) => line.msg === 'shutting down')).toEqual([expect.objectContaining({ signal: 'SIGTERM' })]);
    expect(logLines(server).filter((line) => line.level >= 40)).toEqual([]);

    const again = await startInstance({ DATA_DIR: dataDir, DOCS_API_TOKEN: TOKEN });
    try {
      expect(await titles(again)).toContain('answered while shutting down');
    } finally {
      await again.stop();
    }
  }, 120_000);
});

const SPEC = JSON.stringify({ openapi: '3.1.0', info: { title: 'Pets', version: '1.0.0' }, paths: { '/pets': { get: { responses: { '200': { description: 'The pets' } } } } } });

describe.each(runEngines())('past its deadline, on %s', (engine) => {
  test('the server exits with code 1 and one line naming the request and the job it gave up on; every write it answered is there after a restart, and the job is taken up again', async () => {
    const remote = await heldServer({ '/pets.json': { type: 'application/json', body: SPEC } });
    let database: TestDatabase | undefined;
    if (engine === 'postgres') databases.push((database = await createTestDatabase()));
    const env = {
      ...(database ? { DATABASE_URL: database.url } : { DATA_DIR: path.join(scratch, 'deadline') }),
      DOCS_API_TOKEN: TOKEN,
      SHUTDOWN_TIMEOUT_MS: '1500',
      JOB_LEASE_MS: '1500',
      ALLOW_PRIVATE_NETWORKS: 'true',
      // The remote server holds the job's request for as long as the test wants.
      OUTBOUND_TIMEOUT_MS: '120000',
    };
    try {
      const server = await startInstance(env);
      const client = server.client(TOKEN);
      const answered = [];
      for (let i = 0; i < 10; i++) answered.push(ok(await client.POST('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId: 'demo' } }, body: { title: `kept ${i}` } }), 201).title);
      // A job that cannot finish: it waits on the remote server.
      ok(await client.POST('/v1/orgs/{organizationId}/openapi', { params: { path: { organizationId: 'demo' } }, body: { slug: 'pets', source: { url: `${remote.url}/pets.json` } } }), 201);
      await eventually(async () => (remote.held() === 1 ? true : undefined));
      // A request that cannot finish: its body never comes.
      const held = await requestInFlight(server.url, 'never answered');

      server.child.kill('SIGTERM');
      expect(await exitOf(server.child, server.exited)).toBe(1);
      expect(await held.answer).toBe('');
      const gaveUp = logLines(server).filter((line) => line.level >= 50);
      expect(gaveUp).toEqual([
        expect.objectContaining({
          requests: 1,
          jobs: 1,
          logLines: 0,
          msg: 'shutdown did not finish within SHUTDOWN_TIMEOUT_MS (1500 ms): exiting anyway, giving up on 1 request in flight, 1 background job (taken up by the next start or another instance)',
        }),
      ]);

      const again = await startInstance(env);
      try {
        const kept = await titles(again);
        expect(answered.filter((title) => !kept.includes(title))).toEqual([]);
        expect(kept).not.toContain('never answered');
        remote.release();
        const state = async () =>
          ok(await again.client(TOKEN).GET('/v1/orgs/{organizationId}/openapi/{specSlug}', { params: { path: { organizationId: 'demo', specSlug: 'pets' } } })).processingState;
        await eventually(async () => ((await state()) === 'complete' ? true : undefined), EXIT_BOUND_MS);
      } finally {
        await again.stop();
      }
    } finally {
      remote.release();
      await remote.close();
    }
  }, 180_000);
});
