// Pact files read as usage records (conformance/records/pact-record.ts) through the real commands: a pact file, a folder of
// pacts and a URL serving one, in Pact 2, 3 and 4, to the gate's --consumers, both forms of can-i-deploy (with --base
// and without) and usage merge (a pact merged with a native record); an interaction matching no operation named, a
// message left out and said; each specification's forms. Every corpus case as a pact: consumer-corpus.test.ts.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { isPact, readPact } from '../../conformance/records/pact-record.ts';
import { parseUsageRecord } from '../../conformance/records/usage-format.ts';
import { baseContract, CASES, pactOf, recordOf, revisionOf } from '../support/consumer-corpus.ts';
import { repoRoot } from '../support/repo.ts';

const run = promisify(execFile);
const scratch = mkdtempSync(path.join(os.tmpdir(), 'pact-records-'));
const write = (file: string, value: unknown) => {
  const at = path.join(scratch, file);
  mkdirSync(path.dirname(at), { recursive: true });
  writeFileSync(at, typeof value === 'string' ? value : JSON.stringify(value));
  return at;
};

// The corpus's base contract, and a revision that removes `Space.title` (which title-reader and space-viewer use).
const baseFile = write('base.json', baseContract());
const revisionFile = write('revision.json', revisionOf(CASES.find((each) => each.id === 'response-field-removed')!));
const titleReader = write('title-reader.pact.json', pactOf('title-reader', 2));
const folder = path.join(scratch, 'pacts');
write('pacts/space-viewer.json', pactOf('space-viewer', 3));
// org-reader in Pact 4, with a message interaction and a call of a path that is no operation.
const orgReader = pactOf('org-reader', 4) as { interactions: unknown[] };
orgReader.interactions.push(
  { type: 'Asynchronous/Messages', description: 'an organization changed', contents: { content: { id: 'acme' }, contentType: 'application/json', encoded: false } },
  { type: 'Synchronous/HTTP', description: 'the organization audit', request: { method: 'GET', path: '/orgs/acme/audit' }, response: { status: 200 } },
);
write('pacts/org-reader.json', orgReader);

let server: Server;
let url = '';
beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url === '/pacts/org-reader.json') response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(orgReader));
    else if (request.url === '/pacts/title-reader.json') response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(pactOf('title-reader', 4)));
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(scratch, { recursive: true, force: true });
});

type Outcome = { code: number; stdout: string; stderr: string };
const settle = (promise: Promise<{ stdout: string; stderr: string }>): Promise<Outcome> =>
  promise.then(
    (done) => ({ code: 0, ...done }),
    (failed: Outcome) => ({ code: failed.code, stdout: failed.stdout, stderr: failed.stderr }),
  );
const gate = (...args: string[]) => settle(run(process.execPath, [path.join(repoRoot, 'breaking/check.mjs'), '--base', baseFile, '--revision', revisionFile, ...args], { cwd: repoRoot, timeout: 60_000 }));
const cli = (...args: string[]) => settle(run(process.execPath, ['--import', 'tsx', 'conformance/cli.ts', ...args], { cwd: repoRoot, timeout: 60_000 }));

test('the gate: a pact file (Pact 2), a folder of pacts (3 and 4) and a URL, each read against the base; an interaction matching no operation and a message named', async () => {
  const [text, failOn] = await Promise.all([
    gate('--consumers', titleReader, '--consumers', folder, '--consumers', `${url}/pacts/title-reader.json`),
    gate('--consumers', folder, '--fail-on', 'consumers'),
  ]);
  expect(text.stdout).toMatch(/It breaks title-reader \(getSpace: response field \/title read \(200 application\/json\)\), space-viewer \(getSpace: response field \/title read/);
  expect(text.stdout).not.toContain('org-reader (');
  // The file (2) and the URL (4) of one consumer merged into one record.
  expect(text.stderr).toContain(`title-reader's 2 records merged into one (${titleReader}, ${url}/pacts/title-reader.json)`);
  expect(text.stderr).toContain(`--consumers: ${path.join(folder, 'org-reader.json')}: "the organization audit" (GET /orgs/acme/audit): no operation of the contract`);
  expect(text.stderr).toContain('"an organization changed" is of type Asynchronous/Messages: only HTTP interactions are read');
  expect(failOn.code, failOn.stdout).toBe(1);
}, 120_000);

test('can-i-deploy, the consumer form: a pact by URL against the revision alone, and with --base as the change from it', async () => {
  const [alone, based, fine] = await Promise.all([
    cli('can-i-deploy', '--usage', `${url}/pacts/title-reader.json`, '--contract', revisionFile),
    cli('can-i-deploy', '--usage', titleReader, '--contract', revisionFile, '--base', baseFile),
    cli('can-i-deploy', '--usage', path.join(folder, 'space-viewer.json'), '--contract', baseFile),
  ]);
  expect(alone.code, alone.stdout + alone.stderr).toBe(1);
  expect(alone.stdout).toContain('title-reader: it is known by Pact files only');
  expect(alone.stdout).toMatch(/✗ getSpace: response field \/title \(200 application\/json\), which its code reads, is not in what the contract answers \(judged against the contract alone\)/);
  expect(based.code).toBe(1);
  expect(based.stdout).toContain(`(the change from ${baseFile}, which its record was made against)`);
  expect(fine.code, fine.stdout).toBe(0);
  expect(fine.stdout).toContain('space-viewer can deploy against');
}, 120_000);

test('can-i-deploy, the table: a folder of pacts against the base and the revision, each pact read against each; the call that is no operation breaks org-reader', async () => {
  const json = path.join(scratch, 'table.json');
  const table = await cli('can-i-deploy', '--consumers', folder, '--consumers', titleReader, '--contract', baseFile, '--contract', revisionFile, '--json', json);
  expect(table.code).toBe(1);
  const cells = JSON.parse(readFileSync(json, 'utf8')) as Record<string, Record<string, { verdict: string; breaks: string[] }>>;
  expect(cells['title-reader']![baseFile]!.verdict).toBe('untouched');
  expect(cells['title-reader']![revisionFile]!.verdict).toBe('breaks');
  expect(cells['space-viewer']![revisionFile]!.verdict).toBe('breaks');
  expect(cells['org-reader']![revisionFile]!.breaks).toEqual(['GET /orgs/acme/audit: GET /orgs/acme/audit is no operation of the contract (judged against the contract alone)']);
  expect(table.stdout).toContain('"the organization audit" (GET /orgs/acme/audit): no operation of the contract (read against');
}, 120_000);

test('usage merge: a pact (Pact 3) and a native record of one consumer merged into one, read against --contract; without it, the record\'s contract must be found', async () => {
  const native = write('records/title-reader.json', recordOf('title-reader'));
  const pact = write('merge/title-reader.pact.json', pactOf('title-reader', 3));
  const out = path.join(scratch, 'merged.json');
  const merged = await cli('usage', 'merge', native, pact, '--contract', baseFile, '--out', out);
  expect(merged.code, merged.stderr).toBe(0);
  const record = parseUsageRecord(readFileSync(out, 'utf8'), out);
  expect(record.recordedBy).toEqual(['client', 'pact']);
  expect(record.operations.getSpace!.calls).toBe(2);
  expect(record.operations.getSpace!.responses['200 application/json']!.read).toEqual(['/title']);
  const unfound = await cli('usage', 'merge', native, pact);
  expect(unfound.code).toBe(2);
  expect(unfound.stderr).toMatch(/a Pact file, read against the contract the records were made against \(1\.0\.0\), which is neither .*: give it with --contract/);
}, 120_000);

test('each specification read as it writes: the query as a string (2) or lists (3, 4), Pact 4 bodies encoded in base64 or as JSON text, header lists; a message pact left out; a usage record is no pact', () => {
  const v2 = readPact({ consumer: { name: 'c' }, provider: { name: 'p' }, interactions: [{ description: 'list', request: { method: 'GET', path: '/spaces', query: 'limit=10&visibility=public&visibility=private' }, response: { status: 200 } }], metadata: { pactSpecification: { version: '2.0.0' } } }, 'v2');
  expect([v2.specification, v2.interactions[0]!.query.getAll('visibility')]).toEqual([2, ['public', 'private']]);
  const body = { title: 'Handbook' };
  const v4 = readPact(
    {
      consumer: { name: 'c' },
      provider: { name: 'p' },
      interactions: [
        { type: 'Synchronous/HTTP', description: 'create', request: { method: 'POST', path: '/spaces', query: { limit: ['10'] }, headers: { 'Content-Type': ['application/json'] }, body: { content: Buffer.from(JSON.stringify(body)).toString('base64'), contentType: 'application/json', encoded: 'base64' } }, response: { status: 201, body: { content: JSON.stringify(body), contentType: 'application/json', encoded: 'JSON' } } },
        { type: 'Synchronous/Messages', description: 'a message', request: {}, response: [] },
      ],
      metadata: { pactSpecification: { version: '4.0' } },
    },
    'v4',
  );
  expect(v4.interactions).toHaveLength(1);
  expect(v4.interactions[0]).toMatchObject({ method: 'post', requestHeaders: { 'content-type': 'application/json' }, request: { mediaType: 'application/json', body }, response: { mediaType: 'application/json', body } });
  expect(v4.interactions[0]!.query.get('limit')).toBe('10');
  expect(v4.skipped).toEqual(['v4: "a message" is of type Synchronous/Messages: only HTTP interactions are read']);
  const messages = { consumer: { name: 'c' }, provider: { name: 'p' }, messages: [{ description: 'm', contents: {} }], metadata: { 'pact-specification': { version: '3.0.0' } } };
  expect(isPact(messages)).toBe(true);
  expect(readPact(messages, 'm.json')).toMatchObject({ specification: 3, interactions: [], skipped: ['m.json: a message pact (1 messages): only HTTP interactions are read'] });
  expect(isPact(recordOf('title-reader'))).toBe(false);
});
