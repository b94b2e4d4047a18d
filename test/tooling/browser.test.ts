// The server in a real browser: Debian's Chromium driven by playwright-core (which never downloads a browser of its
// own). /docs lists every operation of the contract and "Try it out" calls this server with the token set through
// "Authorize", with nothing loaded from anywhere else; and a page on another origin calls the API with the built
// typed client, which works only when CORS_ORIGINS names that origin; and a server answering an operation from the
// contract says so on the page. Without /usr/bin/chromium these tests fail, saying how to install it (`.ci/run` does).
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import type { HandlerTable } from '../../server/handlers/types.ts';
import { CONTRACT_PATH, contractOperations, type OpenApiDocument } from '../../server/http/contract.ts';
import { ACME } from '../support/fixture.ts';
import { repoRoot } from '../support/repo.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const BROWSER_TIMEOUT = 120_000;

/** What the tests use of a page's global object (the project's types have no DOM). */
interface BrowserWindow {
  innerHeight: number;
  scrollY: number;
  scrollBy(x: number, y: number): void;
  scrollTo(x: number, y: number): void;
  requestAnimationFrame(callback: () => void): void;
  /** Set by the client page of the CORS test. */
  callApi?: (baseUrl: string, token: string) => Promise<unknown>;
}

const contract = parse(readFileSync(CONTRACT_PATH, 'utf8')) as OpenApiDocument;
const operations = contractOperations(contract);

let browser: BrowserContext | undefined;
let profile: string | undefined;
const servers: { close(): unknown }[] = [];

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`the browser tests need Chromium at ${CHROMIUM}: run \`apt-get install chromium\` (as root; .ci/run does it)`);
  }
  // A fresh profile, removed afterwards: nothing from an earlier run (stored tokens, caches) leaks in.
  profile = mkdtempSync(path.join(tmpdir(), 'docs-browser-'));
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_FLAGS,
    viewport: { width: 1280, height: 900 },
  });
}, BROWSER_TIMEOUT);

afterAll(async () => {
  await browser?.close();
  await Promise.all(servers.map((server) => server.close()));
  if (profile) rmSync(profile, { recursive: true, force: true });
});

async function newPage(): Promise<Page> {
  const page = await browser!.newPage();
  page.setDefaultTimeout(30_000);
  return page;
}

async function apiServer(env: Record<string, string> = {}): Promise<TestServer> {
  const server = await startTestServer({ env, recordCoverage: false });
  servers.push(server);
  return server;
}

/**
 * The operation ids the page lists, read while scrolling from top to bottom: with 150 entries or more Swagger UI
 * renders only those near the viewport (a virtual list), as a reader scrolling sees them.
 */
async function listedOperations(page: Page): Promise<string[]> {
  const seen = new Set<string>();
  let previous = -1;
  for (;;) {
    for (const id of await page.locator('.opblock-summary-operation-id').allTextContents()) seen.add(id.trim());
    const scrolled = await page.evaluate(async () => {
      const window = globalThis as unknown as BrowserWindow;
      window.scrollBy(0, window.innerHeight * 0.75);
      // Two frames: the virtual list renders what came into view.
      await new Promise<void>((resolve) => window.requestAnimationFrame(() => window.requestAnimationFrame(resolve)));
      return window.scrollY;
    });
    if (scrolled === previous) break;
    previous = scrolled;
  }
  for (const id of await page.locator('.opblock-summary-operation-id').allTextContents()) seen.add(id.trim());
  return [...seen].sort();
}

/** Scrolls the page down until `target`, rendered only near the viewport (the virtual list above), is there. */
async function scrollUntilShown(page: Page, target: ReturnType<Page['locator']>): Promise<void> {
  for (let step = 0; step < 400 && (await target.count()) === 0; step++) {
    await page.evaluate(async () => {
      const window = globalThis as unknown as BrowserWindow;
      window.scrollBy(0, window.innerHeight * 0.75);
      await new Promise<void>((resolve) => window.requestAnimationFrame(() => window.requestAnimationFrame(resolve)));
    });
  }
  await target.scrollIntoViewIfNeeded();
}

describe('/docs', () => {
  test(
    'lists every operation, and "Try it out" with the token calls this server; nothing comes from elsewhere',
    async () => {
      const server = await apiServer();
      const page = await newPage();
      const requested: string[] = [];
      const problems: string[] = [];
      page.on('request', (request) => requested.push(request.url()));
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(message.text());
      });
      page.on('pageerror', (error) => problems.push(String(error)));

      await page.goto(`${server.url}/docs`);
      await page.locator('.opblock').first().waitFor();
      expect(await listedOperations(page)).toEqual(operations.map((operation) => operation.operationId).sort());
      await page.evaluate(() => (globalThis as unknown as BrowserWindow).scrollTo(0, 0));

      // Authorize: the bearer token of the fixture's admin.
      await page.locator('.auth-wrapper button.authorize').click();
      await page.locator('.modal-ux input').fill('admin');
      await page.locator('.modal-ux .auth-btn-wrapper button.authorize').click();
      await page.locator('.modal-ux button.btn-done').click();

      // Try it out on the operation reading one organization.
      const operation = operations.find((op) => op.method === 'get' && op.path === '/v1/orgs/{organizationId}')!;
      const block = page.locator('.opblock').filter({
        has: page.locator('.opblock-summary-operation-id', { hasText: new RegExp(`^${operation.operationId}$`) }),
      });
      await block.locator('.opblock-summary').click();
      await block.locator('button.try-out__btn').click();
      await block.locator('tr[data-param-name="organizationId"] input').fill(ACME);
      await block.locator('button.execute').click();
      const live = block.locator('.live-responses-table');
      // Swagger UI renders the answer when it has it; vitest's 1 s default is short on a loaded machine.
      await expect
        .poll(() => live.locator('tbody .response-col_status').first().textContent(), { timeout: 15_000 })
        .toMatch(/^\s*200/);
      const body = await live.locator('tbody .response-col_description pre').first().textContent();
      expect(JSON.parse(body!)).toMatchObject({ id: ACME, title: 'Acme' });
      // The request went to this server, with the token.
      const curl = await block.locator('.curl-command').textContent();
      expect(curl).toContain(`${server.url}/v1/orgs/${ACME}`);
      expect(curl).toContain('Authorization: Bearer admin');

      mkdirSync(path.join(repoRoot, 'coverage'), { recursive: true });
      await block.scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(repoRoot, 'coverage', 'docs-page.png') });

      // Try it out on creating a space, with the body the page offers first: the operation's example, which names no
      // other record, so that any server accepts it as it is.
      const create = page.locator('.opblock').filter({ has: page.locator('.opblock-summary-operation-id', { hasText: /^createSpace$/ }) });
      await scrollUntilShown(page, create);
      await create.locator('.opblock-summary').click();
      await create.locator('button.try-out__btn').click();
      await create.locator('tr[data-param-name="organizationId"] input').fill(ACME);
      const offered = JSON.parse((await create.locator('textarea.body-param__text').inputValue()) || 'null') as unknown;
      const paths = contract.paths as Record<string, Record<string, { requestBody: { content: Record<string, { example: unknown }> } }>>;
      const example = paths['/v1/orgs/{organizationId}/spaces']!.post!.requestBody.content['application/json']!.example;
      expect(offered).toEqual(example);
      await create.locator('button.execute').click();
      const created = create.locator('.live-responses-table');
      await expect.poll(() => created.locator('tbody .response-col_status').first().textContent(), { timeout: 15_000 }).toMatch(/^\s*201/);
      expect(JSON.parse((await created.locator('tbody .response-col_description pre').first().textContent())!)).toMatchObject({
        object: 'space',
        title: (example as { title: string }).title,
      });

      expect(requested.filter((url) => !url.startsWith(`${server.url}/`) && !url.startsWith('data:'))).toEqual([]);
      expect(problems).toEqual([]);
      await page.close();
    },
    BROWSER_TIMEOUT,
  );
});

describe('/docs of a server answering an operation from the contract', () => {
  test(
    'says so in the description and at the operation, and "Try it out" shows the x-contract-answer header',
    async () => {
      const server = await startTestServer({
        recordCoverage: false,
        handlers: (_ctx, table) => Object.fromEntries(Object.entries(table).filter(([id]) => id !== 'getTeam')) as HandlerTable,
      });
      servers.push(server);
      const page = await newPage();
      await page.goto(`${server.url}/docs`);
      await page.locator('.opblock').first().waitFor();
      const description = await page.locator('.information-container .description').textContent();
      expect(description).toContain('Not implemented by this server');
      expect(description).toContain('getTeam (GET /v1/orgs/{organizationId}/teams/{teamId}): no handler');

      await page.locator('.auth-wrapper button.authorize').click();
      await page.locator('.modal-ux input').fill('admin');
      await page.locator('.modal-ux .auth-btn-wrapper button.authorize').click();
      await page.locator('.modal-ux button.btn-done').click();

      const block = page.locator('.opblock').filter({ has: page.locator('.opblock-summary-operation-id', { hasText: /^getTeam$/ }) });
      await scrollUntilShown(page, block);
      expect(await block.locator('.opblock-summary-description').textContent()).toBe('Get a team (not implemented: answered from the contract)');
      await block.locator('.opblock-summary').click();
      expect(await block.locator('.opblock-description-wrapper').textContent()).toContain('Not implemented by this server (no handler)');
      await block.locator('button.try-out__btn').click();
      await block.locator('tr[data-param-name="organizationId"] input').fill(ACME);
      await block.locator('tr[data-param-name="teamId"] input').fill('no-such-team');
      await block.locator('button.execute').click();
      const live = block.locator('.live-responses-table');
      await expect.poll(() => live.locator('tbody .response-col_status').first().textContent(), { timeout: 15_000 }).toMatch(/^\s*200/);
      expect(await live.locator('tbody .response-col_description').first().textContent()).toMatch(/x-contract-answer: (example|schema)/);
      await page.close();
    },
    BROWSER_TIMEOUT,
  );
});

/** The built client (the package's entry, dist/), bundled for the browser; the page calls `window.callApi`. */
async function clientBundle(): Promise<string> {
  const entry = createRequire(import.meta.url).resolve('docs-platform-contract');
  const result = await build({
    stdin: {
      contents: `
        import { createDocsClient } from ${JSON.stringify(entry)};
        window.callApi = async (baseUrl, token) => {
          const client = createDocsClient({ baseUrl, token, retry: false });
          try {
            const read = await client.GET('/v1/orgs/{organizationId}', { params: { path: { organizationId: ${JSON.stringify(ACME)} } } });
            const created = await client.POST('/v1/orgs/{organizationId}/spaces', {
              params: { path: { organizationId: ${JSON.stringify(ACME)} } },
              body: { title: 'From a browser' },
            });
            return { status: read.response.status, title: read.data?.title, created: created.response.status, location: created.response.headers.get('location') };
          } catch (error) {
            return { failed: String(error) };
          }
        };`,
      resolveDir: repoRoot,
      loader: 'js',
    },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

/** A page of another origin (127.0.0.1, another port) loading the client. */
async function appServer(script: string): Promise<{ origin: string; server: Server }> {
  const server = createServer((req, res) => {
    if (req.url === '/app.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
    else res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>App</title><script type="module" src="/app.js"></script>');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  servers.push(server);
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('CORS', () => {
  test(
    'a page of another origin calls the API with the typed client when CORS_ORIGINS names it, and cannot without',
    async () => {
      const app = await appServer(await clientBundle());
      const allowing = await apiServer({ CORS_ORIGINS: app.origin });
      const closed = await apiServer();
      const page = await newPage();
      await page.goto(`${app.origin}/`);
      await page.waitForFunction(() => typeof (globalThis as unknown as BrowserWindow).callApi === 'function');
      const call = (baseUrl: string) => page.evaluate((url) => (globalThis as unknown as BrowserWindow).callApi!(url, 'admin'), baseUrl);

      const works = (await call(allowing.url)) as { status: number; title: string; created: number; location: string };
      expect(works).toMatchObject({ status: 200, title: 'Acme', created: 201 });
      // Location is a response header the contract declares: exposed to the page.
      expect(works.location).toMatch(new RegExp(`^${allowing.url}/v1/spaces/`));

      const refused = (await call(closed.url)) as { failed?: string };
      expect(refused.failed).toMatch(/TypeError: Failed to fetch/);
      await page.close();
    },
    BROWSER_TIMEOUT,
  );
});
