// server/speed/json-answer.ts: the server's res.json answers with the very bytes Express's res.json gives (status,
// headers in their order and case, body), over a raw socket, for every kind of answer: plain JSON, a page fitPage
// serialised, an answer kept as bytes, HEAD, conditional requests, a Content-Type or ETag set before, 204 and 304, no JSON at all; and
// Express's settings that change the JSON. Only the Date header, which is the time, is left out.
import { createConnection } from 'node:net';
import type { AddressInfo } from 'node:net';
import express, { type Express, type Request, type Response } from 'express';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { appServer } from '../../server/speed/app-server.ts';
import { installJsonAnswer } from '../../server/speed/json-answer.ts';
import { immutableBody } from '../../server/http/immutable-bodies.ts';
import { CONTINUE_AFTER } from '../../server/common/paging.ts';
import { fitPage } from '../../server/http/pagination.ts';

interface Case {
  name: string;
  body: () => unknown;
  method?: string;
  status?: number;
  /** Headers the handler sets before res.json. */
  set?: Record<string, string>;
  /** Headers of the request. */
  request?: Record<string, string>;
}

const big = { items: Array.from({ length: 300 }, (_, i) => ({ id: `item-${i}`, title: `Título ${i} ✓`, nested: { n: i, ok: i % 2 === 0 } })) };
const page = () => fitPage({ items: [{ id: 'a' }, { id: 'b' }], count: 2, [CONTINUE_AFTER]: () => ({ page: 'next' }) });
/** An answer kept and sent again (its JSON kept as bytes), with non-ASCII text: Content-Length counts bytes. */
const kept = immutableBody({ id: 'kept', title: 'Révision ✓ 📄', pages: [{ id: 'p', title: 'Été' }] });

const CASES: Case[] = [
  { name: 'an object', body: () => ({ id: 'x', title: 'Hello', n: 1, list: [1, 2], none: null }) },
  { name: 'a large object with non-ASCII text', body: () => big },
  { name: 'a page fitPage serialised', body: page },
  { name: 'an array', body: () => [1, 'two', { three: 3 }] },
  { name: 'a string', body: () => 'text' },
  { name: 'a number', body: () => 42 },
  { name: 'null', body: () => null },
  { name: 'no JSON (undefined)', body: () => undefined },
  { name: 'an error status', body: () => ({ error: { code: 404, message: 'not found' } }), status: 404 },
  { name: 'a created answer with a Location header', body: () => ({ id: 'n' }), status: 201, set: { Location: '/v1/x/n' } },
  { name: 'HEAD', body: () => ({ id: 'x' }), method: 'HEAD' },
  { name: 'If-None-Match: *', body: () => ({ id: 'x' }), request: { 'if-none-match': '*' } },
  { name: 'If-None-Match with an ETag set', body: () => ({ id: 'x' }), set: { ETag: '"v1"' }, request: { 'if-none-match': '"v1"' } },
  { name: 'If-Modified-Since with Last-Modified set', body: () => ({ id: 'x' }), set: { 'Last-Modified': 'Mon, 02 Jan 2006 15:04:05 GMT' }, request: { 'if-modified-since': 'Tue, 03 Jan 2006 15:04:05 GMT' } },
  { name: 'a Content-Type set before', body: () => ({ id: 'x' }), set: { 'Content-Type': 'application/problem+json' } },
  { name: 'a page with a Content-Type set before', body: page, set: { 'Content-Type': 'application/vnd.list+json' } },
  { name: 'an answer kept as bytes', body: () => kept },
  { name: 'an answer kept as bytes, HEAD', body: () => kept, method: 'HEAD' },
  { name: 'an answer kept as bytes, If-None-Match: *', body: () => kept, request: { 'if-none-match': '*' } },
  { name: 'an answer kept as bytes with a Content-Type set before', body: () => kept, set: { 'Content-Type': 'application/vnd.kept+json' } },
  { name: 'status 204', body: () => ({ id: 'x' }), status: 204 },
  { name: 'status 304', body: () => ({ id: 'x' }), status: 304 },
];

/** An app answering each case at /<index>, as the server's app is set up, with or without the server's res.json. */
function appFor(withServerJson: boolean, configure: (app: Express) => void) {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  configure(app);
  if (withServerJson) installJsonAnswer(app);
  CASES.forEach((entry, index) => {
    app.all(`/${index}`, (_req: Request, res: Response) => {
      if (entry.set) res.set(entry.set);
      res.status(entry.status ?? 200).json(entry.body());
    });
  });
  const http = appServer();
  http.serve(app);
  return http.server;
}

/** The raw answer to one request on a new connection, without its Date header. */
function rawAnswer(port: number, entry: Case, index: number): Promise<string> {
  const headers = { host: 'localhost', connection: 'close', ...entry.request };
  const request = `${entry.method ?? 'GET'} /${index} HTTP/1.1\r\n${Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n`;
  return new Promise((resolve, reject) => {
    const socket = createConnection(port, '127.0.0.1', () => socket.write(request));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8').replace(/^Date: .*\r\n/m, '')));
    socket.on('error', reject);
  });
}

const SETUPS: { name: string; configure: (app: Express) => void }[] = [
  { name: "the server's settings", configure: () => {} },
  { name: 'ETags on', configure: (app) => app.set('etag', 'weak') },
  { name: 'json spaces', configure: (app) => app.set('json spaces', 2) },
  { name: 'json escape', configure: (app) => app.set('json escape', true) },
  { name: 'json replacer', configure: (app) => app.set('json replacer', (_key: string, value: unknown) => (value === 1 ? 'one' : value)) },
];

for (const setup of SETUPS) {
  describe(`res.json, with ${setup.name}`, () => {
    const servers = { express: appFor(false, setup.configure), server: appFor(true, setup.configure) };
    const ports = { express: 0, server: 0 };
    beforeAll(async () => {
      for (const key of ['express', 'server'] as const) {
        await new Promise<void>((resolve) => servers[key].listen(0, '127.0.0.1', resolve));
        ports[key] = (servers[key].address() as AddressInfo).port;
      }
    });
    afterAll(() => Promise.all(Object.values(servers).map((server) => new Promise((resolve) => server.close(resolve)))));

    CASES.forEach((entry, index) => {
      test(`${entry.name}: the same bytes as Express's`, async () => {
        const [fromExpress, fromServer] = await Promise.all([rawAnswer(ports.express, entry, index), rawAnswer(ports.server, entry, index)]);
        expect(fromExpress).toMatch(/^HTTP\/1\.1 \d{3} /); // a real answer, not an empty read
        expect(fromServer).toBe(fromExpress);
      });
    });
  });
}

test('the plain answers are written by the server, not by Express (its res.send is not called)', async () => {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  installJsonAnswer(app);
  let sends = 0;
  const send = app.response.send;
  app.response.send = function (this: Response, ...args: Parameters<typeof send>) {
    sends++;
    return send.apply(this, args);
  };
  app.get('/plain', (_req: Request, res: Response) => void res.json({ id: 'x' }));
  app.get('/page', (_req: Request, res: Response) => void res.json(page()));
  app.get('/typed', (_req: Request, res: Response) => void res.type('application/problem+json').json({ id: 'x' }));
  const http = appServer();
  http.serve(app);
  await new Promise<void>((resolve) => http.server.listen(0, '127.0.0.1', resolve));
  try {
    const base = `http://127.0.0.1:${(http.server.address() as AddressInfo).port}`;
    expect(await (await fetch(`${base}/plain`)).json()).toEqual({ id: 'x' });
    expect(await (await fetch(`${base}/page`)).json()).toEqual({ items: [{ id: 'a' }, { id: 'b' }], count: 2 });
    expect(sends).toBe(0);
    expect(await (await fetch(`${base}/typed`)).json()).toEqual({ id: 'x' });
    expect(sends).toBe(1);
  } finally {
    await new Promise((resolve) => http.server.close(resolve));
  }
});
