// What `npm run pack:*` versions the packages as (release/prerelease.ts): the release's version while the contract is
// the last release's document, else a pre-release of the next minor, or of the next major where a minor may not hold
// a break; written into a package's manifest and the contract it carries, which a record then names, and can-i-deploy
// judges it with its base. Packing itself: tooling/package.test.ts.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { stringify } from 'yaml';
import { contractTag, packedVersion, prereleaseLine, stampVersion } from '../../release/prerelease.ts';
import { contractHash } from '../../server/http/contract.ts';
import { contractIdentity } from '../../conformance/records/consumer.ts';
import { loadContract, type OpenApiDocument } from '../../conformance/contract/contract.ts';
import { recordedContract } from '../../conformance/judgement/can-i-deploy.ts';
import { emptyUsage } from '../../conformance/records/usage-format.ts';
import { usageOf } from '../../conformance/records/usage-fields.ts';
import { canIDeployMain } from '../../conformance/judgement/can-i-deploy-command.ts';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'prerelease-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const space = { type: 'object', properties: { id: { type: 'string' }, title: { type: 'string' } } };
const document = (properties: Record<string, unknown>) => ({
  openapi: '3.1.0',
  info: { title: 'Docs', version: '1.0.0', description: 'Spaces.\n\nAnd their titles.' },
  paths: {
    '/spaces/{spaceId}': {
      get: {
        operationId: 'getSpace',
        parameters: [{ name: 'spaceId', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '200': { description: 'The space.', content: { 'application/json': { schema: { ...space, properties } } } } },
      },
    },
  },
});
const released = document(space.properties);

/** A repository holding release 1.0.0 of `released` and `current` as generated/openapi.yaml. */
function repository(name: string, current: Record<string, unknown>): string {
  const root = path.join(scratch, name);
  mkdirSync(path.join(root, 'generated/releases/1.0.0'), { recursive: true });
  mkdirSync(path.join(root, 'spec'));
  writeFileSync(path.join(root, 'generated/releases/1.0.0/openapi.yaml'), stringify(released));
  writeFileSync(path.join(root, 'generated/openapi.yaml'), stringify(current));
  writeFileSync(path.join(root, 'spec/breaking-changes.yaml'), '[]\n');
  return root;
}

test("the release's document packs as its version; unreleased changes as a pre-release of the next minor, or of the next major where a minor may not hold a break", async () => {
  expect(await packedVersion(repository('released', released), '1.0.0')).toEqual({ version: '1.0.0' });
  const added = document({ ...space.properties, icon: { type: 'string' } });
  const minor = await packedVersion(repository('added', added), '1.0.0');
  expect(minor).toEqual({ version: `1.1.0-dev.${contractTag(added)}`, unreleased: { base: '1.0.0', next: 'minor' } });
  expect(prereleaseLine(minor as typeof minor & { unreleased: object })).toBe(`pack: the contract has changes release 1.0.0 does not: packed as 1.1.0-dev.${contractTag(added)}, a pre-release of the next minor`);
  // The title removed and not declared: no minor may hold it.
  const removed = document({ id: { type: 'string' } });
  expect(await packedVersion(repository('removed', removed), '1.0.0')).toEqual({ version: `2.0.0-dev.${contractTag(removed)}`, unreleased: { base: '1.0.0', next: 'major', why: '1 undeclared break(s)' } });
  expect(contractTag(added)).not.toBe(contractTag(removed));
});

test("a package is stamped with the pre-release: its manifest, the server's peer range of the client, the contract it carries and the server's JSON copy of it", () => {
  const folder = path.join(scratch, 'server-package');
  mkdirSync(path.join(folder, 'generated'), { recursive: true });
  mkdirSync(path.join(folder, 'dist/server'), { recursive: true });
  const yamlText = stringify(released);
  writeFileSync(path.join(folder, 'generated/openapi.yaml'), yamlText);
  writeFileSync(path.join(folder, 'dist/server/openapi.json'), JSON.stringify({ sha256: contractHash(yamlText), document: released }));
  writeFileSync(path.join(folder, 'package.json'), JSON.stringify({ name: 'server', version: '1.0.0', peerDependencies: { client: '^1.0.0', typescript: '>=5.4' } }));
  stampVersion(folder, '1.1.0-dev.abc', 'client');

  expect(JSON.parse(readFileSync(path.join(folder, 'package.json'), 'utf8'))).toEqual({ name: 'server', version: '1.1.0-dev.abc', peerDependencies: { client: '^1.1.0-dev.abc', typescript: '>=5.4' } });
  const stamped = readFileSync(path.join(folder, 'generated/openapi.yaml'), 'utf8');
  expect(stamped).toBe(yamlText.replace('  version: 1.0.0\n', '  version: 1.1.0-dev.abc\n'));
  const json = JSON.parse(readFileSync(path.join(folder, 'dist/server/openapi.json'), 'utf8')) as { sha256: string; document: OpenApiDocument };
  expect(json).toEqual({ sha256: contractHash(stamped), document: { ...released, info: { ...released.info, version: '1.1.0-dev.abc' } } });
});

test('a record made against a pre-release is judged with its base: the exact contract this package carries, else the release below it; never "is not release"', async () => {
  const carried = loadContract().document;
  const version = '9.9.0-dev.abc';
  const exact = contractIdentity(loadContract({ ...carried, info: { ...(carried.info as object), version } } as OpenApiDocument));
  expect(await recordedContract(emptyUsage({ name: 'packed' }, exact, 'client'))).toMatchObject({ label: `pre-release ${version}, the contract this package carries` });

  // Another pre-release (its document is not the one carried here): judged from release 1.0.0 of a folder of releases.
  const releases = path.dirname(path.dirname(path.join(repository('releases', released), 'generated/releases/1.0.0/openapi.yaml')));
  const reader = emptyUsage({ name: 'reader' }, { version: '1.1.0-dev.other', sha256: '0'.repeat(64) }, 'client');
  const contract = loadContract(released as OpenApiDocument);
  reader.operations.getSpace = usageOf(contract, {
    operation: contract.operations.get('getSpace')!,
    parameters: [{ in: 'path', name: 'spaceId', value: 'a' }],
    status: 200,
    response: { mediaType: 'application/json', body: { id: 'a', title: 'x' } },
  });
  const file = path.join(scratch, 'reader.json');
  writeFileSync(file, JSON.stringify(reader));
  const noTitle = path.join(scratch, 'no-title.json');
  writeFileSync(noTitle, JSON.stringify(document({ id: { type: 'string' } })));
  let out = '';
  const code = await canIDeployMain(['--usage', file, '--contract', noTitle, '--releases', releases], (text) => void (out += text), () => {});
  expect(code).toBe(1);
  expect(out).not.toMatch(/is not (a |among the )?release/);
  expect(out).toMatch(/✗ getSpace: `.*title`: removed/);
  expect(out).toContain(`can-i-deploy: reader cannot deploy against ${noTitle}: ✗ 1 break (the change from release 1.0.0, the base of pre-release 1.1.0-dev.other, which its record was made against)\n`);
});
