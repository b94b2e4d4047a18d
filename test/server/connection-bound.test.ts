// What one connection may hold (server/http/connection-bound.ts), on a node:http server with small limits: requests
// pipelined within the bound are answered in order, one at a time; one past it closes the connection, the rest unserved; a client
// that reads nothing of a large answer is closed once unreadMs pass without progress, and one that reads gets it
// whole (server/docs/limits.md, "Requests pipelined on one connection"). test/server/pipelining-bounds.test.ts holds
// the server's memory under thousands of such connections.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, createConnection } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, test } from 'vitest';
import { boundConnections } from '../../server/http/connection-bound.ts';

const LIMITS = { requests: 4, unreadMs: 400 };
const LARGE = Buffer.alloc(16 * 1024 * 1024, 'x');

let server: Server;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
});

/** A server bounded by LIMITS: `/large` answers 16 MiB, anything else its path; the paths it served, in order. */
async function bounded(): Promise<{ port: number; served: string[] }> {
  server = createServer();
  const served: string[] = [];
  boundConnections(
    server,
    (req, res) => {
      served.push(req.url!);
      // Answered a moment later, as a handler that reads a database would.
      setTimeout(() => res.end(req.url === '/large' ? LARGE : req.url), 5);
    },
    LIMITS,
  );
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { port: (server.address() as AddressInfo).port, served };
}

const connections = () => new Promise<number>((resolve, reject) => server.getConnections((error, count) => (error ? reject(error) : resolve(count))));

/** Waits until the server holds no connection, at most `ms` (a bound on the test, not a measure). */
async function allClosed(ms: number): Promise<number> {
  const deadline = Date.now() + ms;
  while ((await connections()) > 0 && Date.now() < deadline) await sleep(20);
  return connections();
}

const get = (path: string, last = false) => `GET ${path} HTTP/1.1\r\nHost: x\r\n${last ? 'Connection: close\r\n' : ''}\r\n`;

describe('one connection bounded', () => {
  test('requests pipelined within the bound are answered, in order', async () => {
    const { port } = await bounded();
    const socket = createConnection(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.write(get('/1') + get('/2') + get('/3') + get('/4', true));
    await once(socket, 'end');
    const bodies = String(Buffer.concat(chunks))
      .split('HTTP/1.1 200 OK\r\n')
      .slice(1)
      .map((answer) => answer.slice(answer.indexOf('\r\n\r\n') + 4));
    expect(bodies).toEqual(['/1', '/2', '/3', '/4']);
  });

  test('a request past the bound closes its connection; those past it are not served', async () => {
    const { port, served } = await bounded();
    const accepted = once(server, 'connection');
    const socket = createConnection(port, '127.0.0.1');
    socket.on('error', () => undefined);
    socket.write(Array.from({ length: 200 }, (_, n) => get(`/${n}`)).join(''));
    await accepted;
    expect(await allClosed(10_000)).toBe(0);
    // One at a time: the first was being answered when the fifth came; those waiting were dropped with it.
    expect(served).toEqual(['/0']);
    socket.destroy();
  });

  test('a client that reads nothing of a large answer is closed after unreadMs; one that reads gets it whole', async () => {
    const { port } = await bounded();
    const reader = createConnection(port, '127.0.0.1');
    let read = 0;
    reader.on('data', (chunk: Buffer) => (read += chunk.length));
    reader.write(get('/large', true));
    const idle = createConnection(port, '127.0.0.1');
    idle.on('error', () => undefined);
    idle.pause();
    idle.write(get('/large'));
    await once(reader, 'end');
    expect(read).toBeGreaterThan(LARGE.length);
    // The idle one: its answer does not fit the operating system's buffers, and nothing of it is taken.
    expect(await allClosed(10_000)).toBe(0);
    idle.destroy();
  });
});
