// Every connection bounded (server/docs/limits.md, "Requests pipelined on one connection"): clients that pipeline
// thousands of requests and read nothing, with a token or not, GET or HEAD, grow the server (as `npm start` runs it, each
// engine, the run's SPEEDUPS_OFF) by a bounded amount per connection; each is closed past the bound, its requests unserved
// and (slices on) parsed no further than a slice past it; a well-behaved client is answered throughout. Asserted: RSS at
// the peak less before, per connection, with a margin; the requests node:http parsed per connection: never a time.
// @needs processes slow
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createConnection, type Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestDatabase, runEngines, type TestDatabase } from '../support/databases.ts';
import { type Instance, startInstance } from '../support/instances.ts';
import type { IncomingMessage } from 'node:http';
import { readConfig } from '../../server/common/config.ts';
import { PIPELINE_LIMITS } from '../../server/http/connection-bound.ts';
import { SLICE_BYTES } from '../../server/speed/parse-slices.ts';
import { startServer } from '../../server/start/server.ts';

/** Connections that pipeline and read nothing, at once. */
const CONNECTIONS = 40;
/** Requests each writes, in one go. */
const REQUESTS = 2000;
/**
 * What a connection may grow the server by, at most: several times what the bound's requests and their answers hold
 * (a few kB each), for the noise of a process's RSS. Without the bound a connection held every answer it had been
 * sent: megabytes (the test fails so, its connections never closed).
 */
const PER_CONNECTION_KB = 2048;
/** How long the server may take to close them all: a bound on the test, never a measure. */
const CLOSED_WITHIN_MS = 60_000;
const TOKEN = 'pipelining-admin';
const spaces = '/v1/orgs/demo/spaces';
/** What the well-behaved client asks for: another operation, so that the log tells its answers from the attackers'. */
const organization = '/v1/orgs/demo';

const rssKb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);

/** The requests to `path` with `method` the instance logged as answered, from its `from`-th character of output on. */
function answeredIn(instance: Instance, from: number, method: string, path: string): number {
  let count = 0;
  // The last line may be half written: only whole lines are read.
  for (const line of instance.output().slice(from).split('\n').slice(0, -1)) {
    if (!line.startsWith('{')) continue;
    const entry = JSON.parse(line) as { msg?: string; method?: string; path?: string };
    if (entry.msg === 'request' && entry.method === method && entry.path === path) count++;
  }
  return count;
}

/** The status line of the answer to `request`, sent alone on a connection of its own. */
async function firstLine(host: string, port: number, request: string): Promise<string> {
  const socket = createConnection({ host, port });
  try {
    socket.write(request);
    const [chunk] = (await once(socket, 'data')) as [Buffer];
    return String(chunk).slice(0, 12);
  } finally {
    socket.destroy();
  }
}

interface Way {
  name: string;
  method: 'GET' | 'HEAD';
  token: boolean;
  status: number;
}

const WAYS: Way[] = [
  { name: 'anonymous GETs (401)', method: 'GET', token: false, status: 401 },
  { name: 'GETs with a valid token', method: 'GET', token: true, status: 200 },
  { name: 'HEADs with a valid token', method: 'HEAD', token: true, status: 200 },
];

/** Statuses of the well-behaved client, by status. */
type Statuses = Record<number, number>;

/**
 * The load on `instance`: CONNECTIONS connections each writing REQUESTS pipelined requests of `way` and reading
 * nothing, while a well-behaved client asks on its own connection. Resolves once the server has closed them all.
 */
async function load(instance: Instance, way: Way): Promise<{ growthKb: number; accepted: number; polite: Statuses }> {
  const { hostname, port } = new URL(instance.url);
  const headers = way.token ? `Authorization: Bearer ${TOKEN}\r\n` : '';
  const request = `${way.method} ${spaces} HTTP/1.1\r\nHost: ${hostname}:${port}\r\n${headers}\r\n`;
  // The request the attackers send, sent once, is answered as the way says.
  expect(await firstLine(hostname, Number(port), request)).toBe(`HTTP/1.1 ${way.status}`);
  const burst = Buffer.from(request.repeat(REQUESTS));

  let asking = true;
  const polite: Statuses = {};
  const politeDone = (async () => {
    for (let count = 0; asking && count < 20_000; count++) {
      const ask = () => fetch(`${instance.url}${organization}`, { headers: { authorization: `Bearer ${TOKEN}` } });
      // A kept-alive connection the server closed as the request left is asked again on a new one, as clients do.
      const answer = await ask().catch(ask);
      await answer.arrayBuffer();
      polite[answer.status] = (polite[answer.status] ?? 0) + 1;
      await sleep(10);
    }
  })();
  await sleep(300);

  const before = rssKb(instance.pid);
  let peak = before;
  const sample = setInterval(() => (peak = Math.max(peak, rssKb(instance.pid))), 20);
  const sockets: Socket[] = [];
  let accepted = 0;
  let closed = 0;
  try {
    for (let index = 0; index < CONNECTIONS; index++) {
      const socket = createConnection({ host: hostname, port: Number(port) });
      // Reads nothing: what the server answers stays in the operating system's buffers, then in the server's.
      socket.pause();
      socket.on('error', () => undefined);
      socket.once('connect', () => {
        accepted++;
        socket.write(burst);
      });
      // A paused socket learns that the server closed it when its write fails, or at its end.
      socket.once('close', () => closed++);
      sockets.push(socket);
    }
    // Each is closed by the server once it holds more than the bound's requests: the client learns it as a reset.
    const deadline = Date.now() + CLOSED_WITHIN_MS;
    while (closed < CONNECTIONS && Date.now() < deadline) {
      await sleep(50);
      // A write once the server has closed the connection fails, and closes it here.
      for (const socket of sockets) if (!socket.destroyed && socket.readyState === 'open') socket.write('\r\n');
    }
    expect(accepted).toBe(CONNECTIONS);
    expect(closed).toBe(CONNECTIONS);
    peak = Math.max(peak, rssKb(instance.pid));
  } finally {
    clearInterval(sample);
    for (const socket of sockets) socket.destroy();
    asking = false;
    await politeDone;
  }
  return { growthKb: peak - before, accepted, polite };
}

const scratch = mkdtempSync(path.join(os.tmpdir(), 'pipelining-bounds-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe.for(runEngines())('connections that pipeline and read nothing, on %s', (engine) => {
  let instance: Instance;
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    if (engine === 'postgres') database = await createTestDatabase({ empty: true });
    instance = await startInstance({
      DATA_DIR: mkdtempSync(path.join(scratch, `${engine}-`)),
      ...(database ? { DATABASE_URL: database.url } : {}),
      DOCS_API_TOKEN: TOKEN,
      LOG_REQUESTS: '1',
    });
  }, 60_000);
  afterAll(async () => {
    await instance?.stop();
    await database?.drop();
  });

  test.for(WAYS)('$name: bounded growth per connection, each closed, a well-behaved client answered', { timeout: 240_000 }, async (way) => {
    const logged = instance.output().length;
    const { growthKb, polite } = await load(instance, way);
    // At most one request of each connection was answered (served one at a time, as a rule none: each is closed
    // before its first answer leaves); the rest of each one's thousands were never served.
    const served = answeredIn(instance, logged, way.method, spaces);
    expect(served).toBeLessThanOrEqual(CONNECTIONS);
    expect(growthKb / CONNECTIONS).toBeLessThan(PER_CONNECTION_KB);
    // The well-behaved client was answered throughout, never refused.
    expect(Object.keys(polite)).toEqual(['200']);
  });
});

describe.for(['', 'all'])('the requests parsed of connections past the bound, in process, SPEEDUPS_OFF=%s', (off) => {
  test.for(WAYS.filter((way) => way.method === 'GET'))('$name: one slice past the bound at most once one went past it (with the slices off, the thousand of a chunk)', { timeout: 120_000 }, async (way) => {
    const running = await startServer(readConfig({ PORT: '0', DATA_DIR: ':memory:', LOG_LEVEL: 'silent', DOCS_API_TOKEN: TOKEN, SPEEDUPS_OFF: off }));
    try {
      const parsed = new Map<Socket, number>();
      running.server.on('request', (req: IncomingMessage) => parsed.set(req.socket, (parsed.get(req.socket) ?? 0) + 1));
      const { hostname, port } = new URL(running.url);
      const request = `GET ${spaces} HTTP/1.1\r\nHost: ${hostname}:${port}\r\n${way.token ? `Authorization: Bearer ${TOKEN}\r\n` : ''}\r\n`;
      let closed = 0;
      const sockets = Array.from({ length: CONNECTIONS }, () => {
        const socket = createConnection({ host: hostname, port: Number(port) });
        socket.pause();
        socket.on('error', () => undefined);
        socket.once('connect', () => socket.write(request.repeat(REQUESTS)));
        socket.once('close', () => closed++);
        return socket;
      });
      const deadline = Date.now() + CLOSED_WITHIN_MS;
      while (closed < CONNECTIONS && Date.now() < deadline) {
        await sleep(50);
        for (const socket of sockets) if (!socket.destroyed && socket.readyState === 'open') socket.write('\r\n');
      }
      expect(closed).toBe(CONNECTIONS);
      expect(parsed.size).toBe(CONNECTIONS);
      // Given 64 KiB at once, node:http parsed about a thousand of each before the bound closed it.
      const most = PIPELINE_LIMITS.requests + 1 + Math.ceil(SLICE_BYTES / request.length);
      // With the slices (server/speed/parse-slices.ts), only the connection being parsed when the first went past the
      // bound is parsed to the end of its chunk; without them, each is.
      const whole = [...parsed.values()].filter((count) => count > most).length;
      if (off === '') expect(whole).toBeLessThanOrEqual(1);
      else expect(whole).toBeGreaterThan(1);
      for (const socket of sockets) socket.destroy();
    } finally {
      await running.close();
    }
  });
});
