// Upgrades keep every record: for each release with a fixture (test/fixtures/releases/<version>/: the database that
// release's server wrote, and every GET it answered; see the README there), this tree's server opens a copy,
// migrates it and answers each GET again with response validation on (release/upgrade-check.ts): every answer is the
// release's status within the contract (nothing refused), with every field the release answered (nothing lost), but
// for the values the contract refuses, which come back in the migrated form CHANGELOG.md describes.
// @needs processes
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { listReleases } from '../../breaking/files.ts';
import type { FixtureManifest } from '../../release/release-fixture.ts';
import { checkUpgrade, fixtureVersions, RELEASE_FIXTURES } from '../../release/upgrade-check.ts';
import { startTestServer } from '../support/server.ts';

describe('upgrades from each release', () => {
  test('CHANGELOG.md says, before the next release, what the upgrade rewrites', () => {
    const unreleased = readFileSync('CHANGELOG.md', 'utf8').split(/^## /m).find((section) => section.startsWith('Unreleased'));
    expect(unreleased).toContain('`O (o)`');
    expect(unreleased).toContain('`Untitled`');
  });

  test('the last release has a fixture: its database is what this tree must open', () => {
    const last = listReleases().at(-1);
    expect(last).toBeDefined();
    expect(fixtureVersions()).toContain(last!.version);
  });

  test.each(fixtureVersions())('a database written by the server of release %s opens, migrates and reads back: nothing lost, nothing refused', async (version) => {
    const result = await checkUpgrade(version);
    expect(result.reads).toBeGreaterThan(100);
    expect(result.problems).toEqual([]);
  }, 120_000);
});

describe('the upgrade check finds what an upgrade loses', () => {
  const scratch = mkdtempSync(path.join(tmpdir(), 'upgrade-check-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  test('a field the release answered and this server does not, a status that changed, a repair not made', async () => {
    const version = fixtureVersions()[0]!;
    cpSync(path.join(RELEASE_FIXTURES, version), path.join(scratch, version), { recursive: true });
    const file = path.join(scratch, version, 'reads.json');
    const manifest = JSON.parse(readFileSync(file, 'utf8')) as FixtureManifest;
    const team = manifest.reads.find((read) => read.operationId === 'getTeam')!;
    (team.body as Record<string, unknown>).lostField = 'kept by the release';
    const space = manifest.reads.find((read) => read.operationId === 'getSpace')!;
    space.path = '/v1/spaces/no-such-space';
    manifest.repaired.push({ table: 'spaces', column: 'title', id: 'handbook', from: 'Never stored', to: 'Never migrated' });
    writeFileSync(file, JSON.stringify(manifest));
    const { problems } = await checkUpgrade(version, scratch);
    expect(problems).toHaveLength(3);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^getSpace \/v1\/spaces\/no-such-space: answered 404, the release 200/),
        expect.stringMatching(/^getTeam .*: getTeam\.lostField was "kept by the release", is undefined$/),
        'spaces.title of handbook ("Never stored") was never read back as "Never migrated"',
      ]),
    );
  }, 120_000);

  test('npm run release refuses while a fixture does not upgrade, or the last release has none, and changes nothing', () => {
    const version = fixtureVersions()[0]!;
    const release = (fixtures: string) =>
      spawnSync(process.execPath, ['--import', 'tsx', 'release/release.ts', '99.0.0'], {
        encoding: 'utf8',
        env: { ...process.env, UPGRADE_FIXTURES: fixtures },
      });
    const before = spawnSync('git', ['status', '--porcelain'], { encoding: 'utf8' }).stdout;
    // The tampered copy of the test above.
    const failing = release(scratch);
    expect(failing.status, failing.stderr).toBe(1);
    expect(failing.stderr).toContain(`release: refused: a database written by the server of release ${version} does not upgrade`);
    expect(failing.stderr).toContain('getTeam.lostField was "kept by the release"');
    const none = release(path.join(scratch, 'empty'));
    expect(none.status, none.stderr).toBe(1);
    expect(none.stderr).toContain(`release: refused: no database written by the server of release ${version} to upgrade from`);
    expect(spawnSync('git', ['status', '--porcelain'], { encoding: 'utf8' }).stdout).toBe(before);
  }, 120_000);

  test('the deleted space of the release is still in the trash, and its admins can restore it', async () => {
    const version = fixtureVersions()[0]!;
    const manifest = JSON.parse(readFileSync(path.join(RELEASE_FIXTURES, version, 'reads.json'), 'utf8')) as FixtureManifest;
    const deleted = manifest.reads.find((read) => read.operationId === 'getSpace' && (read.body as { deletedAt?: string }).deletedAt !== undefined);
    expect(deleted).toBeDefined();
    const dataDir = path.join(scratch, 'restore');
    cpSync(path.join(RELEASE_FIXTURES, version), dataDir, { recursive: true });
    const server = await startTestServer({ engine: 'sqlite', dataDir, fixture: {}, recordCoverage: false });
    try {
      const spaceId = (deleted!.body as { id: string }).id;
      const restored = await server.withToken(manifest.token).POST('/v1/spaces/{spaceId}/restore', { params: { path: { spaceId } } });
      expect(restored.response.status).toBe(200);
      expect(restored.data?.deletedAt).toBeUndefined();
    } finally {
      await server.close();
    }
  });
});
