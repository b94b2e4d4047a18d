// The gate holds a removal to its deprecation (compare/removals.ts), through `check:breaking` and can-i-deploy on
// today's date (sunsets far in the past and the future, never today's): a removal the release did not deprecate is
// its own break; one before its sunset is refused whatever declares it; after its sunset it passes `--fail-on
// consumers` unless a consumer's record still uses it, and names those that do.
// @needs processes
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, test } from 'vitest';
import { canIDeployMain } from '../../conformance/judgement/can-i-deploy-command.ts';
import { contractIdentity } from '../../conformance/records/consumer.ts';
import { loadContract } from '../../conformance/contract/contract.ts';
import { emptyOperationUsage, emptyUsage } from '../../conformance/records/usage-format.ts';
import { repoRoot } from '../support/repo.ts';

const run = promisify(execFile);
const scratch = mkdtempSync(path.join(os.tmpdir(), 'breaking-removals-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const PAST = '2001-01-01';
const FUTURE = '2999-01-01';

/** getSpace, and listThings unless `list` is false (with `list` its deprecation). */
const document = (version: string, list: Record<string, unknown> | false) => ({
  openapi: '3.1.0',
  info: { title: 'Docs', version },
  paths: {
    '/spaces/{spaceId}': {
      get: {
        operationId: 'getSpace',
        parameters: [{ name: 'spaceId', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '200': { description: 'The space.', content: { 'application/json': { schema: { type: 'object', properties: { id: { type: 'string' } } } } } } },
      },
    },
    ...(list === false ? {} : { '/things': { get: { operationId: 'listThings', responses: { '204': { description: 'None.' } }, ...list } } }),
  },
});
const deprecated = (sunset: string) => ({ deprecated: true, 'x-deprecation': { reason: 'Use getSpace.', successor: 'getSpace' }, 'x-sunset': sunset });

const file = (name: string, value: unknown) => {
  const at = path.join(scratch, name);
  writeFileSync(at, JSON.stringify(value));
  return at;
};
const files = {
  undeprecated: file('undeprecated.json', document('1.0.0', {})),
  early: file('early.json', document('1.0.0', deprecated(FUTURE))),
  sunset: file('sunset.json', document('1.0.0', deprecated(PAST))),
  removed: file('removed.json', document('1.1.0', false)),
  removedMajor: file('removed-major.json', document('2.0.0', false)),
};

/** A consumer's record against `base`: it calls getSpace, and listThings when `lists`. */
function consumer(folder: string, name: string, base: string, lists: boolean): string {
  const contract = loadContract(JSON.parse(JSON.stringify(document('1.0.0', base === files.early ? deprecated(FUTURE) : deprecated(PAST)))));
  const record = emptyUsage({ name }, contractIdentity(contract), 'proxy');
  record.operations.getSpace = { ...emptyOperationUsage(), calls: 2, method: 'get', path: '/spaces/{spaceId}', parameters: { 'path.spaceId': {} }, responses: { '200 application/json': { present: ['/id'] } } };
  if (lists) record.operations.listThings = { ...emptyOperationUsage(), calls: 3, method: 'get', path: '/things', responses: { '204': { present: [] } } };
  mkdirSync(folder, { recursive: true });
  return file(path.join(path.relative(scratch, folder), `${name}.json`), record);
}
const stillUsing = path.join(scratch, 'still-using');
const lister = consumer(stillUsing, 'lister', files.sunset, true);
consumer(stillUsing, 'viewer', files.sunset, false);
const movedOn = path.join(scratch, 'moved-on');
const viewer = consumer(movedOn, 'viewer', files.sunset, false);

const check = (base: string, revision: string, ...args: string[]) =>
  run(process.execPath, [path.join(repoRoot, 'breaking/check.mjs'), '--base', base, '--revision', revision, ...args], { cwd: repoRoot }).then(
    (done) => ({ code: 0, stdout: done.stdout }),
    (failed: { code: number; stdout: string }) => ({ code: failed.code, stdout: failed.stdout }),
  );

describe('npm run check:breaking: a removal held to its deprecation', () => {
  test('removing an operation the release did not deprecate is its own break: declared (or calling it no known consumer, with --fail-on consumers), it passes', async () => {
    const plain = await check(files.undeprecated, files.removed);
    expect(plain.code).toBe(1);
    expect(plain.stdout).toContain('operation-removed-without-deprecation');
    expect(plain.stdout).toContain('GET /things removed, never deprecated in a release');
    expect(plain.stdout).toContain('- rule: operation-removed-without-deprecation\n  operation: listThings\n  path: "#/paths/~1things/get"');
    // As any break: with --fail-on consumers, it passes when no known consumer calls it.
    expect((await check(files.undeprecated, files.removed, '--consumers', movedOn, '--fail-on', 'consumers')).code).toBe(0);
    const declarations = path.join(scratch, 'declared.yaml');
    writeFileSync(declarations, '- rule: operation-removed-without-deprecation\n  operation: listThings\n  path: "#/paths/~1things/get"\n  reason: Nobody ever called it.\n');
    expect((await check(files.undeprecated, files.removed, '--declarations', declarations)).code).toBe(0);
  }, 60_000);

  test('removing it before its sunset is refused, whatever is declared, even in a major version', async () => {
    const early = await check(files.early, files.removed);
    expect(early.code).toBe(1);
    expect(early.stdout).toContain(`operation-removed-before-sunset`);
    expect(early.stdout).toContain(`GET /things removed before its sunset ${FUTURE} (deprecated; sunset ${FUTURE}: Use getSpace.)`);
    expect(early.stdout).toContain('Refused: 1 removal before its sunset, which no declaration or major version lets pass');
    const declarations = path.join(scratch, 'declared-early.yaml');
    writeFileSync(declarations, '- rule: operation-removed-before-sunset\n  operation: listThings\n  path: "#/paths/~1things/get"\n  reason: We want it gone now.\n');
    expect((await check(files.early, files.removedMajor, '--declarations', declarations)).code).toBe(1);
    expect((await check(files.early, files.removed, '--consumers', movedOn, '--fail-on', 'consumers')).code).toBe(1);
  }, 60_000);

  test('after its sunset, the removal breaks only the consumers whose records still call it, and names them', async () => {
    const using = await check(files.sunset, files.removed, '--consumers', stillUsing, '--fail-on', 'consumers');
    expect(using.code).toBe(1);
    expect(using.stdout).toContain(`GET /things removed after its sunset ${PAST} (deprecated; sunset ${PAST}: Use getSpace.) It breaks lister (listThings: calls it (3 calls)).`);
    expect(using.stdout).toContain('  viewer: untouched\n');
    const after = await check(files.sunset, files.removed, '--consumers', movedOn, '--fail-on', 'consumers');
    expect(after.code).toBe(0);
    expect(after.stdout).toContain('It breaks no known consumer.');
  }, 60_000);
});

async function deploy(...argv: string[]) {
  let out = '';
  let err = '';
  const code = await canIDeployMain(argv, (text) => void (out += text), (text) => void (err += text));
  return { code, out, err };
}

describe('can-i-deploy: the same judgement of a removal', () => {
  test('a consumer that still calls an operation removed before its sunset, or without deprecation, cannot deploy, told why', async () => {
    const early = await deploy('--usage', consumer(path.join(scratch, 'early'), 'lister', files.early, true), '--contract', files.removed, '--base', files.early);
    expect(early.code).toBe(1);
    expect(early.out).toContain(`listThings: GET /things removed before its sunset ${FUTURE} (deprecated; sunset ${FUTURE}: Use getSpace.) (operation-removed-before-sunset); calls it (3 calls)`);
    const after = await deploy('--usage', lister, '--contract', files.removed, '--base', files.sunset);
    expect(after.code).toBe(1);
    expect(after.out).toContain(`listThings: GET /things removed after its sunset ${PAST}`);
    expect(after.out).toContain('(operation-removed); calls it (3 calls)');
    expect((await deploy('--usage', viewer, '--contract', files.removed, '--base', files.sunset)).code).toBe(0);
  });
});
