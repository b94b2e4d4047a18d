// What npm's cache gives the package tests' installs (support/published-release.ts, installEnvironment): a registry on
// a port an earlier one used, serving another build of the same version, is what an install takes, never the
// metadata npm cached from the earlier one. test/README.md, "The registry the package tests publish to".
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, test } from 'vitest';
import { installEnvironment, packageEnvironment } from '../support/published-release.ts';
import { OWN_PACKAGES, startRegistry } from '../support/registry.ts';

const run = promisify(execFile);
const scratch = mkdtempSync(path.join(os.tmpdir(), 'registry-cache-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

test('an install from a registry on the port an earlier registry used takes what it serves, not what npm cached of the other', async () => {
  const env = packageEnvironment(path.join(scratch, 'npmrc'));
  const name = OWN_PACKAGES[0]!;
  // Contents of this run only, so that npm's cache holds neither tarball before the test.
  const token = randomUUID();
  /** Starts a registry on `port`, publishes `name@1.0.0` saying `which` there, installs it in a new project, stops the registry. */
  const publishAndInstall = async (which: string, port: number) => {
    const folder = path.join(scratch, which);
    const registry = await startRegistry({ folder: path.join(folder, 'registry'), env, port });
    try {
      const source = path.join(folder, 'package');
      mkdirSync(source, { recursive: true });
      writeFileSync(path.join(source, 'package.json'), JSON.stringify({ name, version: '1.0.0', main: 'index.js', license: 'MIT' }));
      writeFileSync(path.join(source, 'index.js'), `module.exports = ${JSON.stringify(`${which} ${token}`)};\n`);
      const publisher = await registry.login('publisher');
      // Published with a cache of its own, as from another machine: npm's publish reads the registry's metadata of the
      // package afresh, and would refresh the entry the install below reads.
      await run('npm', ['publish'], { cwd: source, env: { ...env, npm_config_userconfig: publisher, npm_config_cache: path.join(folder, 'publisher-cache') }, timeout: 120_000 });
      const project = path.join(folder, 'project');
      mkdirSync(project);
      writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'project', private: true }));
      await run('npm', ['install', `${name}@^1`, '--registry', registry.url], { cwd: project, env: installEnvironment(env), timeout: 120_000 });
      return { port: Number(new URL(registry.url).port), installed: readFileSync(path.join(project, 'node_modules', name, 'index.js'), 'utf8') };
    } finally {
      await registry.stop();
    }
  };
  // Another process may take the port between the two registries (a connection's own port among them): then again.
  for (let attempt = 1; ; attempt++) {
    const first = await publishAndInstall(`first-${attempt}`, 0);
    expect(first.installed).toContain(`first-${attempt} ${token}`);
    const second = await publishAndInstall(`second-${attempt}`, first.port).catch((error: unknown) => {
      if (attempt < 3 && String(error).includes('EADDRINUSE')) return undefined;
      throw error;
    });
    if (second === undefined) continue;
    expect(second.port).toBe(first.port);
    expect(second.installed).toContain(`second-${attempt} ${token}`);
    break;
  }
}, 600_000);
