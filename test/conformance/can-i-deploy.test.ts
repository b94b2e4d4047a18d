// can-i-deploy (conformance/can-i-deploy.ts): a consumer's usage record against a contract exits 0 when all it uses is
// there and accepted, 1 naming each use that is not, 2 on a record it cannot read; the consumers × contracts table; a
// contract named by its release version.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { canIDeployMain } from '../../conformance/can-i-deploy-command.ts';
import { loadContract } from '../../conformance/contract.ts';
import { usageOf } from '../../conformance/usage-fields.ts';
import { emptyUsage } from '../../conformance/usage-format.ts';

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
  const usage = emptyUsage({ name }, { version: '1.0.0' }, 'client');
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

test('a consumer can deploy against a contract that has all it uses; not against one without a field it read', async () => {
  expect(await deploy('--usage', reader, '--contract', files.released)).toMatchObject({ code: 0, out: `can-i-deploy: reader can deploy against ${files.released}\n` });
  const gone = await deploy('--usage', reader, '--contract', files.noTitle);
  expect(gone.code).toBe(1);
  expect(gone.out).toContain('✗ updateSpace: response field /title (200) is gone');
  // The other consumer never received the title, nor called the operation removed.
  expect((await deploy('--usage', locker, '--contract', files.noTitle)).code).toBe(0);
});

test('an enumeration that lost a value a consumer sent fails that consumer alone', async () => {
  const locked = await deploy('--usage', locker, '--contract', files.noLocked);
  expect(locked.code).toBe(1);
  expect(locked.out).toContain('✗ updateSpace: request field /editMode no longer accepts "locked"');
  expect((await deploy('--usage', reader, '--contract', files.noLocked)).code).toBe(0);
});

test('a corrupt record, an unreadable contract, or no contract is exit 2', async () => {
  const corrupt = path.join(scratch, 'corrupt.json');
  writeFileSync(corrupt, '{"format":');
  const broken = await deploy('--usage', corrupt, '--contract', files.released);
  expect(broken.code).toBe(2);
  expect(broken.err).toContain(`${corrupt}: not JSON`);
  expect((await deploy('--usage', reader, '--contract', path.join(scratch, 'missing.yaml'))).code).toBe(2);
  expect((await deploy('--usage', reader)).code).toBe(2);
});

test('the provider: every consumer against each contract, as a Markdown table and JSON', async () => {
  const json = path.join(scratch, 'table.json');
  const table = await deploy('--consumers', consumers, '--contract', files.released, '--contract', files.noLocked, '--json', json);
  expect(table.code).toBe(1);
  expect(table.out).toBe(
    [`| Consumer | ${files.released} | ${files.noLocked} |`, '|---|---|---|', '| locker | ✓ | ✗ 1 use gone |', '| reader | ✓ | ✓ |', ''].join('\n'),
  );
  expect(JSON.parse(readFileSync(json, 'utf8'))).toEqual({
    locker: { [files.released]: [], [files.noLocked]: ['updateSpace: request field /editMode no longer accepts "locked"'] },
    reader: { [files.released]: [], [files.noLocked]: [] },
  });
});


test('a contract named by its release version: from a folder or a URL of releases, or the releases the package carries', async () => {
  const releases = path.join(scratch, 'releases');
  for (const [version, file] of [['1.0.0', files.released], ['1.1.0', files.noTitle]] as const) {
    mkdirSync(path.join(releases, version), { recursive: true });
    writeFileSync(path.join(releases, version, 'openapi.yaml'), readFileSync(file));
  }
  expect((await deploy('--usage', reader, '--contract', '1.0.0', '--releases', releases)).code).toBe(0);
  const gone = await deploy('--usage', reader, '--contract', '1.1.0', '--releases', releases);
  expect(gone).toMatchObject({ code: 1, out: expect.stringContaining('can-i-deploy: reader cannot deploy against 1.1.0 (1 use gone)') });
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
    expect(table).toMatchObject({ code: 1, out: expect.stringContaining('| reader | ✓ | ✗ 1 use gone |') });
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
  expect(own).toMatchObject({ code: 1, out: `✗ noSuchOperation: the operation is gone\ncan-i-deploy: ghost cannot deploy against ${first} (1 use gone)\n` });
});
