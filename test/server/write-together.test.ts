// server/speed/write-together.ts: what the server's connections write during a turn of the event loop is handed to
// the operating system at the end of that turn, and nothing else changes: every byte arrives, in order, through
// backpressure, pipelining, connections destroyed during the turn, and node:http's own answers to what it cannot parse.
import { once } from 'node:events';
import { type AddressInfo, createConnection, createServer, type Server, type Socket } from 'node:net';
import express from 'express';
import { afterEach, describe, expect, test } from 'vitest';
import { appServer } from '../../server/speed/app-server.ts';
import { writeTogether } from '../../server/speed/write-together.ts';
import { checkPhase } from '../support/turns.ts';

const servers: Server[] = [];
const sockets: Socket[] = [];
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const server of servers.splice(0)) server.close();
});

/** A TCP server whose connections write together, and `count` clients connected to it: [server side, client side]. */
async function connected(count: number): Promise<[Socket, Socket][]> {
  const accepted: Socket[] = [];
  const server = createServer((socket) => {
    writeTogether(socket);
    accepted.push(socket);
    sockets.push(socket);
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const clients: Socket[] = [];
  for (let index = 0; index < count; index++) {
    const client = createConnection(port, '127.0.0.1');
    sockets.push(client);
    await once(client, 'connect');
    clients.push(client);
  }
  while (accepted.length < count) await checkPhase();
  return accepted.map((socket, index) => [socket, clients[index]!]);
}

/** Everything `client` receives until the other side ends. */
async function received(client: Socket): Promise<Buffer> {
  const chunks: Buffer[] = [];
  client.on('data', (chunk: Buffer) => chunks.push(chunk));
  await once(client, 'end');
  return Buffer.concat(chunks);
}

describe('writeTogether', () => {
  test('the writes of one turn, on several connections, reach the operating system when the turn ends', async () => {
    const pairs = await connected(3);
    const arriving = pairs.map(([, client]) => received(client));
    pairs.forEach(([socket], index) => socket.write(`answer ${index}`));
    // Held by each stream: nothing was handed to the operating system yet.
    expect(pairs.map(([socket]) => socket.writableLength)).toEqual([8, 8, 8]);
    await checkPhase();
    expect(pairs.map(([socket]) => socket.writableLength)).toEqual([0, 0, 0]);
    pairs.forEach(([socket]) => socket.end());
    expect((await Promise.all(arriving)).map(String)).toEqual(['answer 0', 'answer 1', 'answer 2']);
  });

  test('a socket without it hands a write over at once (what the test above tells apart)', async () => {
    const server = createServer();
    servers.push(server);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const client = createConnection((server.address() as AddressInfo).port, '127.0.0.1');
    const [socket] = (await once(server, 'connection')) as [Socket];
    sockets.push(client, socket);
    socket.write('answer');
    expect(socket.writableLength).toBe(0);
    socket.end();
    expect(String(await received(client))).toBe('answer');
  });

  test('many writes and a body larger than the socket takes at once arrive whole and in order, then the end', async () => {
    const [[socket, client]] = (await connected(1)) as [[Socket, Socket]];
    const arriving = received(client);
    const parts: Buffer[] = [];
    for (let index = 0; index < 500; index++) parts.push(Buffer.from(`part ${index};`));
    parts.push(Buffer.alloc(8 * 1024 * 1024, 7));
    for (let index = 0; index < 500; index++) parts.push(Buffer.from(`after ${index};`));
    let accepted = true;
    for (const part of parts) accepted = socket.write(part) && accepted;
    // 8 MiB is past the stream's high-water mark: backpressure is signalled as before, then drains.
    expect(accepted).toBe(false);
    await once(socket, 'drain');
    socket.end();
    expect((await arriving).equals(Buffer.concat(parts))).toBe(true);
  });

  test('a connection destroyed during the turn first hands over what it wrote; the others still wait for the turn', async () => {
    const pairs = await connected(3);
    const arriving = pairs.map(([, client]) => received(client));
    pairs.forEach(([socket], index) => socket.write(`answer ${index}`));
    pairs[1]![0].destroy();
    expect(pairs.map(([socket]) => socket.writableLength)).toEqual([8, 0, 8]);
    await checkPhase();
    pairs[0]![0].end();
    pairs[2]![0].end();
    expect((await Promise.all(arriving)).map(String)).toEqual(['answer 0', 'answer 1', 'answer 2']);
  });

  test('the app server answers what it cannot parse, as node:http does: 400, or 431 for headers too large', async () => {
    const http = appServer();
    servers.push(http.server);
    http.server.on('connection', (socket: Socket) => sockets.push(socket));
    http.serve(express());
    http.server.listen(0, '127.0.0.1');
    await once(http.server, 'listening');
    const { port } = http.server.address() as AddressInfo;
    const answer = async (raw: string) => {
      const socket = createConnection(port, '127.0.0.1');
      sockets.push(socket);
      socket.on('error', () => {});
      const arriving = received(socket);
      socket.write(raw);
      return String(await arriving).split('\r\n')[0];
    };
    expect(await answer('NOT HTTP\r\n\r\n')).toBe('HTTP/1.1 400 Bad Request');
    expect(await answer('GET / HTTP/1.1\r\nHost: x\r\nNo colon\r\n\r\n')).toBe('HTTP/1.1 400 Bad Request');
    expect(await answer(`GET / HTTP/1.1\r\nHost: x\r\nX-Long: ${'a'.repeat(20_000)}\r\n\r\n`)).toBe('HTTP/1.1 431 Request Header Fields Too Large');
  });

  test("the app server's answers to pipelined and concurrent requests come whole and in order", async () => {
    const app = express();
    app.disable('x-powered-by');
    app.get('/echo/:n', (req, res) => {
      res.json({ n: Number(req.params.n), padding: 'x'.repeat(Number(req.params.n) * 97) });
    });
    const http = appServer();
    servers.push(http.server);
    http.server.on('connection', (socket: Socket) => sockets.push(socket));
    http.serve(app);
    http.server.listen(0, '127.0.0.1');
    await once(http.server, 'listening');
    const { port } = http.server.address() as AddressInfo;

    // 30 requests pipelined on one connection, sent in one write: 30 answers, in the order asked.
    const socket = createConnection(port, '127.0.0.1');
    sockets.push(socket);
    await once(socket, 'connect');
    const requests = Array.from({ length: 30 }, (_, n) => `GET /echo/${n} HTTP/1.1\r\nHost: x\r\n\r\n`).join('');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.write(`${requests}GET /echo/30 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    await once(socket, 'end');
    const bodies = String(Buffer.concat(chunks))
      .split('HTTP/1.1 200 OK\r\n')
      .slice(1)
      .map((answer) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { n: number; padding: string });
    expect(bodies.map((body) => body.n)).toEqual(Array.from({ length: 31 }, (_, n) => n));
    expect(bodies.every((body) => body.padding.length === body.n * 97)).toBe(true);

    // 20 concurrent requests on their own connections.
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, n) => fetch(`http://127.0.0.1:${port}/echo/${n}`).then((response) => response.json())),
    );
    expect(answers.map((answer) => (answer as { n: number }).n)).toEqual(Array.from({ length: 20 }, (_, n) => n));
  });
});
