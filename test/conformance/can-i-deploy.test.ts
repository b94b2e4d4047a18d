// can-i-deploy (conformance/can-i-deploy.ts): a consumer's usage record against a contract exits 0 when all it uses is
// there and accepted, 1 naming each use that is not, 2 on a record it cannot read; and the consumers × contracts table.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

