// The gate names the consumers a change breaks (`--consumers`, breaking/consumers.ts, by conformance/judgement/judgement.ts): by
// their usage records, a removed field breaks the consumer that received (or read) it alone, a removed operation no
// one calls breaks no known consumer, a new enum value of a field a consumer read is a warning naming it;
// each consumer's verdict, its record judged against the revision alone too, in every format; `--fail-on consumers`.
// Every rule family, case by case: consumer-corpus.test.ts.
// @needs processes
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, test } from 'vitest';
import { fieldPlace } from '../../conformance/judgement/judgement.ts';
import { judgeConsumerVerdicts } from '../../conformance/judgement/verdict.ts';
import { compareDocuments, evaluateGate } from '../../breaking/index.ts';
import { checkPromise, contractConsumerSources, promiseProblems } from '../../breaking/promise.ts';
import { failureReasons } from '../../breaking/report.ts';
import { emptyOperationUsage, emptyUsage, type UsageRecord } from '../../conformance/records/usage-format.ts';
import { repoRoot } from '../support/repo.ts';

const run = promisify(execFile);
const scratch = mkdtempSync(path.join(os.tmpdir(), 'breaking-consumers-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const document = (spaceProperties: Record<string, unknown>, withList: boolean) => ({
  openapi: '3.1.0',
  info: { title: 'Docs', version: '1.0.0' },
  paths: {
    '/spaces/{spaceId}': {
      get: {
        operationId: 'getSpace',
        parameters: [{ name: 'spaceId', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '200': { description: 'The space.', content: { 'application/json': { schema: { $ref: '#/components/schemas/Space' } } } } },
      },
    },
    ...(withList
      ? { '/things': { get: { operationId: 'listThings', responses: { '200': { description: 'Things.', content: { 'application/json': { schema: { type: 'array', items: { type: 'string' } } } } } } } } }
      : {}),
  },
  components: { schemas: { Space: { type: 'object', required: ['id'], properties: spaceProperties } } },
});
const base = document({ id: { type: 'string' }, title: { type: 'string' }, status: { type: 'string', enum: ['draft', 'live'] } }, true);
const revision = document({ id: { type: 'string' }, status: { type: 'string', enum: ['draft', 'live', 'archived'] } }, false);

/** A consumer that called getSpace and received `present` (and, with the client's recording, read `read`). */
function consumer(name: string, recordedBy: UsageRecord['recordedBy'][number], present: string[], read?: string[]): UsageRecord {
  const record = emptyUsage({ name, version: '1.0.0' }, { version: '1.0.0' }, recordedBy);
  const usage = emptyOperationUsage();
  usage.calls = 3;
  usage.parameters['path.spaceId'] = {};
  usage.responses['200 application/json'] = { present, ...(read ? { read } : {}), schemas: { '': ['Space'] } };
  record.operations.getSpace = usage;
  return record;
}
const records = [
  consumer('harness-consumer', 'harness', ['/id']),
  consumer('proxy-consumer', 'proxy', ['/id', '/title']),
  consumer('client-consumer', 'client', ['/id', '/title', '/status'], ['/status']),
];
const findings = compareDocuments(base, revision);
const hitsOf = (rule: string) => judgeConsumerVerdicts(findings, records, {}).byFinding.get(findings.find((finding) => finding.rule === rule)!)!;
const named = (rule: string) => hitsOf(rule).map((hit) => hit.consumer);

describe('the consumers a finding touches', () => {
  test('a field as the gate names it is a component and a pointer below it', () => {
    expect(fieldPlace('SpaceList.items[].title')).toEqual({ component: 'SpaceList', pointer: '/items/*/title' });
    expect(fieldPlace('Space.labels.*')).toEqual({ component: 'Space', pointer: '/labels/*' });
    expect(fieldPlace('request body.title')).toEqual({ component: undefined, pointer: '/title' });
  });

  test('a removed response field breaks the consumer that received it, not one whose code read other fields', () => {
    expect(findings.map((finding) => finding.rule).sort()).toEqual(expect.arrayContaining(['operation-removed', 'response-property-removed']));
    expect(named('response-property-removed')).toEqual(['proxy-consumer 1.0.0']);
    const [hit] = hitsOf('response-property-removed');
    expect(hit).toEqual({ consumer: 'proxy-consumer 1.0.0', verdict: 'breaks', operationId: 'getSpace', evidence: 'response field /title received (200 application/json)' });
  });

  test('an operation no consumer calls breaks none; a new enum value of a field read is for the consumer that read it', () => {
    expect(named('operation-removed')).toEqual([]);
    expect(hitsOf('response-property-enum-value-added')).toEqual([{ consumer: 'client-consumer 1.0.0', verdict: 'warns', operationId: 'getSpace', evidence: 'response field /status read (200 application/json)' }]);
  });
});

describe('npm run check:breaking -- --consumers', () => {
  const folder = path.join(scratch, 'consumers');
  mkdirSync(folder);
  for (const record of records) writeFileSync(path.join(folder, `${record.consumer.name}.json`), JSON.stringify(record));
  writeFileSync(path.join(scratch, 'base.json'), JSON.stringify(base));
  writeFileSync(path.join(scratch, 'revision.json'), JSON.stringify(revision));
  const check = (...args: string[]) =>
    run(process.execPath, [path.join(repoRoot, 'breaking/check.mjs'), '--base', path.join(scratch, 'base.json'), '--revision', path.join(scratch, 'revision.json'), ...args], { cwd: repoRoot }).then(
      (done) => ({ code: 0, stdout: done.stdout, stderr: done.stderr }),
      (failed: { code: number; stdout: string; stderr: string }) => ({ code: failed.code, stdout: failed.stdout, stderr: failed.stderr }),
    );

  test('each finding names the consumers it breaks, or none, in text, JSON and GitHub annotations', async () => {
    const text = await check('--consumers', folder);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain('It breaks proxy-consumer 1.0.0 (getSpace: response field /title received (200 application/json)).');
    expect(text.stdout).toContain('It breaks no known consumer.');
    expect(text.stdout).toContain('Warning for consumers: client-consumer 1.0.0 (getSpace: response field /status read (200 application/json)).');
    const json = JSON.parse((await check('--consumers', folder, '--format', 'json')).stdout) as { judged: { finding: { rule: string }; consumers: { consumer: string }[] }[] };
    const byRule = Object.fromEntries(json.judged.map((entry) => [entry.finding.rule, entry.consumers.map((hit) => hit.consumer)]));
    expect(byRule['response-property-removed-without-deprecation']).toEqual(['proxy-consumer 1.0.0']);
    expect(byRule['operation-removed-without-deprecation']).toEqual([]);
    const github = await check('--consumers', folder, '--format', 'github');
    expect(github.stdout).toMatch(/^::error .*It breaks proxy-consumer/m);
  }, 60_000);

  test("each consumer's verdict, by the change and by its record judged against the revision alone, in every format", async () => {
    const text = await check('--consumers', folder);
    expect(text.stdout).toContain('Consumers, each judged by the change and by its record against the revision alone:\n');
    expect(text.stdout).toContain('  proxy-consumer 1.0.0: breaks\n      ✗ getSpace: `Space.title`: removed, never deprecated in a release (response-property-removed-without-deprecation); response field /title received (200 application/json)\n');
    expect(text.stdout).toContain('  client-consumer 1.0.0: warns\n      ! getSpace: ');
    expect(text.stdout).toContain('  harness-consumer 1.0.0: untouched\n');
    const json = JSON.parse((await check('--consumers', folder, '--format', 'json')).stdout) as { consumers: { consumer: string; verdict: string; breaks: { foundBy: string }[] }[] };
    expect(json.consumers.map((outcome) => [outcome.consumer, outcome.verdict, outcome.breaks.map((use) => use.foundBy)])).toEqual([
      ['client-consumer 1.0.0', 'warns', []],
      ['harness-consumer 1.0.0', 'untouched', []],
      // The record judged against the revision alone finds it too: told once, found by both.
      ['proxy-consumer 1.0.0', 'breaks', ['both']],
    ]);
    const [markdown, junit, sarif, github] = await Promise.all(['markdown', 'junit', 'sarif', 'github'].map((format) => check('--consumers', folder, '--format', format)));
    expect(markdown!.stdout).toMatch(/^\| proxy-consumer 1.0.0: breaks \| ✗ getSpace: /m);
    expect(junit!.stdout).toContain('<testcase classname="check:breaking.consumers" name="proxy-consumer 1.0.0: breaks">');
    expect(JSON.stringify(JSON.parse(sarif!.stdout))).toContain('revision alone: client-consumer 1.0.0: warns');
    expect(github!.stdout).toMatch(/^::error title=check%3Abreaking consumer proxy-consumer 1.0.0::Consumers, .*: proxy-consumer 1.0.0: breaks%0A✗ getSpace: /m);
    expect(github!.stdout).toMatch(/^::notice title=check%3Abreaking consumer harness-consumer 1.0.0::.*harness-consumer 1.0.0: untouched$/m);
  }, 60_000);

  test('a break only the record judged against the revision alone shows (the base already failed it) is a break, saying which judgement found it', async () => {
    // A record made against an older contract: it received `/legacy`, which neither the base nor the revision has.
    const stale = path.join(scratch, 'stale');
    mkdirSync(stale);
    writeFileSync(path.join(stale, 'legacy-consumer.json'), JSON.stringify(consumer('legacy-consumer', 'proxy', ['/id', '/legacy'])));
    const text = await check('--consumers', stale);
    expect(text.stdout).toContain(
      '  legacy-consumer 1.0.0: breaks\n      ✗ getSpace: response field /legacy (200 application/json), which its code received, is not in what the contract answers (found by its record judged against the revision alone; the base already failed it)\n',
    );
    // No finding breaks it: each says so; yet --fail-on consumers fails on it, naming why.
    expect(text.stdout).not.toContain('It breaks legacy-consumer');
    const failing = await check('--consumers', stale, '--fail-on', 'consumers');
    expect(failing.code, failing.stdout).toBe(1);
    expect(failing.stdout).toContain('legacy-consumer 1.0.0: breaks (fails the gate)');
    expect(failing.stdout).toContain('check:breaking: FAILED: 1 consumer broken by what no change shows (its record judged against the revision alone)');
    const json = JSON.parse((await check('--consumers', stale, '--fail-on', 'consumers', '--format', 'json')).stdout) as { passed: boolean; consumers: { verdict: string; fails: boolean; breaks: { foundBy: string; baseAlreadyFailed: boolean }[] }[] };
    expect(json).toMatchObject({ passed: false, consumers: [{ verdict: 'breaks', fails: true, breaks: [{ foundBy: 'record', baseAlreadyFailed: true }] }] });
    const junit = await check('--consumers', stale, '--fail-on', 'consumers', '--format', 'junit');
    expect(junit.stdout).toContain('<failure type="consumer" message="legacy-consumer 1.0.0: breaks">');
  }, 60_000);

  test('--fail-on consumers fails only when a known consumer breaks; a record that cannot be read is exit 2', async () => {
    expect((await check('--consumers', folder, '--fail-on', 'consumers')).code).toBe(1);
    // Without the consumer that received the title, nothing known breaks: it passes, every finding still reported.
    const others = path.join(scratch, 'others');
    mkdirSync(others);
    for (const record of records.filter((each) => each.consumer.name !== 'proxy-consumer')) writeFileSync(path.join(others, `${record.consumer.name}.json`), JSON.stringify(record));
    const passing = await check('--consumers', others, '--fail-on', 'consumers');
    expect(passing.code, passing.stdout).toBe(0);
    expect(passing.stdout).toContain('It breaks no known consumer.');
    writeFileSync(path.join(others, 'broken.json'), '{"format":"docs-platform-usage","version":99}');
    const broken = await check('--consumers', others);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toContain(`written in version 99 of the format; this reads version 2`);
    expect((await check('--fail-on', 'consumers')).code).toBe(2);
  }, 60_000);
});

describe("the promise of a version range: a declared break that breaks a known consumer needs that consumer's acceptance", () => {
  // A repository whose tspconfig.yaml names its consumers' records (consumers/), as the breaking-change rule reads them.
  const root = path.join(scratch, 'repository');
  mkdirSync(path.join(root, 'consumers'), { recursive: true });
  writeFileSync(path.join(root, 'tspconfig.yaml'), 'linter:\n  enable:\n    "docs-platform-spec-rules/breaking-change":\n      consumers: ["consumers/"]\n');
  for (const record of records) writeFileSync(path.join(root, 'consumers', `${record.consumer.name}.json`), JSON.stringify(record));
  const removed = findings.find((finding) => finding.rule === 'response-property-removed')!;
  const declaration = { rule: removed.rule, schema: 'Space', path: removed.path, reason: 'Titles moved.' };
  const declarations = (acceptedBy?: string[]) => [
    { ...declaration, ...(acceptedBy ? { acceptedBy } : {}) },
    { rule: 'operation-removed', operation: 'listThings', path: '#/paths/~1things/get', reason: 'Nobody lists things.' },
  ];
  const judge = (revisionVersion: string, acceptedBy?: string[]) =>
    checkPromise(root, evaluateGate(findings, { baseVersion: '1.0.0', revisionVersion, declarations: declarations(acceptedBy) }), base, revision);

  test('the known consumers are those the rule names in tspconfig.yaml, resolved against the repository', () => {
    expect(contractConsumerSources(root)).toEqual([path.join(root, 'consumers')]);
    expect(contractConsumerSources(scratch)).toEqual([]);
  });

  test('a minor release may not hold a declared break a known consumer has not accepted: named, with the entry to add', async () => {
    const minor = await judge('1.1.0');
    expect(evaluateGate(findings, { baseVersion: '1.0.0', revisionVersion: '1.1.0', declarations: declarations() }).undeclared).toEqual([]);
    expect(minor.consumers).toBe(3);
    // The removed title breaks the consumer that received it; the removed operation, which no consumer calls, none.
    expect(minor.unaccepted.map((hit) => [hit.name, hit.declaration.rule])).toEqual([['proxy-consumer', 'response-property-removed']]);
    expect(promiseProblems(minor, 'spec/breaking-changes.yaml')).toEqual([
      `a release that is not a new major may not hold the declared break response-property-removed Space ${removed.path}: it breaks proxy-consumer 1.0.0 (getSpace: response field /title received (200 application/json)), a known consumer that has not accepted it. Once it has, add to that declaration in spec/breaking-changes.yaml: \`accepted-by: [proxy-consumer]\`; or release it as a new major.`,
    ]);
    // The gate's summary counts it as a problem, not as a problem of the versions compared.
    const verdict = evaluateGate(findings, { baseVersion: '1.0.0', revisionVersion: '1.1.0', declarations: declarations() });
    expect(failureReasons({ ...verdict, problems: promiseProblems(minor, 'spec/breaking-changes.yaml') })).toBe('1 problem');
  });

  test('accepted by that consumer, or released as a new major, it holds; another name accepts nothing; an unread source is named', async () => {
    expect((await judge('1.1.0', ['proxy-consumer'])).unaccepted).toEqual([]);
    expect((await judge('1.1.0', ['client-consumer'])).unaccepted.map((hit) => hit.name)).toEqual(['proxy-consumer']);
    expect(await judge('2.0.0')).toEqual({ consumers: 0, unaccepted: [], unread: [] });
    writeFileSync(path.join(root, 'consumers', 'broken.json'), '{');
    try {
      const unread = await judge('1.1.0', ['proxy-consumer']);
      expect(promiseProblems(unread, 'spec/breaking-changes.yaml')).toEqual([expect.stringMatching(/^whether a declared break breaks a known consumer is not known: a source of consumers was not read: .*broken\.json: not JSON/)]);
    } finally {
      rmSync(path.join(root, 'consumers', 'broken.json'));
    }
  });
});
