// The files server-package.test.ts writes into its consumer project beside those of the README and harness.md (each a
// source text, or a function of what it varies in), and the addresses its proxy test points the proxy at: a server
// that breaks the contract in front of the npx one, and a port where nothing answers.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { strictCompilerOptions } from './packaging.ts';

/** harness-types.ts: the harness's declarations in use: a seed with null fields, a misspelt field and an unknown role refused, clientWith's clients. */
export const harnessTypes = `import { ApiError, type DocsClient, type ThrowingDocsClient } from 'docs-platform-contract';
import type { DocsServer, Seed, SeedPage } from 'docs-platform-server/testing';
export const seed: Seed = {
  users: [{ id: 'ann', displayName: 'Ann', email: null, photoURL: null, tokens: ['ann-token'] }],
  organizations: [{ title: 'Acme', members: [{ user: 'ann', role: null }], spaces: [{ title: 'Handbook', visibility: 'public' }] }],
};
export const page: SeedPage = { title: 'Welcome', pages: [{ title: 'Nested', markdown: '# Nested' }] };
// @ts-expect-error a field the seed format does not have
export const misspelt: Seed = { users: [{ displayName: 'Ann', mail: 'ann@acme.test' }] };
// @ts-expect-error a role the contract does not have
export const unknownRole: Seed = { organizations: [{ title: 'Acme', members: [{ user: 'ann', role: 'owner' }] }] };
export async function throwing(server: DocsServer): Promise<string> {
  const client: ThrowingDocsClient = server.clientWith('ann-token', { throwOnError: true, retry: false });
  const plain: DocsClient = server.clientWith(undefined, { timeoutMs: 1000 });
  void plain;
  try {
    return (await client.GET('/v1/spaces/{spaceId}', { params: { path: { spaceId: 'handbook' } } })).data.title;
  } catch (error) {
    return error instanceof ApiError ? String(error.status) : 'other';
  }
}
`;

/** tsconfig.json: strict tsc over the README's and harness.md's test files and harness-types.ts, emitting nothing. */
export const harnessTsconfig = JSON.stringify({
  compilerOptions: { ...strictCompilerOptions, noEmit: true },
  include: ['test/readme.test.ts', 'test/faults.test.ts', 'harness-types.ts'],
});

/** test/isolation-ME.test.ts: writes a space on its own server, waits until OTHER's file runs beside it, sees its own space only, and after a reset the seed's. */
export const isolationTest = (me: string, other: string) => `import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type DocsServer, startDocsServer } from 'docs-platform-server/testing';

let server: DocsServer;
beforeAll(async () => {
  server = await startDocsServer({ seed: 'seed.yaml' });
});
afterAll(() => server.stop());

const acme = { params: { path: { organizationId: 'acme' } } };

test('what this file writes, the file running beside it does not see', async () => {
  const created = await server.client.POST('/v1/orgs/{organizationId}/spaces', { ...acme, body: { title: 'written by ${me}' } });
  expect(created.response.status).toBe(201);
  writeFileSync('barrier/${me}', server.url);
  for (let attempt = 0; !existsSync('barrier/${other}'); attempt++) {
    if (attempt > 400) throw new Error('isolation-${other}.test.ts did not run beside this file');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect(readFileSync('barrier/${other}', 'utf8')).not.toBe(server.url);
  const { data } = await server.client.GET('/v1/orgs/{organizationId}/spaces', acme);
  expect(data?.items.map((space) => space.title).sort()).toEqual(['Handbook', 'written by ${me}']);
  await server.reset();
  const after = await server.client.GET('/v1/orgs/{organizationId}/spaces', acme);
  expect(after.data?.items.map((space) => space.title)).toEqual(['Handbook']);
});
`;

/** killed.mjs: starts a harness server, prints its address and kills itself with SIGKILL, so that no exit hook runs. */
export const killedScript = `import { startDocsServer } from 'docs-platform-server/testing';
const server = await startDocsServer();
console.log(server.url);
process.kill(process.pid, 'SIGKILL');
`;

/** alone.mjs: starts a harness server where the client package is not installed; prints its health and what `server.client` throws. */
export const aloneScript = `import { startDocsServer } from 'docs-platform-server/testing';
const server = await startDocsServer();
try {
  const health = await (await fetch(server.url + '/health')).json();
  let missing = '';
  try {
    server.client;
  } catch (error) {
    missing = error.message;
  }
  console.log(JSON.stringify({ status: health.status, missing }));
} finally {
  await server.stop();
}
`;

/** call.mjs: the installed client against the server at argv[2]; prints the organizations, a space read back, a PDF's start and a processed OpenAPI document's state. */
export const callScript = `import { createDocsClient } from 'docs-platform-contract';
const docs = createDocsClient({ baseUrl: process.argv[2], token: 'secret', throwOnError: true });
const demo = { params: { path: { organizationId: 'demo' } } };
const organizations = (await docs.GET('/v1/orgs')).data.items.map((organization) => organization.id);
const { data: space } = await docs.POST('/v1/orgs/{organizationId}/spaces', { ...demo, body: { title: 'From npx' } });
const { data: read } = await docs.GET('/v1/spaces/{spaceId}', { params: { path: { spaceId: space.id } } });
const { data: change } = await docs.POST('/v1/spaces/{spaceId}/change-requests', { params: { path: { spaceId: space.id } }, body: { subject: 'PDF' } });
const { data: pdf } = await docs.GET('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/pdf', { params: { path: { spaceId: space.id, changeRequestId: change.id }, query: {} } });
const file = await fetch(pdf.url, { headers: { authorization: 'Bearer secret' } });
const text = JSON.stringify({ openapi: '3.0.3', info: { title: 'Store', version: '1' }, paths: { '/orders': { get: { responses: { '200': { description: 'The orders' } } } } } });
await docs.POST('/v1/orgs/{organizationId}/openapi', { ...demo, body: { slug: 'pets', source: { text } } });
let spec;
for (let attempt = 0; attempt < 200; attempt++) {
  spec = (await docs.GET('/v1/orgs/{organizationId}/openapi/{specSlug}', { params: { path: { organizationId: 'demo', specSlug: 'pets' } } })).data;
  if (spec.processingState === 'complete') break;
  await new Promise((resolve) => setTimeout(resolve, 100));
}
console.log(JSON.stringify({
  organizations,
  title: read.title,
  pdf: [file.headers.get('content-type'), Buffer.from(await file.arrayBuffer()).subarray(0, 5).toString()],
  openapi: [spec.processingState, spec.lastProcessErrorCode ?? null],
}));
`;

/** test/mistake.test.ts: a PATCH with a misspelt field sent to DOCS_API_URL past the typed client, expected to be refused with a 400. */
export const misspeltPatchTest = `import { expect, test } from 'vitest';

test('a PATCH with a misspelt field is refused', async () => {
  const sent = await fetch(\`\${process.env.DOCS_API_URL}/v1/orgs/demo\`, { method: 'PATCH', headers: { authorization: 'Bearer secret', 'content-type': 'application/json' }, body: '{"titel":"typo"}' });
  expect(sent.status).toBe(400);
});
`;

/** test/team-stats.test.ts: the statistics of a team (the operation the next release adds), typed from the client package, answered by the harness. */
export const teamStatsTest = `import { afterAll, beforeAll, expect, test } from 'vitest';
import { type DocsServer, startDocsServer } from 'docs-platform-server/testing';

let server: DocsServer;
beforeAll(async () => {
  const acme = { id: 'acme', title: 'Acme', members: [{ user: 'ann', role: 'admin' as const }], teams: [{ id: 'writers', title: 'Writers', members: [{ user: 'ann' }] }] };
  server = await startDocsServer({ seed: { users: [{ id: 'ann', displayName: 'Ann' }], organizations: [acme] } });
});
afterAll(() => server?.stop());

test('the statistics of a team', async () => {
  const { data } = await server.client.GET('/v1/orgs/{organizationId}/teams/{teamId}/stats', { params: { path: { organizationId: 'acme', teamId: 'writers' } } });
  expect(data?.members).toBe(1);
});
`;

/** tsconfig.json: strict tsc over test/team-stats.test.ts alone (the packages' declarations not checked), emitting nothing. */
export const teamStatsTsconfig = JSON.stringify({
  compilerOptions: { strict: true, exactOptionalPropertyTypes: true, module: 'nodenext', target: 'es2022', lib: ['es2022', 'dom'], types: [], skipLibCheck: true, noEmit: true },
  include: ['test/team-stats.test.ts'],
});

/**
 * An implementation that breaks the contract, on 127.0.0.1: the server at `target` behind it, but for GET a space,
 * answered without its title. Resolves once it listens, with its address and how to close it.
 */
export async function brokenProxy(target: Promise<string>): Promise<{ url: string; close: () => void }> {
  const broken = createServer((req, res) => {
    const sent: Buffer[] = [];
    req.on('data', (chunk: Buffer) => sent.push(chunk));
    req.on('end', () => {
      void (async () => {
        const request = Buffer.concat(sent);
        const headers = { authorization: req.headers.authorization ?? '', ...(request.length > 0 ? { 'content-type': req.headers['content-type'] ?? 'application/json' } : {}) };
        const answer = await fetch(`${await target}${req.url}`, { method: req.method, headers, ...(request.length > 0 ? { body: request } : {}) });
        const body = await answer.text();
        res.writeHead(answer.status, Object.fromEntries([...answer.headers].filter(([name]) => !['content-length', 'transfer-encoding', 'connection', 'keep-alive'].includes(name))));
        const space = req.method === 'GET' && /^\/v1\/spaces\/[^/]+$/.test(req.url ?? '') && answer.ok ? { ...JSON.parse(body), title: undefined } : undefined;
        res.end(space ? JSON.stringify(space) : body);
      })();
    });
  });
  await new Promise<void>((resolve) => broken.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(broken.address() as AddressInfo).port}`, close: () => broken.close() };
}

/** An address on 127.0.0.1 where nothing answers: a port listened on, then closed. */
export async function unansweredAddress(): Promise<string> {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const address = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
  await new Promise((resolve) => closed.close(resolve));
  return address;
}
