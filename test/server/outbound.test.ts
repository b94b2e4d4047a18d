// Outbound requests made on a user's behalf: timeouts, size limits, redirects, and no loopback or private
// addresses unless allowed.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { readConfig } from '../../server/common/config.ts';
import { listGitOperations } from '../../server/domain/git.ts';
import {
  isGlobalUnicast,
  isInternalAddress,
  isRefusedAddress,
  OutboundError,
  outboundFetch,
  parseAddressRange,
} from '../../server/net/outbound.ts';
import { ACME } from '../support/fixture.ts';
import { expectError, ok } from '../support/expect.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let server: Server;
let base: string;
let rebindHits = 0;
const LOCAL_SPEC = 'openapi: 3.0.3\ninfo:\n  title: Local\n  version: "1"\npaths:\n  /ping:\n    get:\n      responses:\n        "200":\n          description: Pong\n';

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/hello') return res.end('hello');
    if (req.url === '/big') return res.end('x'.repeat(10_000));
    if (req.url === '/redirect') return res.writeHead(302, { location: '/hello' }).end();
    if (req.url === '/loop') return res.writeHead(302, { location: '/loop' }).end();
    if (req.url?.startsWith('/r/')) {
      // /r/<target, base64url>/<rest>: redirects to the target followed by the rest (so Git can append its paths).
      const [, , encoded = '', ...rest] = req.url.split('/');
      const target = Buffer.from(encoded, 'base64url').toString();
      return res.writeHead(302, { location: `${target}${rest.length ? `/${rest.join('/')}` : ''}` }).end();
    }
    if (req.url === '/page.html') return res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>Local</h1><p>Allowed.</p>');
    if (req.url === '/spec.yaml') {
      return res.writeHead(200, { 'content-type': 'application/yaml' }).end(LOCAL_SPEC);
    }
    if (req.url === '/events') return res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    if (req.url?.startsWith('/to?')) {
      const target = new URL(req.url, 'http://x').searchParams.get('target')!;
      return res.writeHead(302, { location: target }).end();
    }
    if (req.url === '/rebind') {
      rebindHits += 1;
      return res.end('reached');
    }
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

describe('which addresses are refused', () => {
  // Every form that does not reach a global unicast address, each with the reason it is refused.
  const refused: [string, string][] = [
    ['127.0.0.1', 'IPv4 loopback'],
    ['127.255.255.254', 'IPv4 loopback, end of the block'],
    ['0.0.0.0', 'IPv4 "this host" (reaches loopback on Linux)'],
    ['0.1.2.3', 'IPv4 "this network"'],
    ['10.0.0.8', 'IPv4 private'],
    ['172.16.0.1', 'IPv4 private, start of 172.16/12'],
    ['172.31.255.255', 'IPv4 private, end of 172.16/12'],
    ['192.168.1.1', 'IPv4 private'],
    ['169.254.169.254', 'IPv4 link-local (cloud metadata)'],
    ['100.64.0.1', 'IPv4 shared address space'],
    ['192.0.0.8', 'IPv4 IETF protocol assignments'],
    ['192.0.2.1', 'IPv4 documentation'],
    ['198.51.100.7', 'IPv4 documentation'],
    ['203.0.113.9', 'IPv4 documentation'],
    ['198.18.0.1', 'IPv4 benchmarking'],
    ['192.88.99.1', 'IPv4 6to4 relay anycast'],
    ['224.0.0.1', 'IPv4 multicast'],
    ['240.0.0.1', 'IPv4 reserved'],
    ['255.255.255.255', 'IPv4 broadcast'],
    ['::', 'IPv6 unspecified'],
    ['::1', 'IPv6 loopback'],
    ['0:0:0:0:0:0:0:1', 'IPv6 loopback, written out'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback, in hex'],
    ['0:0:0:0:0:ffff:a9fe:a9fe', 'IPv4-mapped link-local, written out'],
    ['::ffff:10.0.0.1', 'IPv4-mapped private'],
    ['::127.0.0.1', 'IPv4-compatible (deprecated) loopback'],
    ['::7f00:1', 'IPv4-compatible loopback, in hex'],
    ['::8.8.8.8', 'IPv4-compatible, even of a public address (deprecated, not routed)'],
    ['::ffff:0:127.0.0.1', 'IPv4-translated'],
    ['64:ff9b::a9fe:a9fe', 'NAT64 of 169.254.169.254'],
    ['64:ff9b::127.0.0.1', 'NAT64 of loopback'],
    ['64:ff9b::10.1.2.3', 'NAT64 of a private address'],
    ['64:ff9b:1::808:808', 'local-use NAT64 (64:ff9b:1::/48)'],
    ['2002:7f00:1::1', '6to4 of loopback'],
    ['2002:a9fe:a9fe::', '6to4 of link-local'],
    ['2002:c0a8:101::5', '6to4 of a private address'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
    ['2001:2::1', 'benchmarking'],
    ['2001:10::1', 'ORCHID'],
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation (3fff::/20)'],
    ['fec0::1', 'site-local (deprecated)'],
    ['feff::1', 'site-local, end of fec0::/10'],
    ['fe80::1', 'link-local'],
    ['febf::1', 'link-local, end of fe80::/10'],
    ['fe80::1%eth0', 'link-local with a zone'],
    ['fc00::1', 'unique local'],
    ['fd12:3456::1', 'unique local'],
    ['ff02::1', 'multicast'],
    ['ff05::2', 'site-local multicast'],
    ['100::1', 'discard-only'],
    ['4000::1', 'outside 2000::/3 (not assigned)'],
    ['5f00::1', 'segment routing SIDs'],
    ['localhost', 'not an address'],
    ['0x7f.0.0.1', 'not a canonical address'],
    ['017700000001', 'not a canonical address'],
    ['127.1', 'not a canonical address'],
    ['010.0.0.1', 'leading zero'],
    ['1::2::3', 'two ::'],
    ['1:2:3:4:5:6:7:8:9', 'too many groups'],
    ['', 'empty'],
  ];
  test.each(refused)('%s is refused (%s)', (address) => {
    expect(isInternalAddress(address)).toBe(true);
    expect(isRefusedAddress(address, { allowPrivateNetworks: false })).toBe(true);
    expect(isRefusedAddress(address, { allowPrivateNetworks: true })).toBe(false);
  });

  const global: [string, string][] = [
    ['8.8.8.8', 'public IPv4'],
    ['93.184.216.34', 'public IPv4'],
    ['172.15.255.255', 'just below 172.16/12'],
    ['172.32.0.1', 'just above 172.16/12'],
    ['100.128.0.1', 'just above 100.64/10'],
    ['223.255.255.255', 'just below multicast'],
    ['2001:4860:4860::8888', 'public IPv6'],
    ['2a00:1450:4001:80e::200e', 'public IPv6'],
    ['2001:200::1', 'just above 2001::/23'],
    ['3ffe::1', 'just below 3fff::/20 (6bone, returned: global unicast)'],
    ['::ffff:8.8.8.8', 'IPv4-mapped public address'],
    ['64:ff9b::808:808', 'NAT64 of a public address'],
    ['64:ff9b::8.8.8.8', 'NAT64 of a public address, dotted'],
    ['2002:808:808::1', '6to4 of a public address'],
    ['[2001:4860:4860::8888]', 'bracketed, as in a URL'],
  ];
  test.each(global)('%s is reached (%s)', (address) => {
    expect(isGlobalUnicast(address)).toBe(true);
    expect(isRefusedAddress(address, { allowPrivateNetworks: false })).toBe(false);
  });

  test('the allowed addresses open single addresses and ranges, nothing more', () => {
    const rule = { allowPrivateNetworks: false, allowedAddresses: ['10.1.0.0/16', '192.168.7.7', 'fd00::/8'] };
    expect(isRefusedAddress('10.1.200.3', rule)).toBe(false);
    expect(isRefusedAddress('::ffff:10.1.200.3', rule)).toBe(false);
    expect(isRefusedAddress('10.2.0.1', rule)).toBe(true);
    expect(isRefusedAddress('192.168.7.7', rule)).toBe(false);
    expect(isRefusedAddress('192.168.7.8', rule)).toBe(true);
    expect(isRefusedAddress('fd12::1', rule)).toBe(false);
    expect(isRefusedAddress('fe80::1', rule)).toBe(true);
    expect(isRefusedAddress('127.0.0.1', rule)).toBe(true);
    for (const bad of ['10.0.0.0/33', 'fd00::/129', 'example.com', '10.0.0.1/8/8', '10.0.0.0/x']) {
      expect(() => parseAddressRange(bad)).toThrow(/not an IP address or a CIDR range/);
    }
    // ALLOW_PRIVATE_ADDRESSES: none by default; a list separated by commas; a bad entry stops the start.
    expect(readConfig({}).allowedAddresses).toEqual([]);
    expect(readConfig({ ALLOW_PRIVATE_ADDRESSES: '10.0.5.20, fd00:1::/64,' }).allowedAddresses).toEqual(['10.0.5.20', 'fd00:1::/64']);
    expect(() => readConfig({ ALLOW_PRIVATE_ADDRESSES: '10.0.0.0/8, intranet' })).toThrow(/ALLOW_PRIVATE_ADDRESSES.*"intranet"/);
  });
});

describe('every spelling of a refused address in a URL is refused before connecting', () => {
  // The URL parser reads every IPv4 spelling (hex, octal, dword, short forms) and every IPv6 spelling into one
  // address, which is then refused; nothing listens at these addresses, so a connection would fail differently.
  const urls = [
    'http://127.0.0.1/',
    'http://127.1/',
    'http://0x7f.0.0.1/',
    'http://0x7f000001/',
    'http://2130706433/',
    'http://017700000001/',
    'http://0177.0.0.1/',
    'http://0/',
    'http://0.0.0.0/',
    'http://169.254.169.254/latest/meta-data/',
    'http://0xa9fea9fe/',
    'http://[::1]/',
    'http://[0:0:0:0:0:0:0:1]/',
    'http://[::]/',
    'http://[::127.0.0.1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:169.254.169.254]/',
    'http://[::ffff:0:127.0.0.1]/',
    'http://[64:ff9b::a9fe:a9fe]/',
    'http://[64:ff9b::127.0.0.1]/',
    'http://[64:ff9b:1::a00:1]/',
    'http://[2002:7f00:1::1]/',
    'http://[2002:a9fe:a9fe::1]/',
    'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/',
    'http://[fec0::1]/',
    'http://[fe80::1]/',
    'http://[fd00::1]/',
    'http://[ff02::1]/',
    'https://10.0.0.1/',
    'https://[::1]:8443/',
  ];
  test.each(urls)('%s', async (url) => {
    const error = await failure(outboundFetch(url, { ...allowed, allowPrivateNetworks: false }));
    expect(error.failure).toBe('blocked');
    expect(error.message).toContain('is refused');
  });
});

describe('names are checked at connect time, against the addresses they resolve to', () => {
  const port = () => new URL(base).port;
  const resolveTo =
    (...addresses: string[]) =>
    async () =>
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

  test.each([
    ['127.0.0.1'],
    ['::1'],
    ['::ffff:127.0.0.1'],
    ['64:ff9b::a9fe:a9fe'],
    ['2002:7f00:1::1'],
    ['fec0::1'],
  ])('a name resolving to %s is refused', async (address) => {
    const error = await failure(
      outboundFetch(`http://docs.example.test:${port()}/hello`, { ...allowed, allowPrivateNetworks: false, resolve: resolveTo(address) }),
    );
    expect(error.failure).toBe('blocked');
    expect(error.message).toContain(`resolves to ${address}`);
  });

  test('a name with a public and a private address is refused', async () => {
    const resolve = resolveTo('93.184.216.34', '10.0.0.1');
    const error = await failure(outboundFetch('http://mixed.example.test/', { ...allowed, allowPrivateNetworks: false, resolve }));
    expect(error.failure).toBe('blocked');
  });

  test('the name is resolved once, by the connection itself (no DNS rebinding)', async () => {
    // A name that answers a public address to a first question and loopback afterwards: a check made on an earlier
    // resolution than the connection's would pass, and the connection would reach the loopback server. Here the
    // one resolution is the connection's, so the loopback server is never reached.
    let calls = 0;
    const resolve = async () => [{ address: calls++ === 0 ? '192.88.98.1' : '127.0.0.1', family: 4 }];
    const error = await failure(
      outboundFetch(`http://rebind.example.test:${port()}/rebind`, { ...allowed, timeoutMs: 300, allowPrivateNetworks: false, resolve }),
    );
    expect(['timeout', 'network']).toContain(error.failure);
    expect(calls).toBe(1);
    expect(rebindHits).toBe(0);
  });

  test('a name under .invalid is not looked up (RFC 6761): it fails at once as a name that does not exist, private networks allowed or not', async () => {
    let lookups = 0;
    const resolve = async () => {
      lookups++;
      return [{ address: '127.0.0.1', family: 4 }];
    };
    for (const rule of [allowed, { ...allowed, allowPrivateNetworks: false }]) {
      const error = await failure(outboundFetch(`http://made-up.docs.invalid:${port()}/hello`, { ...rule, resolve }));
      expect(error.failure).toBe('network');
      expect(error.message).toContain('made-up.docs.invalid names no host (.invalid is reserved never to resolve, RFC 6761): not looked up');
    }
    expect(lookups).toBe(0);
  });

  test('allowed private addresses are reached by name too', async () => {
    const response = await outboundFetch(`http://docs.example.test:${port()}/hello`, {
      ...allowed,
      allowPrivateNetworks: false,
      allowedAddresses: ['127.0.0.1'],
      resolve: resolveTo('127.0.0.1'),
    });
    expect(response.body.toString()).toBe('hello');
  });
});

describe('redirects', () => {
  // The local server is allowed by address; where it redirects to is checked like any other address.
  const onlyLocal = { ...allowed, allowPrivateNetworks: false, allowedAddresses: ['127.0.0.1'] };
  const redirectTo = (target: string) => `${base}/to?${new URLSearchParams({ target })}`;

  test('are followed to allowed addresses', async () => {
    const response = await outboundFetch(redirectTo(`${base}/hello`), onlyLocal);
    expect(response.body.toString()).toBe('hello');
    expect(response.url).toBe(`${base}/hello`);
  });

  test.each([
    'http://10.0.0.1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://[::1]/',
    'http://[::127.0.0.1]/',
    'http://[::ffff:127.0.0.2]/',
    'http://[64:ff9b::a9fe:a9fe]/',
    'http://[2002:7f00:1::1]/',
    'http://[fec0::1]/',
    'http://2130706434/',
  ])('are not followed to %s', async (target) => {
    const error = await failure(outboundFetch(redirectTo(target), onlyLocal));
    expect(error.failure).toBe('blocked');
    expect(error.message).toContain('redirected to');
  });

  test('are not followed to a name that resolves to a refused address', async () => {
    const resolve = async () => [{ address: '10.9.8.7', family: 4 }];
    const error = await failure(outboundFetch(redirectTo('http://internal.example.test/'), { ...onlyLocal, resolve }));
    expect(error.failure).toBe('blocked');
    expect(error.message).toContain('resolves to 10.9.8.7');
  });

  test('are bounded', async () => {
    expect((await failure(outboundFetch(`${base}/loop`, { ...onlyLocal, maxRedirects: 3 }))).failure).toBe('redirects');
    expect((await failure(outboundFetch(`${base}/redirect`, { ...onlyLocal, maxRedirects: 0 }))).failure).toBe('redirects');
  });
});

describe('every outbound path of the server follows the rule, redirects included', () => {
  // The server's defaults (ALLOW_PRIVATE_NETWORKS off), with the local test server's address allowed, so that
  // what is refused is where it redirects to, or an address literal in another form.
  let api: TestServer;
  let spaceId: string;
  const via = (target: string) => `${base}/r/${Buffer.from(target).toString('base64url')}`;
  const refusedTargets = ['http://[::127.0.0.1]/', 'http://[64:ff9b::a9fe:a9fe]/', 'http://[2002:7f00:1::1]/', 'http://[fec0::1]/'];

  beforeAll(async () => {
    api = await startTestServer({
      env: { ALLOW_PRIVATE_NETWORKS: 'false', ALLOW_PRIVATE_ADDRESSES: '127.0.0.1', OUTBOUND_TIMEOUT_MS: '2000' },
    });
    spaceId = ok(await api.as('admin').POST('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId: ACME } }, body: { title: 'Imports' } }), 201).id;
  });
  afterAll(() => api?.close());
  const idle = () => api.running.ctx.jobs.idle();

  test('website import: the allowed address is imported; a redirect to a refused one, or a refused literal, is a 400', async () => {
    const importFrom = (url: string) =>
      api.as('editor').POST('/v1/spaces/{spaceId}/content/import', { params: { path: { spaceId } }, body: { url, source: 'website' } });
    ok(await importFrom(`${base}/page.html`), 201);
    const revision = ok(await api.as('admin').GET('/v1/spaces/{spaceId}', { params: { path: { spaceId } } })).revision;
    for (const target of refusedTargets) {
      expectError(await importFrom(via(target)), 400, 'url', 'is refused', 'redirected to');
      expectError(await importFrom(target), 400, 'url', 'is refused');
    }
    expect(ok(await api.as('admin').GET('/v1/spaces/{spaceId}', { params: { path: { spaceId } } })).revision).toBe(revision);
  });

  test('OpenAPI sources: a redirect to a refused address, or a refused literal, is FETCH_ERROR', async () => {
    const organization = { organizationId: ACME };
    const create = (slug: string, url: string) =>
      api.as('admin').POST('/v1/orgs/{organizationId}/openapi', { params: { path: organization }, body: { slug, source: { url } } });
    const state = async (slug: string) =>
      ok(await api.as('admin').GET('/v1/orgs/{organizationId}/openapi/{specSlug}', { params: { path: { ...organization, specSlug: slug } } }));
    ok(await create('allowed', `${base}/spec.yaml`), 201);
    ok(await create('redirected', via(`${refusedTargets[1]}spec.yaml`)), 201);
    ok(await create('literal', `${refusedTargets[2]}spec.yaml`), 201);
    await idle();
    expect(await state('allowed')).toMatchObject({ processingState: 'complete', lastVersion: expect.any(String) });
    expect((await state('allowed')).lastProcessErrorCode).toBeUndefined();
    expect(await state('redirected')).toMatchObject({ processingState: 'complete', lastProcessErrorCode: 'FETCH_ERROR' });
    expect(await state('literal')).toMatchObject({ processingState: 'complete', lastProcessErrorCode: 'FETCH_ERROR' });
  });

  test('integration tunnels: a refused literal is a 400; a delivery redirected to a refused address fails', async () => {
    const name = { integrationName: 'outbound-tunnel' };
    ok(await api.as('admin').POST('/v1/integrations/{integrationName}', { params: { path: name }, body: { title: 'Tunnel' } }));
    const enable = (tunnelUrl: string) =>
      api.as('admin').PUT('/v1/integrations/{integrationName}/dev', { params: { path: name }, body: { tunnelUrl, all: false } });
    for (const target of refusedTargets) expectError(await enable(target), 400, 'tunnelUrl');
    expect((await enable(via(`${refusedTargets[0]}events`))).response.status).toBe(204);
    ok(await api.as('admin').POST('/v1/integrations/{integrationName}/installations', { params: { path: name }, body: { organization: ACME } }), 201);
    await idle();
    const [event] = ok(await api.as('admin').GET('/v1/integrations/{integrationName}/events', { params: { path: name } })).items;
    expect(event!.status).toBe('failed');
    const { trace } = ok(
      await api.as('admin').GET('/v1/integrations/{integrationName}/events/{eventId}', { params: { path: { ...name, eventId: event!.id } } }),
    );
    expect(trace.logs.map((log) => log.message).join('\n')).toContain('is refused');
  });

  test('Git over HTTP: a repository redirected to a refused address is not fetched', async () => {
    const target = via(`${refusedTargets[3]}repository.git`);
    const answer = await api.as('admin').POST('/v1/spaces/{spaceId}/git/import', { params: { path: { spaceId } }, body: { url: target, ref: 'refs/heads/main' } });
    expect(answer.response.status).toBe(204);
    await idle();
    const [operation] = await listGitOperations(api.running.ctx.store.reader, spaceId);
    expect(operation).toMatchObject({ status: 'failed' });
    expect(operation!.error).toContain('is refused');
    expect(ok(await api.as('admin').GET('/v1/spaces/{spaceId}/git/info', { params: { path: { spaceId } } }))).toEqual({});
  });
});
