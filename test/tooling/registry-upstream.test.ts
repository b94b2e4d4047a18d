// What the package tests' registry serves of packages it proxies: no version above what the repository's lockfile
// has, so that a package test fails for a change here, not for a release upstream. test/README.md, "The registry the
// package tests publish to".
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, test } from 'vitest';
import { readJson } from '../support/packaging.ts';
import { packageEnvironment } from '../support/published-release.ts';
import { startRegistry } from '../support/registry.ts';
import { repoRoot } from '../support/repo.ts';

const run = promisify(execFile);
const scratch = mkdtempSync(path.join(os.tmpdir(), 'registry-upstream-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const lockedVersion = (name: string) =>
  (readJson(path.join(repoRoot, 'package-lock.json')) as { packages: Record<string, { version: string }> }).packages[`node_modules/${name}`]!.version;

test('a package the README installs by name, and what it depends on, are served at the lockfile’s version, though upstream has newer', async () => {
  const env = { ...packageEnvironment(path.join(scratch, 'npmrc')), npm_config_cache: path.join(scratch, 'cache') };
  const registry = await startRegistry({ folder: path.join(scratch, 'registry'), env });
  try {
    const view = async (name: string, field: string, at?: string) =>
      JSON.parse((await run('npm', ['view', name, field, '--json', ...(at ? ['--registry', at] : [])], { env, timeout: 120_000 })).stdout) as string | string[];
    // vitest (the README's `npm install … vitest`) and vite, which it depends on.
    for (const name of ['vitest', 'vite']) {
      const locked = lockedVersion(name);
      expect(await view(name, 'version', registry.url)).toBe(locked);
      const served = await view(name, 'versions', registry.url);
      expect(served).toContain(locked);
      // What upstream has beyond it (its latest, when that is newer) is not served.
      const upstream = (await view(name, 'version')) as string;
      if (upstream !== locked) expect(served).not.toContain(upstream);
    }
  } finally {
    await registry.stop();
  }
}, 300_000);
