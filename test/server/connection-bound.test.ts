// What one connection may hold (server/http/connection-bound.ts), on a node:http server with small limits: requests
// pipelined within the bound are answered in order, one at a time; one past it closes the connection, the rest unserved
// and mostly not even parsed; what a connection sends reaches the parser a slice at a time, heads and bodies whole; a
// client that reads nothing of a large answer is closed once unreadMs pass without progress (server/docs/limits.md,
// "Requests pipelined on one connection"). test/server/pipelining-bounds.test.ts: the server under thousands of them.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { type AddressInfo, createConnection, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, test } from 'vitest';
import { boundConnections } from '../../server/http/connection-bound.ts';
import { parseInSlices } from '../../server/speed/parse-slices.ts';

const LIMITS = { requests: 4, unreadMs: 400, sliceBytes: 256 };
const LARGE = Buffer.alloc(16 * 1024 * 1024, 'x');

let server: Server;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
});

/**
 * A server bounded by `limits`, what its connections send parsed `sliceBytes` at a time (0: as node:http reads it),
 * from the start unless `engagedMs` is given (then once a connection went past the bound, for that long): `/large` answers 16 MiB, a POST the length and sum of its body's bytes, anything else its path; the paths it served,
 * in order, and the requests node:http parsed (emitted), by connection.
 */
async function bounded(limits = LIMITS, engagedMs?: number): Promise<{ port: number; served: string[]; parsed: Map<Socket, number> }> {
  server = createServer();
  const served: string[] = [];
  const parsed = new Map<Socket, number>();
  server.on('request', (req: IncomingMessage) => parsed.set(req.socket, (parsed.get(req.socket) ?? 0) + 1));
  const { sliceBytes, ...bound } = limits;
  const slices = sliceBytes > 0 ? parseInSlices(sliceBytes, engagedMs) : undefined;
  if (slices) server.on('connection', slices.connection);
  if (engagedMs === undefined) slices?.pastBound([]);
  boundConnections(
    server,
    (req, res) => {
      served.push(req.url!);
      if (req.method === 'POST') {
        let length = 0;
        let sum = 0;
        req.on('data', (chunk: Buffer) => {
          length += chunk.length;
          for (const byte of chunk) sum = (sum + byte) % 65_521;
        });
        req.on('end', () => res.end(`${length} ${sum} ${req.headers['x-long']?.length ?? 0}`));
        return;
      }
      // Answered a moment later, as a handler that reads a database would.
      setTimeout(() => res.end(req.url === '/large' ? LARGE : req.url), 5);
    },
    bound,
    slices?.pastBound,
  );
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { port: (server.address() as AddressInfo).port, served, parsed };
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

  /** 20 connections each writing 2 000 requests at once and reading nothing; the requests parsed of each (the server's sockets). */
  async function flood(port: number, parsed: Map<Socket, number>): Promise<number[]> {
    const before = new Set(parsed.keys());
    let accepted = 0;
    const count = () => accepted++;
    server.on('connection', count);
    const sockets = Array.from({ length: 20 }, () => {
      const socket = createConnection(port, '127.0.0.1');
      socket.on('error', () => undefined);
      socket.pause();
      socket.write(get('/listed').repeat(2000));
      return socket;
    });
    while (accepted < sockets.length) await sleep(10);
    server.off('connection', count);
    expect(await allClosed(30_000)).toBe(0);
    for (const socket of sockets) socket.destroy();
    const counts = [...parsed].filter(([socket]) => !before.has(socket)).map(([, count]) => count);
    expect(counts).toHaveLength(sockets.length);
    return counts;
  }
  const PAST = 32 + 1 + Math.ceil(4096 / get('/listed').length);

  test.for([4096, 0])('connections past the bound, sliceBytes %i: parsed no further than a slice past it once one went past it, else to the end of the chunk they were read in', async (sliceBytes) => {
    const { port, parsed } = await bounded({ ...LIMITS, requests: 32, sliceBytes }, 60_000);
    const counts = await flood(port, parsed);
    // node:http given what it read at once (up to 64 KiB) parses a thousand and more of a connection before the bound
    // closes it: what the slices stand in for, and what tells that node:http no longer parses as they assume. With the
    // slices, only the connection being parsed when the first went past the bound is.
    if (sliceBytes > 0) expect(counts.filter((count) => count > PAST).length).toBeLessThanOrEqual(1);
    else expect(Math.max(...counts)).toBeGreaterThan(PAST);
  });

  test('connections are sliced from when one went past the bound until engagedMs after the last one did', async () => {
    const { port, parsed } = await bounded({ ...LIMITS, requests: 32, sliceBytes: 4096 }, 2000);
    // Before any: the first connection of each flood is parsed whole.
    expect(Math.max(...(await flood(port, parsed)))).toBeGreaterThan(PAST);
    await sleep(2500);
    expect(Math.max(...(await flood(port, parsed)))).toBeGreaterThan(PAST);
    // Within engagedMs of the last: none.
    expect(Math.max(...(await flood(port, parsed)))).toBeLessThanOrEqual(PAST);
  });

  test('a head and a body each longer than a slice reach the handler whole, and requests pipelined behind them are answered', async () => {
    const { port } = await bounded();
    const body = Buffer.alloc(3 * 1024 * 1024);
    for (let index = 0; index < body.length; index++) body[index] = (index * 7) % 251;
    let sum = 0;
    for (const byte of body) sum = (sum + byte) % 65_521;
    const socket = createConnection(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    const long = 'y'.repeat(3000);
    socket.write(`POST /upload HTTP/1.1\r\nHost: x\r\nX-Long: ${long}\r\nContent-Length: ${body.length}\r\n\r\n`);
    socket.write(body);
    socket.write(get('/after') + get('/last', true));
    await once(socket, 'end');
    const bodies = String(Buffer.concat(chunks))
      .split('HTTP/1.1 200 OK\r\n')
      .slice(1)
      .map((answer) => answer.slice(answer.indexOf('\r\n\r\n') + 4));
    expect(bodies).toEqual([`${body.length} ${sum} ${long.length}`, '/after', '/last']);
  });

  test('requests that arrive while an answer is not read wait in the socket, and are answered in order once it is', async () => {
    // Read again well before the unread answer would close the connection.
    const { port, served } = await bounded({ ...LIMITS, unreadMs: 60_000 });
    const socket = createConnection(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.write(get('/large'));
    await once(socket, 'data');
    // The client stops reading: the answer fills the operating system's buffers and node:http pauses the socket as the
    // next request comes, within the slices the three requests span.
    socket.pause();
    await sleep(200);
    const pad = `X-Pad: ${'p'.repeat(LIMITS.sliceBytes)}\r\n`;
    socket.write([get('/2'), get('/3'), get('/4', true)].map((request) => request.replace('\r\n\r\n', `\r\n${pad}\r\n`)).join(''));
    await sleep(200);
    expect(served).toEqual(['/large']);
    socket.resume();
    await once(socket, 'end');
    const text = Buffer.concat(chunks).subarray(LARGE.length).toString();
    expect(text.split('HTTP/1.1 200 OK\r\n').slice(1).map((answer) => answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual(['/2', '/3', '/4']);
    expect(served).toEqual(['/large', '/2', '/3', '/4']);
  });

  test('a client that reads nothing of a large answer is closed after unreadMs; one that reads gets it whole', async () => {
    // 2 s without progress, not 400 ms: on a loaded machine the process that both reads and serves can stall for
    // longer than 400 ms between two reads, and the reader would be closed as if it read nothing.
    const { port } = await bounded({ ...LIMITS, unreadMs: 2000 });
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
