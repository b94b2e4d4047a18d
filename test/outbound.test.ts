// Outbound requests made on a user's behalf: timeouts, size limits, redirects, and no loopback or private
// addresses unless allowed.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { isInternalAddress, OutboundError, outboundFetch } from '../server/net/outbound.ts';

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/hello') return res.end('hello');
    if (req.url === '/big') return res.end('x'.repeat(10_000));
    if (req.url === '/redirect') return res.writeHead(302, { location: '/hello' }).end();
    if (req.url === '/loop') return res.writeHead(302, { location: '/loop' }).end();
    if (req.url === '/slow') return setTimeout(() => res.end('late'), 2_000);
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const allowed = { timeoutMs: 1_000, maxBytes: 1_000, allowPrivateNetworks: true };

async function failure(promise: Promise<unknown>): Promise<OutboundError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(OutboundError);
  return error as OutboundError;
}

describe('outboundFetch', () => {
  test('fetches and follows redirects', async () => {
    const response = await outboundFetch(`${base}/redirect`, allowed);
    expect(response.status).toBe(200);
    expect(response.body.toString()).toBe('hello');
    expect(response.url).toBe(`${base}/hello`);
  });

  test('refuses loopback and private addresses unless allowed, by IP and by name', async () => {
    const refused = { ...allowed, allowPrivateNetworks: false };
    expect((await failure(outboundFetch(`${base}/hello`, refused))).failure).toBe('blocked');
    const port = new URL(base).port;
    expect((await failure(outboundFetch(`http://localhost:${port}/hello`, refused))).failure).toBe('blocked');
    expect((await failure(outboundFetch('http://10.1.2.3/', refused))).failure).toBe('blocked');
    expect((await failure(outboundFetch('http://[::1]/', refused))).failure).toBe('blocked');
  });

  test('times out, and bounds the size of the answer and the number of redirects', async () => {
    expect((await failure(outboundFetch(`${base}/slow`, { ...allowed, timeoutMs: 200 }))).failure).toBe('timeout');
    expect((await failure(outboundFetch(`${base}/big`, allowed))).failure).toBe('too-large');
    expect((await failure(outboundFetch(`${base}/loop`, allowed))).failure).toBe('redirects');
  });

  test('fetches only absolute http and https addresses', async () => {
    expect((await failure(outboundFetch('file:///etc/passwd', allowed))).failure).toBe('invalid-url');
    expect((await failure(outboundFetch('not a url', allowed))).failure).toBe('invalid-url');
  });

  test('reports an unreachable host as a network failure', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    expect((await failure(outboundFetch(`http://127.0.0.1:${port}/`, allowed))).failure).toBe('network');
  });
});

describe('isInternalAddress', () => {
  test.each([
    ['127.0.0.1', true],
    ['10.0.0.8', true],
    ['172.20.1.1', true],
    ['192.168.1.1', true],
    ['169.254.169.254', true],
    ['100.64.0.1', true],
    ['::1', true],
    ['fd12::1', true],
    ['fe80::1', true],
    ['::ffff:127.0.0.1', true],
    ['8.8.8.8', false],
    ['2001:4860:4860::8888', false],
    ['93.184.216.34', false],
  ])('%s internal: %s', (address, internal) => {
    expect(isInternalAddress(address)).toBe(internal);
  });
});
