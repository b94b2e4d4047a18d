// The upgrade check: a database written by the server of a release (test/fixtures/releases/<version>/) is opened by
// this tree's server, migrated, and every GET the release answered is sent again, with response validation on. A
// problem is a status other than the release's, a field gone or changed, or a value the migration was to rewrite
// (domain/stored-values.ts) not in its migrated form. test/server/upgrade.test.ts and `npm run release` run it.
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readConfig } from '../server/common/config.ts';
import { startServer } from '../server/start/server.ts';
import type { FixtureManifest } from './release-fixture.ts';

/** The fixtures of the releases; UPGRADE_FIXTURES names another folder (the tests of `npm run release`'s refusal). */
export const RELEASE_FIXTURES = process.env.UPGRADE_FIXTURES
  ? path.resolve(process.env.UPGRADE_FIXTURES)
  : path.resolve(path.dirname(new URL(import.meta.url).pathname), '../test/fixtures/releases');

/** The versions with a fixture in `dir`. */
export const fixtureVersions = (dir = RELEASE_FIXTURES): string[] =>
  existsSync(dir)
    ? readdirSync(dir, { withFileTypes: true })
        .filter((entry) => entry.isDirectory() && existsSync(path.join(dir, entry.name, 'data.sqlite')))
        .map((entry) => entry.name)
    : [];

/**
 * Fields made anew on every read, not stored: the signed address of a file (its signature carries an expiry).
 * Compared by presence only.
 */
const MADE_ON_READ = new Set(['downloadURL']);

interface Difference {
  at: string;
  was: unknown;
  now: unknown;
}

/** Where `now` lacks or changes what `was` held (objects key by key, arrays item by item; `now` may hold more). */
function differences(was: unknown, now: unknown, at: string, rebase: (value: string) => string, out: Difference[]): void {
  if (typeof was === 'string') {
    if (rebase(was) !== now) out.push({ at, was, now });
    return;
  }
  if (Array.isArray(was)) {
    if (!Array.isArray(now) || now.length !== was.length) return void out.push({ at, was, now });
    was.forEach((item, index) => differences(item, now[index], `${at}[${index}]`, rebase, out));
    return;
  }
  if (was !== null && typeof was === 'object') {
    if (now === null || typeof now !== 'object' || Array.isArray(now)) return void out.push({ at, was, now });
    for (const [key, value] of Object.entries(was)) {
      const next = (now as Record<string, unknown>)[key];
      if (MADE_ON_READ.has(key)) {
        if (next === undefined) out.push({ at: `${at}.${key}`, was: value, now: next });
        continue;
      }
      differences(value, next, `${at}.${key}`, rebase, out);
    }
    return;
  }
  if (was !== now) out.push({ at, was, now });
}

export interface UpgradeResult {
  reads: number;
  problems: string[];
}

/** Opens a copy of the fixture of `version` in `dir` with this tree's server and replays its reads. */
export async function checkUpgrade(version: string, dir = RELEASE_FIXTURES): Promise<UpgradeResult> {
  const fixture = path.join(dir, version);
  const manifest = JSON.parse(readFileSync(path.join(fixture, 'reads.json'), 'utf8')) as FixtureManifest;
  const dataDir = mkdtempSync(path.join(tmpdir(), `upgrade-${version}-`));
  copyFileSync(path.join(fixture, 'data.sqlite'), path.join(dataDir, 'data.sqlite'));
  const problems: string[] = [];
  const config = readConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'silent', VALIDATE_RESPONSES: 'true' });
  const server = await startServer(config);
  try {
    const rebase = (value: string) => (value.startsWith(manifest.baseUrl) ? server.url + value.slice(manifest.baseUrl.length) : value);
    const repairs = manifest.repaired.map((repair) => ({ ...repair, seen: 0 }));
    for (const read of manifest.reads) {
      const search = read.query ? `?${new URLSearchParams(read.query)}` : '';
      const where = `${read.operationId} ${read.path}${search}`;
      const response = await fetch(`${server.url}${read.path}${search}`, { headers: { authorization: `Bearer ${manifest.token}` } });
      const text = await response.text();
      // Response validation is on: an answer the contract refuses is a 500.
      if (response.status !== read.status) {
        problems.push(`${where}: answered ${response.status}, the release ${read.status}: ${text.slice(0, 200)}`);
        continue;
      }
      const body = response.headers.get('content-type')?.includes('json') ? (JSON.parse(text) as unknown) : text;
      const found: Difference[] = [];
      differences(read.body, body, read.operationId, rebase, found);
      for (const difference of found) {
        // A value the migration rewrote: the release's value, now in its migrated form (or gone, when dropped).
        const repair = repairs.find((candidate) => candidate.from === difference.was && (candidate.to === null ? difference.now === undefined : candidate.to === difference.now));
        if (repair) repair.seen++;
        else problems.push(`${where}: ${difference.at} was ${JSON.stringify(difference.was)?.slice(0, 120)}, is ${JSON.stringify(difference.now)?.slice(0, 120)}`);
      }
    }
    for (const repair of repairs.filter((candidate) => candidate.seen === 0)) {
      problems.push(`${repair.table}.${repair.column} of ${repair.id} (${JSON.stringify(repair.from).slice(0, 40)}) was never read back as ${JSON.stringify(repair.to)?.slice(0, 40)}`);
    }
    return { reads: manifest.reads.length, problems };
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
