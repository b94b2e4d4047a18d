// Consumers known by their usage records, end to end: three consumer projects (support/consumer-projects.ts) with the
// shared release's packages installed by name, each suite writing its record (through the harness, in two processes;
// through the proxy; with the typed client in recording mode); the gate names whom each of three contract changes
// breaks, in text, JSON and GitHub annotations; the installed can-i-deploy answers each consumer.
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadContract } from '../../conformance/contract/contract.ts';
import { parseUsageRecord, type UsageRecord } from '../../conformance/records/usage-format.ts';
import { SERVER_PACKAGE_NAME } from '../../scripts/build-server-package.ts';
import { clientConsumer, contractChanges, harnessConsumer, type ProjectFiles, proxyConsumer } from '../support/consumer-projects.ts';
import { outcome, rootManifest, runnerManifest } from '../support/packaging.ts';
import { installEnvironment, packageEnvironment, publishedRelease, startReleaseRegistry } from '../support/published-release.ts';
import type { Registry } from '../support/registry.ts';
import { repoRoot } from '../support/repo.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const run = promisify(execFile);
const scratch = mkdtempSync(path.join(os.tmpdir(), 'consumers-flow-'));
const env = packageEnvironment(path.join(scratch, 'npmrc'));
const deps = path.join(scratch, 'deps');
const consumers = path.join(scratch, 'consumers');
const major = rootManifest.version.split('.')[0]!;
let registry: Registry | undefined;
let server: TestServer | undefined;
let spaceId = '';

/** Writes a project's files into its folder, its packages those installed in `deps`. */
function project(name: string, files: ProjectFiles): string {
  const folder = path.join(scratch, name);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(folder, file)), { recursive: true });
    writeFileSync(path.join(folder, file), text);
  }
  symlinkSync(path.join(deps, 'node_modules'), path.join(folder, 'node_modules'), 'dir');
  return folder;
}

/** A command's exit code and output (stdout, then stderr). */
const inProject = (cwd: string, command: string, args: string[], extra: NodeJS.ProcessEnv = {}) =>
  outcome(run(command, args, { cwd, env: { ...env, ...extra }, timeout: 180_000 }));

beforeAll(async () => {
  const release = await publishedRelease();
  registry = await startReleaseRegistry(release, { folder: path.join(scratch, 'registry'), env });
  mkdirSync(deps);
  writeFileSync(path.join(deps, 'package.json'), JSON.stringify({ name: 'consumer-deps', private: true, type: 'module' }));
  const installEnv = { ...installEnvironment(env), npm_config_registry: registry.url };
  await run('npm', ['pkg', 'set', 'allowScripts.better-sqlite3=false', '--json'], { cwd: deps, env: installEnv });
  const names = [rootManifest.name, SERVER_PACKAGE_NAME, runnerManifest.name].map((name) => `${name}@^${major}`);
  await run('npm', ['install', ...names], { cwd: deps, env: installEnv, timeout: 300_000 });
  server = await startTestServer({ recordCoverage: false });
  const created = await server.as('admin').POST('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId: 'acme' } }, body: { title: 'Handbook' } });
  spaceId = created.data!.id;
}, 900_000);

afterAll(async () => {
  await server?.close();
  await registry?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

const readRecord = (file: string): UsageRecord => parseUsageRecord(readFileSync(file, 'utf8'), file);

describe('three consumers, each recording what it uses, and the gate and can-i-deploy judging by them', () => {
  test('the three suites write their records: the harness two processes merged, the proxy, the typed client with what the code read', async () => {
    // Through the harness: node's test runner, a process per file, a server each; the report merges the two records.
    const harness = project('harness-consumer', harnessConsumer);
    const tested = await inProject(harness, process.execPath, ['--test'], { DOCS_SERVER_USAGE: '1' });
    expect(tested.code, tested.output).toBe(0);
    expect(readdirSync(path.join(harness, 'docs-platform-usage/records'))).toHaveLength(2);
    const reported = await inProject(harness, process.execPath, ['report.mjs']);
    expect(reported.output).toContain('docs-platform-server usage: harness-consumer called 3 operations (3 requests) of contract');
    const byHarness = readRecord(path.join(harness, 'docs-platform-usage/usage.json'));
    expect(byHarness).toMatchObject({ consumer: { name: 'harness-consumer', version: '1.0.0' }, recordedBy: ['harness'] });
    expect(Object.keys(byHarness.operations).sort()).toEqual(['createTeam', 'getTeam', 'listTeams']);

    // Through the proxy, with fetch: every field received.
    const proxied = project('proxy-consumer', proxyConsumer(spaceId));
    const bin = path.join(proxied, 'node_modules/.bin/docs-conformance');
    const viaProxy = await inProject(proxied, bin, ['proxy', '--target', server!.url, '--usage', 'usage.json', '--', process.execPath, '--test'], { DOCS_API_TOKEN: 'admin' });
    expect(viaProxy.code, viaProxy.output).toBe(0);
    const byProxy = readRecord(path.join(proxied, 'usage.json'));
    expect(byProxy).toMatchObject({ consumer: { name: 'proxy-consumer' }, recordedBy: ['proxy'] });
    expect(Object.keys(byProxy.operations)).toEqual(['getSpace']);
    expect(byProxy.operations.getSpace!.responses['200 application/json']!.present).toEqual(expect.arrayContaining(['/title', '/urls', '/urls/app']));

    // With the typed client in recording mode: what the code read beside what came.
    const client = project('client-consumer', clientConsumer(spaceId));
    const recorded = await inProject(client, process.execPath, ['--test'], { DOCS_CLIENT_USAGE: '1', DOCS_API_URL: server!.url, DOCS_API_TOKEN: 'admin' });
    expect(recorded.code, recorded.output).toBe(0);
    await inProject(client, process.execPath, ['merge.mjs']);
    const byClient = readRecord(path.join(client, 'docs-platform-usage/usage.json'));
    expect(byClient).toMatchObject({ consumer: { name: 'client-consumer' }, recordedBy: ['client'] });
    expect(byClient.operations.getSpace!.responses['200 application/json']).toMatchObject({ read: ['/title'], present: expect.arrayContaining(['/urls/app']) });
    expect(byClient.operations.getOrganization!.responses['200 application/json']!.read).toEqual(['/type']);

    // The contract's repository keeps them, one file per consumer.
    mkdirSync(consumers);
    cpSync(path.join(harness, 'docs-platform-usage/usage.json'), path.join(consumers, 'harness-consumer.json'));
    cpSync(path.join(proxied, 'usage.json'), path.join(consumers, 'proxy-consumer.json'));
    cpSync(path.join(client, 'docs-platform-usage/usage.json'), path.join(consumers, 'client-consumer.json'));
  }, 600_000);

  const NAMES = /harness-consumer|proxy-consumer|client-consumer/g;
  const documents = () => {
    const base = loadContract().document;
    const written: Record<string, string> = {};
    for (const [name, document] of Object.entries({ base, ...contractChanges(base) })) {
      written[name] = path.join(scratch, `${name}.json`);
      writeFileSync(written[name], JSON.stringify(document));
    }
    return written;
  };
  /** The gate on `revision` against the base, with the consumers' records, in `format`. */
  const gate = (files: Record<string, string>, revision: string, format = 'text') =>
    run(process.execPath, [path.join(repoRoot, 'breaking/check.mjs'), '--base', files.base!, '--revision', files[revision]!, '--consumers', consumers, '--format', format], { cwd: repoRoot, timeout: 120_000 }).then(
      (done) => ({ code: 0, output: done.stdout }),
      (failed: { code: number; stdout: string; stderr: string }) => ({ code: failed.code, output: failed.stdout, errors: failed.stderr }),
    );
  /** The consumers named in the JSON report's findings, together. */
  const namedInJson = (output: string) => [...new Set((JSON.parse(output) as { judged: { consumers?: { consumer: string }[] }[] }).judged.flatMap((entry) => (entry.consumers ?? []).map((hit) => hit.consumer)))].sort();

  test('the gate: a field only the proxy consumer used breaks it alone; an operation none calls breaks no one; a new value of a field the client consumer read warns it alone', async () => {
    const files = documents();
    const removed = await gate(files, 'fieldRemoved');
    expect(removed.output).toContain('It breaks proxy-consumer 1.0.0 (getSpace: response field /urls received (200 application/json)).');
    // The findings name the consumers they break; then every consumer's own verdict (breaking/report.ts, CONSUMERS_HEADING).
    const findingsOf = (output: string) => output.split('Consumers, each judged by the change')[0]!;
    expect([...new Set(findingsOf(removed.output).match(NAMES))]).toEqual(['proxy-consumer']);
    expect(removed.output).toMatch(/^ {2}proxy-consumer 1\.0\.0: breaks\b/m);
    expect(removed.output).not.toMatch(/^ {2}(client|harness)-consumer 1\.0\.0: breaks\b/m);
    expect(namedInJson((await gate(files, 'fieldRemoved', 'json')).output)).toEqual(['proxy-consumer 1.0.0']);
    expect((await gate(files, 'fieldRemoved', 'github')).output).toMatch(/^::error .*It breaks proxy-consumer 1\.0\.0 \(getSpace: response field \/urls received \(200 application\/json\)\)\./m);

    const unused = await gate(files, 'operationRemoved');
    expect(unused.code).toBe(1);
    expect(unused.output).toContain('It breaks no known consumer.');
    expect(findingsOf(unused.output).match(NAMES)).toBeNull();
    expect(unused.output).not.toMatch(/^ {2}[a-z-]+-consumer 1\.0\.0: breaks\b/m);
    expect(namedInJson((await gate(files, 'operationRemoved', 'json')).output)).toEqual([]);
    expect((await gate(files, 'operationRemoved', 'github')).output).toMatch(/^::error .*It breaks no known consumer\./m);

    const added = await gate(files, 'enumValueAdded');
    expect(added.output).toContain('Warning for consumers: client-consumer 1.0.0 (getOrganization: response field /type read (200 application/json)).');
    expect([...new Set(findingsOf(added.output).match(NAMES))]).toEqual(['client-consumer']);
    expect(namedInJson((await gate(files, 'enumValueAdded', 'json')).output)).toEqual(['client-consumer 1.0.0']);
    expect((await gate(files, 'enumValueAdded', 'github')).output).toMatch(/^::warning .*Warning for consumers: client-consumer/m);
  }, 300_000);

  test('can-i-deploy, installed: the proxy consumer cannot deploy against the contract without the field, the others can; a corrupt record is exit 2', async () => {
    const files = documents();
    const bin = path.join(deps, 'node_modules/.bin/docs-conformance');
    const deploy = (...args: string[]) => outcome(run(bin, ['can-i-deploy', ...args], { cwd: scratch, env, timeout: 60_000 }));
    // The records were made against the contract the installed server serves, which is no release the package
    // carries: can-i-deploy says so and judges the record against the contract alone; with --base naming it, by the change too.
    const broken = await deploy('--usage', path.join(consumers, 'proxy-consumer.json'), '--contract', files.fieldRemoved!);
    expect(broken.code).toBe(1);
    expect(broken.output).toContain('✗ getSpace: response field /urls (200 application/json), which its code received, is not in what the contract answers (judged against the contract alone)');
    expect(broken.output).toContain('(record alone)');
    const judged = await deploy('--usage', path.join(consumers, 'proxy-consumer.json'), '--contract', files.fieldRemoved!, '--base', files.base!);
    expect(judged.code).toBe(1);
    expect(judged.output).toMatch(/^✗ getSpace: .*`Space\.urls`.*: removed, never deprecated in a release \(response-property-removed-without-deprecation\); response field \/urls received \(200 application\/json\)$/m);
    for (const name of ['harness-consumer', 'client-consumer']) expect((await deploy('--usage', path.join(consumers, `${name}.json`), '--contract', files.fieldRemoved!, '--base', files.base!)).code).toBe(0);
    const corrupt = path.join(scratch, 'corrupt.json');
    writeFileSync(corrupt, readFileSync(path.join(consumers, 'client-consumer.json'), 'utf8').slice(0, 100));
    const refused = await deploy('--usage', corrupt, '--contract', files.fieldRemoved!);
    expect(refused.code).toBe(2);
    expect(refused.output).toContain(`${corrupt}: not JSON`);
    // The contract's side: every consumer against the release and the revision.
    const table = await deploy('--consumers', consumers, '--contract', files.base!, '--contract', files.fieldRemoved!, '--base', files.base!);
    expect(table.code).toBe(1);
    expect(table.output).toMatch(/\| proxy-consumer 1\.0\.0 \| ✓ \| ✗ \d+ breaks? \|/);
    expect(table.output).toMatch(/\| client-consumer 1\.0\.0 \| ✓ \| ✓ \|/);
  }, 300_000);
});
