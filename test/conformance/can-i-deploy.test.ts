// can-i-deploy (conformance/judgement/can-i-deploy.ts): a usage record against a contract, judged as the change from the record's
// base (found among the releases, or --base): exit 0 when nothing breaks, 1 naming each break, 2 on an unreadable
// record; judged against the contract alone where the base is not found, saying so (and where a version-1 record judged
// less); the consumers × contracts table; a contract named by its version. Every rule family, with and without the
// base: test/contract/consumer-corpus.test.ts.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { canIDeployMain } from '../../conformance/judgement/can-i-deploy-command.ts';
import { PACKAGE_RELEASES } from '../../conformance/judgement/can-i-deploy.ts';
import { contractIdentity } from '../../conformance/records/consumer.ts';
import { loadContract } from '../../conformance/contract/contract.ts';
import { usageOf } from '../../conformance/records/usage-fields.ts';
import { emptyUsage } from '../../conformance/records/usage-format.ts';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'can-i-deploy-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const document = (space: Record<string, unknown>, modes: string[], withList = true) => ({
  openapi: '3.1.0',
  info: { title: 'Docs', version: '1.0.0' },
  paths: {
    '/spaces/{spaceId}': {
      patch: {
        operationId: 'updateSpace',
        parameters: [{ name: 'spaceId', in: 'path', required: true, schema: { type: 'string' } }],
        requestBody: { content: { 'application/json': { schema: { type: 'object', properties: { title: { type: 'string' }, editMode: { type: 'string', enum: modes } } } } } },
        responses: { '200': { description: 'The space.', content: { 'application/json': { schema: { $ref: '#/components/schemas/Space' } } } } },
      },
    },
    ...(withList ? { '/things': { get: { operationId: 'listThings', responses: { '204': { description: 'None.' } } } } } : {}),
  },
  components: { schemas: { Space: { type: 'object', properties: space } } },
});
const released = document({ id: { type: 'string' }, title: { type: 'string' } }, ['live', 'locked']);
const files = {
  released: path.join(scratch, 'released.json'),
  noTitle: path.join(scratch, 'no-title.json'),
  noLocked: path.join(scratch, 'no-locked.json'),
};
writeFileSync(files.released, JSON.stringify(released));
writeFileSync(files.noTitle, JSON.stringify(document({ id: { type: 'string' } }, ['live', 'locked'], false)));
writeFileSync(files.noLocked, JSON.stringify(document({ id: { type: 'string' }, title: { type: 'string' } }, ['live'])));

const contract = loadContract(released);
const consumers = path.join(scratch, 'consumers');
mkdirSync(consumers);
/** A consumer that patched a space with `body` and received `answer`. */
function record(name: string, body: Record<string, unknown>, answer: Record<string, unknown>): string {
  const usage = emptyUsage({ name }, contractIdentity(contract), 'client');
  usage.operations.updateSpace = usageOf(contract, {
    operation: contract.operations.get('updateSpace')!,
    parameters: [{ in: 'path', name: 'spaceId', value: 'a' }],
    request: { mediaType: 'application/json', body },
    status: 200,
    response: { mediaType: 'application/json', body: answer },
  });
  const file = path.join(consumers, `${name}.json`);
  writeFileSync(file, JSON.stringify(usage));
  return file;
}
const reader = record('reader', { title: 'x' }, { id: 'a', title: 'x' });
const locker = record('locker', { editMode: 'locked' }, { id: 'a' });

async function deploy(...argv: string[]) {
  let out = '';
  let err = '';
  const code = await canIDeployMain(argv, (text) => void (out += text), (text) => void (err += text));
  return { code, out, err };
}

/** A folder of releases, as generated/releases/ is: the document each version recorded. */
const releases = path.join(scratch, 'releases');
for (const [version, file] of [['1.0.0', files.released], ['1.1.0', files.noTitle]] as const) {
  mkdirSync(path.join(releases, version), { recursive: true });
  writeFileSync(path.join(releases, version, 'openapi.yaml'), readFileSync(file));
}
const judgedAgainst = '(the change from release 1.0.0, which its record was made against)';

test('a record made against a release is judged as the change from that release: a field it received removed breaks it', async () => {
  expect(await deploy('--usage', reader, '--contract', files.released, '--releases', releases)).toMatchObject({ code: 0, out: `can-i-deploy: reader can deploy against ${files.released}: ✓ ${judgedAgainst}\n` });
  const gone = await deploy('--usage', reader, '--contract', files.noTitle, '--releases', releases);
  expect(gone).toMatchObject({
    code: 1,
    out: `✗ updateSpace: \`Space.title\`: removed, never deprecated in a release (response-property-removed-without-deprecation); response field /title received (200 application/json)\ncan-i-deploy: reader cannot deploy against ${files.noTitle}: ✗ 1 break ${judgedAgainst}\n`,
  });
  // The other consumer never received the title, nor called the operation removed.
  expect((await deploy('--usage', locker, '--contract', files.noTitle, '--releases', releases)).code).toBe(0);
  // --base names the contract the record was made against, where it is not a release.
  expect(await deploy('--usage', reader, '--contract', files.noTitle, '--base', files.released)).toMatchObject({ code: 1, out: expect.stringContaining(`✗ 1 break (the change from ${files.released}, which its record was made against)`) });
});

test('with the base, a break only the record judged against the contract alone shows is a break, saying which judgement found it', async () => {
  // A record of the release that also received `/legacy`, which no contract here has: the base already failed it.
  const legacy = JSON.parse(readFileSync(reader, 'utf8')) as { consumer: { name: string }; operations: { updateSpace: { responses: Record<string, { present: string[] }> } } };
  legacy.consumer.name = 'legacy';
  legacy.operations.updateSpace.responses['200 application/json']!.present.push('/legacy');
  const file = path.join(scratch, 'legacy.json');
  writeFileSync(file, JSON.stringify(legacy));
  expect(await deploy('--usage', file, '--contract', files.released, '--releases', releases)).toEqual({
    code: 1,
    out: [
      '✗ updateSpace: response field /legacy (200 application/json), which its code received, is not in what the contract answers (found by its record judged against the contract alone; the base already failed it)',
      `can-i-deploy: legacy cannot deploy against ${files.released}: ✗ 1 break ${judgedAgainst}`,
      '',
    ].join('\n'),
    err: '',
  });
  // Where the change breaks the operation too, each break is named once: the change's (which the record judgement
  // finds too, so it is told as the change's), and the one the base already failed.
  const gone = await deploy('--usage', file, '--contract', files.noTitle, '--releases', releases);
  expect(gone.out.split('\n').filter((line) => line.startsWith('✗'))).toEqual([
    '✗ updateSpace: `Space.title`: removed, never deprecated in a release (response-property-removed-without-deprecation); response field /title received (200 application/json)',
    '✗ updateSpace: response field /legacy (200 application/json), which its code received, is not in what the contract answers (found by its record judged against the contract alone; the base already failed it)',
  ]);
});

test('an enumeration that lost a value a consumer sent breaks that consumer alone', async () => {
  const locked = await deploy('--usage', locker, '--contract', files.noLocked, '--releases', releases);
  expect(locked.code).toBe(1);
  expect(locked.out).toContain('✗ updateSpace: `editMode`: value "locked" removed (request-property-enum-value-removed); sent "locked" at /editMode');
  expect((await deploy('--usage', reader, '--contract', files.noLocked, '--releases', releases)).code).toBe(0);
});

test('where the contract a record was made against is not among the releases, it says so and judges the record against the contract alone', async () => {
  // The releases this package carries have a 1.0.0, but not the document these records were made against.
  const gone = await deploy('--usage', reader, '--contract', files.noTitle);
  expect(gone.code).toBe(1);
  const sha = contractIdentity(contract).sha256!.slice(0, 12);
  expect(gone.out).toBe(
    [
      `can-i-deploy: reader: the contract its record was made against (1.0.0, SHA-256 ${sha}…) is not release 1.0.0 in ${PACKAGE_RELEASES}, whose document differs: its record judged against the contract alone, whether it still accepts what the consumer sent and guarantees what it read (--base names the contract it was made against; a change to an enumeration it reads can only be told with it)`,
      '✗ updateSpace: response field /title (200 application/json), which its code received, is not in what the contract answers (judged against the contract alone)',
      `can-i-deploy: reader cannot deploy against ${files.noTitle}: ✗ 1 break (record alone)`,
      '',
    ].join('\n'),
  );
  const locked = await deploy('--usage', locker, '--contract', files.noLocked);
  expect(locked).toMatchObject({ code: 1, out: expect.stringContaining('✗ updateSpace: it sent "locked" at request field /editMode, which the contract does not accept (judged against the contract alone)') });
  // What the record alone shows that the presence of fields did not: a title longer than the contract now accepts.
  const shorter = path.join(scratch, 'shorter.json');
  const short = document({ id: { type: 'string' }, title: { type: 'string' } }, ['live', 'locked']);
  (short.paths['/spaces/{spaceId}'].patch.requestBody.content['application/json'].schema.properties.title as Record<string, unknown>).maxLength = 0;
  writeFileSync(shorter, JSON.stringify(short));
  expect(await deploy('--usage', reader, '--contract', shorter)).toMatchObject({
    code: 1,
    out: expect.stringContaining('✗ updateSpace: request field /title refuses what it sends: it sent strings of up to 1 characters, and it accepts at most 0 (judged against the contract alone)'),
  });

  // A version-1 record: judged with what it holds, and the output says what it could not judge.
  const old = JSON.parse(readFileSync(reader, 'utf8')) as { version: number };
  old.version = 1;
  const oldFile = path.join(scratch, 'old-reader.json');
  writeFileSync(oldFile, JSON.stringify(old));
  const judgedOld = await deploy('--usage', oldFile, '--contract', files.released);
  expect(judgedOld).toMatchObject({ code: 0, out: expect.stringContaining("can-i-deploy: reader's record is of version 1 of the format, which keeps no types, lengths or ranges") });
});

test('a corrupt record, an unreadable contract, or no contract is exit 2', async () => {
  const corrupt = path.join(scratch, 'corrupt.json');
  writeFileSync(corrupt, '{"format":');
  const broken = await deploy('--usage', corrupt, '--contract', files.released);
  expect(broken.code).toBe(2);
  expect(broken.err).toContain(`${corrupt}: not JSON`);
  expect((await deploy('--usage', reader, '--contract', path.join(scratch, 'missing.yaml'))).code).toBe(2);
  expect((await deploy('--usage', reader, '--contract', files.released, '--base', path.join(scratch, 'missing.yaml'))).code).toBe(2);
  expect((await deploy('--usage', reader)).code).toBe(2);
});

test('the provider: every consumer against each contract, as a Markdown table and JSON', async () => {
  const json = path.join(scratch, 'table.json');
  const table = await deploy('--consumers', consumers, '--contract', files.released, '--contract', files.noLocked, '--releases', releases, '--json', json);
  expect(table.code).toBe(1);
  expect(table.out).toBe([`| Consumer | ${files.released} | ${files.noLocked} |`, '|---|---|---|', '| locker | ✓ | ✗ 1 break |', '| reader | ✓ | ✓ |', ''].join('\n'));
  const change = { change: 'release 1.0.0' };
  const none = { breaks: [], warnings: [], notes: [] };
  expect(JSON.parse(readFileSync(json, 'utf8'))).toEqual({
    locker: {
      [files.released]: { verdict: 'untouched', judgedBy: change, ...none },
      [files.noLocked]: { verdict: 'breaks', judgedBy: change, ...none, breaks: ['updateSpace: `editMode`: value "locked" removed (request-property-enum-value-removed); sent "locked" at /editMode'] },
    },
    reader: { [files.released]: { verdict: 'untouched', judgedBy: change, ...none }, [files.noLocked]: { verdict: 'untouched', judgedBy: change, ...none } },
  });
  // Without the release the records were made against: each record judged against the contract alone, and a note says why.
  const alone = await deploy('--consumers', consumers, '--contract', files.noLocked);
  expect(alone.out).toContain('| locker | ✗ 1 break (record alone) |');
  expect(alone.out).toContain('| reader | ✓ (record alone) |');
  expect(alone.out).toMatch(/\nJudged with less:\n\n- locker: the contract its record was made against \(1\.0\.0, SHA-256 [0-9a-f]{12}…\) is not release 1\.0\.0 in .*: its record judged against the contract alone/);
});

test('a contract named by its release version: from a folder or a URL of releases, or the releases the package carries', async () => {
  expect((await deploy('--usage', reader, '--contract', '1.0.0', '--releases', releases)).code).toBe(0);
  const gone = await deploy('--usage', reader, '--contract', '1.1.0', '--releases', releases);
  expect(gone).toMatchObject({ code: 1, out: expect.stringContaining(`can-i-deploy: reader cannot deploy against 1.1.0: ✗ 1 break ${judgedAgainst}`) });
  const unknown = await deploy('--usage', reader, '--contract', '2.0.0', '--releases', releases);
  expect(unknown).toMatchObject({ code: 2, err: `can-i-deploy: no release 2.0.0 in ${releases} (it has 1.0.0, 1.1.0)\n` });

  // Over HTTP, as a static host serves a folder of releases.
  const server = http.createServer((request, response) => {
    const file = path.join(scratch, decodeURIComponent(new URL(request.url!, 'http://x').pathname));
    if (!file.startsWith(releases) || !existsSync(file)) return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': 'application/yaml' }).end(readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/releases/`;
    const table = await deploy('--consumers', consumers, '--contract', '1.0.0', '--contract', '1.1.0', '--releases', base);
    expect(table).toMatchObject({ code: 1, out: expect.stringContaining('| reader | ✓ | ✗ 1 break |') });
    const missing = await deploy('--usage', reader, '--contract', '3.0.0', '--releases', base);
    expect(missing).toMatchObject({ code: 2, err: `can-i-deploy: ${base}3.0.0/openapi.yaml: answered 404\n` });
  } finally {
    server.close();
  }

  // Without --releases: the releases recorded with the package (here, the repository's generated/releases/).
  const [first] = readdirSync('generated/releases');
  const ghost = emptyUsage({ name: 'ghost' }, { version: first! }, 'client');
  ghost.operations.noSuchOperation = { calls: 1, parameters: {}, body: {}, mediaTypes: [], responses: { '204': { present: [] } } };
  const ghostFile = path.join(scratch, 'ghost.json');
  writeFileSync(ghostFile, JSON.stringify(ghost));
  const own = await deploy('--usage', ghostFile, '--contract', first!);
  expect(own).toMatchObject({ code: 1, out: expect.stringContaining(`✗ noSuchOperation: it is no operation of the contract (judged against the contract alone)\ncan-i-deploy: ghost cannot deploy against ${first}: ✗ 1 break (record alone)\n`) });
  // A record made against the release the package carries, by its SHA-256: judged as the change, here none.
  const made = emptyUsage({ name: 'made' }, contractIdentity(loadContract(path.join('generated/releases', first!, 'openapi.yaml'))), 'client');
  const madeFile = path.join(scratch, 'made.json');
  writeFileSync(madeFile, JSON.stringify(made));
  expect(await deploy('--usage', madeFile, '--contract', first!)).toMatchObject({ code: 0, out: `can-i-deploy: made can deploy against ${first}: ✓ (the change from release ${first}, which its record was made against)\n` });
});
