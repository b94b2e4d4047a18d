// `npm run dev`: the server starts with the development settings (the token dev-token, the demo organization),
// restarts when a watched server file changes, and on a contract change runs its steps first: a failing step is
// printed and the server keeps serving; a passing run restarts it. The folders are temporary copies' stand-ins and
// the contract steps are injected (the real ones, `npm run generate` and the incremental typecheck, are those of
// `npm run check`, which every `npm test` runs).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { type CheckResult } from '../scripts/check.ts';
import { DEV_TOKEN, devEnvironment, startDev } from '../scripts/dev.ts';

const scratch = mkdtempSync(path.join(tmpdir(), 'dev-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('npm run dev', () => {
  test('is scripts/dev.ts, with the developer settings under the environment', () => {
    const scripts = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.dev).toBe('tsx scripts/dev.ts');
    expect(devEnvironment({})).toMatchObject({
      DOCS_API_TOKEN: 'dev-token',
      ALLOW_PRIVATE_NETWORKS: 'true',
      ALLOW_LOCAL_GIT: 'true',
      LOCAL_GIT_ROOT: tmpdir(),
      DATA_DIR: path.resolve('.data/dev'),
    });
    expect(devEnvironment({ PORT: '4000', DOCS_API_TOKEN: 'mine' })).toMatchObject({ PORT: '4000', DOCS_API_TOKEN: 'mine' });
    expect(readFileSync('.gitignore', 'utf8').split('\n')).toContain('.data/');
  });

  test('serves the demo organization to dev-token, restarts on a server change, and survives a failing contract step', async () => {
    const serverDir = path.join(scratch, 'server');
    const specDir = path.join(scratch, 'spec');
    mkdirSync(serverDir);
    mkdirSync(specDir);
    let output = '';
    let step: CheckResult = { ok: false, summary: '`npm run generate` failed', details: 'spec/broken.tsp:1:1 - error: planted' };
    const dev = startDev({
      env: { ...process.env, PORT: '0', DATA_DIR: path.join(scratch, 'data') },
      serverDirs: [serverDir],
      specDir,
      contractSteps: [async () => step],
      debounceMs: 50,
      print: (text) => (output += text),
    });
    try {
      const url = await dev.url;
      expect(output).toContain(`[dev] serving ${url} (token ${DEV_TOKEN}`);
      const orgs = async () => {
        const response = await fetch(`${url}/v1/orgs`, { headers: { authorization: `Bearer ${DEV_TOKEN}` } });
        expect(response.status).toBe(200);
        return ((await response.json()) as { items: { id: string }[] }).items.map((org) => org.id);
      };
      expect(await orgs()).toEqual(['demo']);

      // A server file changes: the server restarts.
      let started = dev.nextStart();
      writeFileSync(path.join(serverDir, 'handler.ts'), 'export {};\n');
      expect(await started).toBe(true);
      expect(output).toMatch(/\[dev\] changed: .*handler\.ts; restarting…/);
      expect(dev.starts).toBe(2);

      // A contract change whose step fails: the error is printed, nothing restarts, the server keeps answering.
      started = dev.nextStart();
      writeFileSync(path.join(specDir, 'broken.tsp'), 'model {');
      expect(await started).toBe(false);
      expect(output).toContain('[dev] `npm run generate` failed:\nspec/broken.tsp:1:1 - error: planted');
      expect(output).toContain('[dev] the server keeps serving the last good contract');
      expect(dev.starts).toBe(2);
      expect(await orgs()).toEqual(['demo']);

      // Fixed: the steps pass and the server restarts.
      step = { ok: true, summary: 'generated/ regenerated' };
      started = dev.nextStart();
      writeFileSync(path.join(specDir, 'broken.tsp'), 'model Fixed {}');
      expect(await started).toBe(true);
      expect(dev.starts).toBe(3);
      expect(await orgs()).toEqual(['demo']);
    } finally {
      await dev.close();
    }
  }, 60_000);
});
