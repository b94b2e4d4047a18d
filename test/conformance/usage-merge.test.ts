// Several usage records of one consumer (conformance/records/usage-merge.ts): `docs-conformance usage merge` makes a sharded
// CI's records one, and refuses records of two consumers, contract versions or documents, a corrupt record or one of
// a newer format, naming the file and writing nothing; a folder holding two records of one consumer is merged for
// can-i-deploy and the gate; the proxy refuses a --usage file it cannot merge into before its command runs; the gate
// names an unreadable record in one line; a harness's record and a client's, merged, break wherever either breaks.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, test } from 'vitest';
import { compareDocuments } from '../../compare/index.ts';
import { canIDeployMain } from '../../conformance/judgement/can-i-deploy-command.ts';
import { judgeConsumerVerdicts } from '../../conformance/judgement/verdict.ts';
import { type Contract, loadContract, type OpenApiDocument } from '../../conformance/contract/contract.ts';
import { contractIdentity } from '../../conformance/records/consumer.ts';
import { mergeUsageRecords } from '../../conformance/records/recording.ts';
import { runProxyCommand } from '../../conformance/proxy/proxy-command.ts';
import { usageOf } from '../../conformance/records/usage-fields.ts';
import { emptyUsage, mergeNamedUsage, parseUsageRecord, USAGE_VERSION, type UsageRecord } from '../../conformance/records/usage-format.ts';
import { usageMain } from '../../conformance/records/usage-merge-command.ts';
import { repoRoot } from '../support/repo.ts';

const run = promisify(execFile);
const scratch = mkdtempSync(path.join(os.tmpdir(), 'usage-merge-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const contract = loadContract({
  openapi: '3.1.0',
  info: { title: 'Docs', version: '1.0.0' },
  paths: {
    '/spaces/{spaceId}': {
      patch: {
        operationId: 'updateSpace',
        parameters: [{ name: 'spaceId', in: 'path', required: true, schema: { type: 'string' } }],
        requestBody: { content: { 'application/json': { schema: { type: 'object', properties: { title: { type: 'string' }, editMode: { type: 'string', enum: ['live', 'locked'] } } } } } },
        responses: { '200': { description: 'The space.', content: { 'application/json': { schema: { type: 'object', properties: { id: { type: 'string' }, title: { type: 'string' } } } } } } },
      },
    },
  },
});
const contractFile = path.join(scratch, 'contract.json');
writeFileSync(contractFile, JSON.stringify(contract.document));

/** A job's record of `name`: one call sending `body`, receiving `answer`. */
function job(name: string, body: Record<string, unknown>, answer: Record<string, unknown>, version = '1.0.0'): UsageRecord {
  const record = emptyUsage({ name, version: '2.1.0', commit: 'abc' }, { version, sha256: 'a'.repeat(64) }, 'client');
  record.operations.updateSpace = usageOf(contract, {
    operation: contract.operations.get('updateSpace')!,
    parameters: [{ in: 'path', name: 'spaceId', value: 'a' }],
    request: { mediaType: 'application/json', body },
    status: 200,
    response: { mediaType: 'application/json', body: answer },
  });
  return record;
}
/** Writes `value` (a record, or text) into `file` under the scratch folder; returns its path. */
function write(file: string, value: UsageRecord | string): string {
  const at = path.join(scratch, file);
  mkdirSync(path.dirname(at), { recursive: true });
  writeFileSync(at, typeof value === 'string' ? value : JSON.stringify(value));
  return at;
}

async function command(main: typeof usageMain, ...argv: string[]) {
  let out = '';
  let err = '';
  const code = await main(argv, (text) => void (out += text), (text) => void (err += text));
  return { code, out, err };
}
const merge = (...argv: string[]) => command(usageMain, 'merge', ...argv);

describe('docs-conformance usage merge', () => {
  const shards = path.dirname(write('shards/1.json', job('billing', { editMode: 'live' }, { id: 'a' })));
  write('shards/2.json', job('billing', { editMode: 'locked', title: 'x' }, { id: 'a', title: 'x' }));

  test("a sharded CI's records of one consumer become one: calls add up, fields and values unite", async () => {
    const out = path.join(scratch, 'merged/usage.json');
    const merged = await merge(shards, '--out', out);
    expect(merged).toEqual({ code: 0, out: '', err: `usage merge: billing: 1 operation (2 calls) of contract 1.0.0, from 2 records: ${out}\n` });
    const record = parseUsageRecord(readFileSync(out, 'utf8'), out);
    expect(record.consumer).toEqual({ name: 'billing', version: '2.1.0', commit: 'abc' });
    expect(record.operations.updateSpace).toMatchObject({ calls: 2, body: { '/editMode': { values: ['live', 'locked'] }, '/title': {} } });
    expect(record.operations.updateSpace!.responses['200 application/json']!.present).toEqual(['/id', '/title']);
    // Files and URLs alike; without --out, the record is printed.
    const printed = await merge(path.join(shards, '1.json'), path.join(shards, '2.json'));
    expect(JSON.parse(printed.out)).toEqual(record);
    // The merged record merges again with the next job's: name the file among the records.
    expect((await merge(out, write('shards-3/3.json', job('billing', {}, {})), '--out', out)).code).toBe(0);
    expect(parseUsageRecord(readFileSync(out, 'utf8'), out).operations.updateSpace!.calls).toBe(3);
    // In a folder given, the --out file is last run's merge, and is not read again.
    const inFolder = path.join(shards, 'usage.json');
    for (let run = 0; run < 2; run++) expect((await merge(shards, '--out', inFolder)).err).toContain('from 2 records');
    expect(parseUsageRecord(readFileSync(inFolder, 'utf8'), inFolder).operations.updateSpace!.calls).toBe(2);
    rmSync(inFolder);
  });

  test('records of two consumers, two contract versions or two documents, a corrupt record or one of a newer format: exit 2 naming the file, nothing written', async () => {
    const out = path.join(scratch, 'refused.json');
    const one = path.join(shards, '1.json');
    const cases: [string, RegExp | string][] = [
      [write('other/search.json', job('search', {}, {})), `records of two consumers, billing and search (${one} is billing's)`],
      [write('other/next.json', job('billing', {}, {}, '1.1.0')), `records of billing against two contract versions, 1.0.0 and 1.1.0 (${one} is of 1.0.0)`],
      [write('other/document.json', { ...job('billing', {}, {}), contract: { version: '1.0.0', sha256: 'b'.repeat(64) } }), 'records of billing against two documents of contract 1.0.0, SHA-256 aaaaaaaaaaaa… and bbbbbbbbbbbb…'],
      [write('other/corrupt.json', JSON.stringify(job('billing', {}, {})).slice(0, 60)), /^not JSON/],
      [write('other/newer.json', { ...job('billing', {}, {}), version: USAGE_VERSION + 1 } as unknown as UsageRecord), `written in version ${USAGE_VERSION + 1} of the format; this reads version ${USAGE_VERSION}: upgrade the package that reads it`],
    ];
    for (const [file, problem] of cases) {
      const refused = await merge(one, file, '--out', out);
      expect(refused.code, file).toBe(2);
      expect(refused.out).toBe('');
      expect(refused.err.split('\n')).toEqual([expect.stringMatching(new RegExp(`^usage merge: ${escape(file)}: ${typeof problem === 'string' ? escape(problem) : problem.source.slice(1)}`)), '']);
      expect(existsSync(out), file).toBe(false);
    }
    // A file already there is left as it was.
    writeFileSync(out, 'kept');
    expect((await merge(one, cases[0]![0], '--out', out)).code).toBe(2);
    expect(readFileSync(out, 'utf8')).toBe('kept');
    expect(await merge(path.join(scratch, 'empty-folder-that-is-not-there'))).toMatchObject({ code: 2, err: expect.stringContaining('empty-folder-that-is-not-there') });
    mkdirSync(path.join(scratch, 'empty'));
    expect(await merge(path.join(scratch, 'empty'))).toMatchObject({ code: 2, err: `usage merge: no usage record in ${path.join(scratch, 'empty')} (a folder's records are its .json files)\n` });
    expect(await command(usageMain, 'split')).toMatchObject({ code: 2, err: expect.stringContaining('unknown command split') });
  });

  test('the installed command dispatches usage merge (cli.ts), its help says what it does and its exit codes', async () => {
    const help = await run(process.execPath, ['--import', 'tsx', 'conformance/cli.ts', 'usage', 'merge', '--help'], { cwd: repoRoot });
    expect(help.stdout).toMatch(/^Usage: docs-conformance usage merge <record\|pact\|folder\|URL>\.\.\. \[--out FILE\] \[--contract <file\|URL>\]/);
    expect(help.stdout).toContain('Exit codes:');
  });
});

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('two records of one consumer where one is expected', () => {
  test("can-i-deploy's table: a folder's two records of one consumer are merged into one row, and said; two of two contract versions are exit 2 naming both", async () => {
    const consumers = path.dirname(write('consumers/billing-shard-1.json', job('billing', { editMode: 'live' }, { id: 'a' })));
    write('consumers/billing-shard-2.json', job('billing', { editMode: 'locked' }, { id: 'a' }));
    write('consumers/search.json', job('search', { title: 'x' }, { id: 'a' }));
    // Judged as the change from the contract the records were made against (not a release: named with --base).
    const table = await command(canIDeployMain, '--consumers', consumers, '--contract', contractFile, '--base', contractFile);
    expect(table.code).toBe(0);
    expect(table.out.split('\n').filter((line) => line.startsWith('| billing'))).toEqual(['| billing 2.1.0 | ✓ |']);
    expect(table.err).toBe(`can-i-deploy: billing's 2 records merged into one (${path.join(consumers, 'billing-shard-1.json')}, ${path.join(consumers, 'billing-shard-2.json')})\n`);
    // The merged record is judged: the value only the second shard sent counts.
    const noLocked = path.join(scratch, 'no-locked.json');
    writeFileSync(noLocked, JSON.stringify(contract.document).replace('"live","locked"', '"live"'));
    expect((await command(canIDeployMain, '--consumers', consumers, '--contract', noLocked, '--base', contractFile)).out).toContain('| billing 2.1.0 | ✗ 1 break |');

    const stale = write('consumers/billing-stale.json', job('billing', {}, {}, '0.9.0'));
    const refused = await command(canIDeployMain, '--consumers', consumers, '--contract', contractFile, '--base', contractFile);
    expect(refused).toEqual({ code: 2, out: '', err: `can-i-deploy: ${stale}: records of billing against two contract versions, 1.0.0 and 0.9.0 (${path.join(consumers, 'billing-shard-1.json')} is of 1.0.0)\n` });
    rmSync(stale);
  });

  test("the gate's --consumers: two records of one consumer merged, and said; an unreadable record is one line naming it, without the usage text", async () => {
    const folder = path.dirname(write('gate/billing.json', job('billing', {}, {})));
    write('gate/billing-2.json', job('billing', { editMode: 'live' }, {}));
    const gate = () =>
      run(process.execPath, [path.join(repoRoot, 'breaking/check.mjs'), '--base', contractFile, '--revision', contractFile, '--consumers', folder], { cwd: repoRoot }).then(
        (done) => ({ code: 0, stderr: done.stderr }),
        (failure: { code: number; stderr: string }) => failure,
      );
    expect(await gate()).toEqual({ code: 0, stderr: `check:breaking: --consumers: billing's 2 records merged into one (${path.join(folder, 'billing-2.json')}, ${path.join(folder, 'billing.json')})\n` });
    const broken = write('gate/broken.json', { ...job('billing', {}, {}), version: USAGE_VERSION + 1 } as unknown as UsageRecord);
    const refused = await gate();
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(`check:breaking: --consumers: ${broken}: written in version ${USAGE_VERSION + 1} of the format; this reads version ${USAGE_VERSION}: upgrade the package that reads it\n`);
  }, 60_000);

  test('the proxy refuses a --usage file it could not merge into before its command runs, and leaves it as it was', async () => {
    const file = write('proxy/usage.json', job('billing', {}, {}));
    const before = readFileSync(file, 'utf8');
    const ran = path.join(scratch, 'proxy/ran');
    await expect(
      runProxyCommand({
        target: 'http://127.0.0.1:9',
        contract: contractFile,
        consumer: { name: 'search' },
        usage: file,
        command: [process.execPath, '-e', `require('node:fs').writeFileSync(${JSON.stringify(ran)}, '')`],
        stderr: () => undefined,
      }),
    ).rejects.toThrow(`--usage: ${file}: records of two consumers, search and billing (this run's record is search's)`);
    expect(existsSync(ran)).toBe(false);
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  test('mergeNamedUsage names each record by its source', () => {
    const first = { record: job('billing', {}, {}), source: 'a.json' };
    expect(mergeNamedUsage(first, { record: job('billing', {}, {}), source: 'b.json' }).operations.updateSpace!.calls).toBe(2);
    expect(() => mergeNamedUsage(first, { record: job('search', {}, {}), source: 'b.json' })).toThrow("b.json: records of two consumers, billing and search (a.json is billing's)");
  });
});

describe('a harness record and a client record of one consumer merged', () => {
  // Space's fields are all required: a change makes one optional or removes it.
  const space = { type: 'object', required: ['id', 'title', 'editMode'], properties: { id: { type: 'string' }, title: { type: 'string' }, editMode: { type: 'string' } } };
  const answer = (schema: object) => ({ '200': { description: 'ok', content: { 'application/json': { schema } } } });
  const spaces = {
    openapi: '3.1.0',
    info: { title: 'Docs', version: '1.0.0' },
    paths: {
      '/spaces': { get: { operationId: 'listSpaces', responses: answer({ type: 'object', required: ['items'], properties: { items: { type: 'array', items: { $ref: '#/components/schemas/Space' } } } }) } },
      '/spaces/{spaceId}': { get: { operationId: 'getSpace', parameters: [{ name: 'spaceId', in: 'path', required: true, schema: { type: 'string' } }], responses: answer({ $ref: '#/components/schemas/Space' }) } },
    },
    components: { schemas: { Space: space } },
  };
  const base = loadContract(structuredClone(spaces) as OpenApiDocument);
  const one = { id: 'a', title: 'Home', editMode: 'live' };
  /** A record of `by`: each call's operation, answer and, for the client's, the fields its code read. */
  function recorded(by: 'harness' | 'client', calls: { operationId: string; body: unknown; read?: string[] }[]): UsageRecord {
    const record = emptyUsage({ name: 'search' }, contractIdentity(base), by);
    for (const { operationId, body, read } of calls) {
      const usage = usageOf(base, { operation: base.operations.get(operationId)!, parameters: operationId === 'getSpace' ? [{ in: 'path', name: 'spaceId', value: 'a' }] : [], status: 200, response: { mediaType: 'application/json', body } });
      if (read) usage.responses['200 application/json']!.read = read;
      record.operations[operationId] = usage;
    }
    return record;
  }
  // The harness's servers answered listSpaces and getSpace to the consumer's code (what it reads unknown); the typed
  // client's calls read getSpace's editMode and listSpaces' titles only.
  const harness = recorded('harness', [
    { operationId: 'listSpaces', body: { items: [one] } },
    { operationId: 'getSpace', body: one },
  ]);
  const client = recorded('client', [
    { operationId: 'listSpaces', body: { items: [one] }, read: ['/items', '/items/*', '/items/*/title'] },
    { operationId: 'getSpace', body: one, read: ['/editMode'] },
  ]);
  /** The revision where Space's `field` is made optional, or removed. */
  function revised(field: string, removed: boolean): Contract {
    const document = structuredClone(spaces);
    const changed = document.components.schemas.Space;
    changed.required = changed.required.filter((name) => name !== field);
    if (removed) delete (changed.properties as Record<string, unknown>)[field];
    return loadContract(document as OpenApiDocument);
  }
  /** The operations can-i-deploy's judgement (judgeConsumerVerdicts, as judgeDeploy calls it) finds `record` broken in. */
  const brokenIn = (record: UsageRecord, revision: Contract) =>
    [...new Set(judgeConsumerVerdicts(compareDocuments(base.document, revision.document), [record], { revision, base, against: 'the contract' }).consumers[0]!.breaks.map((use) => use.operationId))].sort();

  test('merged by the run and by usage merge, in either order, it breaks on every change either alone breaks on, in every operation', async () => {
    // The run's merge: each record in the folder's records/, as the harness's servers and the client's processes write them.
    const folder = path.join(scratch, 'precision');
    write('precision/records/client-1.json', client);
    write('precision/records/server-1.json', harness);
    const byRun = mergeUsageRecords({ folder, log: () => undefined })!;
    // The run's merge into a file holding the harness's record; and usage merge, the harness's record first.
    write('precision/into/usage.json', harness);
    write('precision/into/records/client-1.json', client);
    const intoFile = mergeUsageRecords({ folder: path.join(scratch, 'precision/into'), merge: true, log: () => undefined })!;
    const out = path.join(scratch, 'precision/merged.json');
    expect((await merge(write('precision/harness.json', harness), write('precision/client.json', client), '--out', out)).code).toBe(0);
    const byCommand = parseUsageRecord(readFileSync(out, 'utf8'), out);
    expect(byCommand.recordedBy).toEqual(['client', 'harness']);

    const changes = ['editMode', 'title', 'id'].flatMap((field) => [false, true].map((removed) => ({ change: `Space.${field} ${removed ? 'removed' : 'made optional'}`, revision: revised(field, removed) })));
    for (const { change, revision } of changes) {
      const alone = [...new Set([...brokenIn(harness, revision), ...brokenIn(client, revision)])].sort();
      expect(alone.length, change).toBeGreaterThan(0);
      for (const [how, merged] of Object.entries({ byRun, intoFile, byCommand })) expect(brokenIn(merged, revision), `${change}, merged ${how}`).toEqual(alone);
    }
    // editMode made optional: the harness's record alone breaks listSpaces (it received editMode there), the client's
    // getSpace only (it read editMode there, titles only in listSpaces); merged, both.
    const editMode = revised('editMode', false);
    expect([brokenIn(harness, editMode), brokenIn(client, editMode), brokenIn(byRun, editMode)]).toEqual([['getSpace', 'listSpaces'], ['getSpace'], ['getSpace', 'listSpaces']]);
    // Each break says what shows it: a field the client's code read, read; one only the harness's calls received, received.
    const evidence = judgeConsumerVerdicts(compareDocuments(base.document, editMode.document), [byRun], { revision: editMode, base }).consumers[0]!.breaks.map((use) => `${use.operationId}: ${use.evidence}`);
    expect(evidence.sort()).toEqual(['getSpace: response field /editMode read (200 application/json)', 'listSpaces: response field /items/*/editMode received (200 application/json)']);
  });
});
