// Outbound HTTPS as users meet it: every feature that calls out, against a local TLS server whose certificate a
// test CA signed (trusted through NODE_EXTRA_CA_CERTS), and refusing a self-signed certificate and one signed for
// another name before any HTTP request.
// The features, and how the server and certificates are made: test/README.md, "Outbound TLS".
// @needs tls processes
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import { createServer as createHttpsServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import git from 'isomorphic-git';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createDocsClient, type DocsClient } from '../../client/index.ts';
import { gitHttpHandler } from '../../conformance/runner/git-http.ts';
import { createBareRepository, type LocalRepository } from '../../conformance/runner/fixtures.ts';
import { repoRoot } from '../support/repo.ts';

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'outbound-tls-'));
const file = (name: string) => path.join(scratch, name);
const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: scratch, stdio: ['ignore', 'ignore', 'pipe'] });

/** A key and a certificate for `names` (subjectAltName entries), signed by the test CA, or self-signed. */
function certificate(name: string, names: string, signer: 'ca' | 'self'): { key: Buffer; cert: Buffer } {
  fs.writeFileSync(file(`${name}.ext`), `subjectAltName=${names}\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n`);
  if (signer === 'self') {
    openssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2', '-subj', `/CN=${name}`, '-addext', `subjectAltName=${names}`, '-keyout', `${name}.key`, '-out', `${name}.pem`);
  } else {
    openssl('req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-subj', `/CN=${name}`, '-keyout', `${name}.key`, '-out', `${name}.csr`);
    openssl('x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '2', '-extfile', `${name}.ext`, '-out', `${name}.pem`);
  }
  return { key: fs.readFileSync(file(`${name}.key`)), cert: fs.readFileSync(file(`${name}.pem`)) };
}

const PAGES: Record<string, string> = {
  '/docs/': '<html><head><title>TLS docs</title></head><body><h1>TLS docs</h1><p>Read the <a href="guide">guide</a>.</p></body></html>',
  '/docs/guide': '<html><head><title>Guide</title></head><body><h1>Guide</h1><p>Fetched over HTTPS.</p></body></html>',
};
const OPENAPI = JSON.stringify({
  openapi: '3.1.0',
  info: { title: 'TLS pets', version: '1.0.0' },
  paths: { '/pets': { get: { operationId: 'listPets', responses: { '200': { description: 'The pets.' } } } } },
});

interface TlsSite {
  url: string;
  server: Server;
  /** HTTP requests that reached it (path), and TLS handshakes that failed. */
  requests: string[];
  handshakeFailures: string[];
  deliveries: string[];
}

/** An HTTPS server with the website, the OpenAPI document, the tunnel and (when given) a Git repository. */
async function tlsSite(credentials: { key: Buffer; cert: Buffer }, gitdir?: string): Promise<TlsSite> {
  const site = { requests: [], handshakeFailures: [], deliveries: [] } as unknown as TlsSite;
  const gitHttp = gitdir ? gitHttpHandler(gitdir, '/git/repository.git') : undefined;
  const server = createHttpsServer(credentials, async (req, res) => {
    const pathname = new URL(req.url ?? '/', 'https://site').pathname;
    site.requests.push(pathname);
    if (gitHttp && (await gitHttp(req, res))) return;
    if (pathname === '/tunnel') {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        site.deliveries.push(Buffer.concat(chunks).toString('utf8'));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
      return;
    }
    if (pathname === '/openapi.json') return void res.writeHead(200, { 'content-type': 'application/json' }).end(OPENAPI);
    const page = PAGES[pathname];
    if (!page) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
  });
  server.on('tlsClientError', (error) => site.handshakeFailures.push(error.message));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  site.server = server;
  site.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return site;
}

let trusted: TlsSite;
let selfSigned: TlsSite;
let otherName: TlsSite;
let repository: LocalRepository;
let child: ChildProcess;
let client: DocsClient;
const TOKEN = 'tls-token';

beforeAll(async () => {
  openssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2', '-subj', '/CN=docs-platform test CA', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign', '-keyout', 'ca.key', '-out', 'ca.pem');
  repository = await createBareRepository();
  trusted = await tlsSite(certificate('trusted', 'IP:127.0.0.1,DNS:localhost', 'ca'), repository.url);
  selfSigned = await tlsSite(certificate('self-signed', 'IP:127.0.0.1,DNS:localhost', 'self'), repository.url);
  otherName = await tlsSite(certificate('other-name', 'DNS:other.test', 'ca'), repository.url);

  // The server, from its sources, trusting the test CA; allowed to call 127.0.0.1 only. It tells its address over IPC.
  child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: repoRoot,
    env: {
      ...process.env,
      NODE_EXTRA_CA_CERTS: file('ca.pem'),
      PORT: '0',
      DATA_DIR: file('data'),
      DOCS_API_TOKEN: TOKEN,
      ALLOW_PRIVATE_ADDRESSES: '127.0.0.1',
      LOG_LEVEL: 'silent',
    },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk));
  const url = await new Promise<string>((resolve, reject) => {
    child.once('message', (message) => resolve((message as { url: string }).url));
    child.once('exit', (code) => reject(new Error(`the server exited with ${code}: ${stderr}`)));
  });
  client = createDocsClient({ baseUrl: url, token: TOKEN });
}, 60_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  for (const site of [trusted, selfSigned, otherName]) await new Promise((resolve) => site?.server.close(resolve));
  repository?.remove();
  fs.rmSync(scratch, { recursive: true, force: true });
});

const demo = { params: { path: { organizationId: 'demo' } } };
const until = async <T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> => {
  for (let attempt = 0; attempt < 200; attempt++) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${what} did not happen`);
};
const newSpace = async (title: string) => {
  const { data } = await client.POST('/v1/orgs/{organizationId}/spaces', { ...demo, body: { title } });
  return data!.id;
};

/**
 * Every refused site: handshakes failed, no HTTP request ever reached it. The site learns of a failed handshake a
 * moment after the server that refused it may have answered its client: waited for, not read at once.
 */
async function expectRefusedOnly(site: TlsSite, failures: number) {
  await until(async () => site.handshakeFailures.length, (count) => count >= failures, `${failures} refused handshakes`);
  expect(site.requests).toEqual([]);
}

describe('outbound HTTPS with a CA the server trusts through NODE_EXTRA_CA_CERTS', () => {
  test('website import: the trusted site is imported; a self-signed certificate and one for another name are a 400 naming url', async () => {
    const spaceId = await newSpace('Imported over HTTPS');
    const imported = await client.POST('/v1/spaces/{spaceId}/content/import', { params: { path: { spaceId } }, body: { url: `${trusted.url}/docs/`, source: 'website' } });
    expect(imported.response.ok, JSON.stringify(imported.error)).toBe(true);
    const pages = await client.GET('/v1/spaces/{spaceId}/content/pages', { params: { path: { spaceId }, query: {} } });
    expect(JSON.stringify(pages.data)).toContain('Guide');

    for (const [site, reason] of [
      [selfSigned, /self[- ]signed certificate/i],
      [otherName, /altnames|does not match|Hostname\/IP/i],
    ] as const) {
      const refused = await client.POST('/v1/spaces/{spaceId}/content/import', { params: { path: { spaceId } }, body: { url: `${site.url}/docs/`, source: 'website' } });
      expect(refused.response.status).toBe(400);
      const message = (refused.error as { error: { message: string } }).error.message;
      expect(message).toMatch(/^url: /);
      expect(message).toMatch(reason);
    }
    await expectRefusedOnly(selfSigned, 1);
    await expectRefusedOnly(otherName, 1);
  });

  test('OpenAPI source: fetched and processed from the trusted site; FETCH_ERROR from the refused ones', async () => {
    const read = (specSlug: string) => async () => (await client.GET('/v1/orgs/{organizationId}/openapi/{specSlug}', { params: { path: { organizationId: 'demo', specSlug } } })).data!;
    for (const [slug, site] of [['tls-trusted', trusted], ['tls-self-signed', selfSigned], ['tls-other-name', otherName]] as const) {
      const created = await client.POST('/v1/orgs/{organizationId}/openapi', { ...demo, body: { slug, source: { url: `${site.url}/openapi.json` } } });
      expect(created.response.ok, JSON.stringify(created.error)).toBe(true);
      const spec = await until(read(slug), (current) => current.processingState === 'complete', `processing of ${slug}`);
      if (site === trusted) {
        expect(spec.lastVersion).toBeDefined();
        expect(spec.lastProcessErrorCode).toBeUndefined();
      } else {
        expect(spec.lastProcessErrorCode).toBe('FETCH_ERROR');
      }
    }
    expect(trusted.requests).toContain('/openapi.json');
    await expectRefusedOnly(selfSigned, 2);
    await expectRefusedOnly(otherName, 2);
  });

  test('integration events: delivered to a trusted tunnel (success); failed to the refused ones', async () => {
    for (const [integrationName, site] of [['tls-trusted', trusted], ['tls-self-signed', selfSigned], ['tls-other-name', otherName]] as const) {
      const named = { params: { path: { integrationName } } };
      const published = await client.POST('/v1/integrations/{integrationName}', {
        ...named,
        body: { title: `TLS ${integrationName}`, description: 'Events over HTTPS.', organization: 'demo', visibility: 'private', target: 'all' },
      });
      expect(published.response.ok, JSON.stringify(published.error)).toBe(true);
      const dev = await client.PUT('/v1/integrations/{integrationName}/dev', { ...named, body: { tunnelUrl: `${site.url}/tunnel`, all: false } });
      expect(dev.response.status).toBe(204);
      expect((await client.POST('/v1/integrations/{integrationName}/installations', { ...named, body: { organization: 'demo' } })).response.ok).toBe(true);
      const events = await until(
        async () => (await client.GET('/v1/integrations/{integrationName}/events', { ...named, params: { ...named.params, query: {} } })).data!,
        (list) => list.items.length > 0 && list.items.every((event) => event.status !== undefined),
        `the event of ${integrationName}`,
      );
      expect(events.items[0]!.status).toBe(site === trusted ? 'success' : 'failed');
    }
    expect(trusted.deliveries.length).toBeGreaterThan(0);
    await expectRefusedOnly(selfSigned, 3);
    await expectRefusedOnly(otherName, 3);
  });

  test('Git over HTTPS: export to and import from the trusted server; the refused ones get no push', async () => {
    const source = await newSpace('Exported over HTTPS');
    expect((await client.POST('/v1/spaces/{spaceId}/content/template', { params: { path: { spaceId: source } }, body: { id: 'getting-started' } })).response.ok).toBe(true);
    const ref = 'refs/heads/tls-export';
    const exported = await client.POST('/v1/spaces/{spaceId}/git/export', {
      params: { path: { spaceId: source } },
      body: { url: `${trusted.url}/git/repository.git`, ref, commitMessage: 'Export over HTTPS' },
    });
    expect(exported.response.status).toBe(204);
    await until(async () => (await client.GET('/v1/spaces/{spaceId}/git/info', { params: { path: { spaceId: source } } })).data!, (info) => info.updatedAt !== undefined, 'the export');
    const pushed = await git.resolveRef({ fs, gitdir: repository.url, ref });

    const target = await newSpace('Imported over HTTPS from Git');
    const before = (await client.GET('/v1/spaces/{spaceId}', { params: { path: { spaceId: target }, query: {} } })).data!.revision;
    expect((await client.POST('/v1/spaces/{spaceId}/git/import', { params: { path: { spaceId: target } }, body: { url: `${trusted.url}/git/repository.git`, ref } })).response.status).toBe(204);
    await until(async () => (await client.GET('/v1/spaces/{spaceId}', { params: { path: { spaceId: target }, query: {} } })).data!, (space) => space.revision !== before, 'the import');
    const sourcePages = (await client.GET('/v1/spaces/{spaceId}/content/pages', { params: { path: { spaceId: source }, query: {} } })).data!;
    const targetPages = (await client.GET('/v1/spaces/{spaceId}/content/pages', { params: { path: { spaceId: target }, query: {} } })).data!;
    const titles = (pages: { pages: { title: string }[] }) => pages.pages.map((page) => page.title);
    expect(titles(targetPages)).toEqual(titles(sourcePages));

    for (const site of [selfSigned, otherName]) {
      const failures = site.handshakeFailures.length;
      const refusedRef = `refs/heads/tls-refused-${site === selfSigned ? 'self' : 'other'}`;
      const started = await client.POST('/v1/spaces/{spaceId}/git/export', {
        params: { path: { spaceId: source } },
        body: { url: `${site.url}/git/repository.git`, ref: refusedRef, commitMessage: 'Refused', force: true },
      });
      expect(started.response.status).toBe(204);
      await until(async () => site.handshakeFailures.length, (count) => count > failures, 'the refused handshake');
      await expect(git.resolveRef({ fs, gitdir: repository.url, ref: refusedRef })).rejects.toThrow();
    }
    expect(await git.resolveRef({ fs, gitdir: repository.url, ref })).toBe(pushed);
    await expectRefusedOnly(selfSigned, 4);
    await expectRefusedOnly(otherName, 4);
  });
});
