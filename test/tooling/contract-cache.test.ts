// A compiled contract is kept by a hash of what it is compiled from (scripts/generate.ts, `contractCompiler`): the same
// spec/ in a copy of the repository finds it, a changed one does not, and DOCS_CONTRACT_CACHE=off keeps nothing.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, test, vi } from 'vitest';
import { contractCompiler, contractInputs } from '../../scripts/generate.ts';
import { copyRepository } from '../../scripts/repo-copy.ts';
import { repoRoot } from '../support/repo.ts';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'contract-cache-'));
afterAll(() => {
  vi.unstubAllEnvs();
  rmSync(scratch, { recursive: true, force: true });
});

test("a copy's contract is the repository's, by what it is compiled from; a change of spec/ is another", () => {
  const copy = path.join(scratch, 'repository');
  copyRepository(copy);
  expect(contractInputs(copy)).toBe(contractInputs(repoRoot));
  writeFileSync(path.join(copy, 'spec/teams.tsp'), '// a comment\n', { flag: 'a' });
  expect(contractInputs(copy)).not.toBe(contractInputs(repoRoot));
});

test('a kept contract is handed out without compiling; with DOCS_CONTRACT_CACHE=off, the compiler runs', async () => {
  const cache = path.join(scratch, 'cache');
  mkdirSync(cache);
  vi.stubEnv('DOCS_CONTRACT_CACHE', cache);
  // Kept under the hash of a copy whose spec/ does not compile: a marker, which no compile makes.
  const broken = path.join(scratch, 'broken');
  copyRepository(broken);
  writeFileSync(path.join(broken, 'spec/teams.tsp'), 'model {\n', { flag: 'a' });
  const kept = 'openapi: 3.1.0 # kept\n';
  writeFileSync(path.join(cache, `${contractInputs(broken)}.openapi.yaml`), kept);
  const staging = mkdtempSync(path.join(scratch, 'staging-'));
  expect(await contractCompiler(broken)(staging)).toEqual({ openapi: kept, diagnostics: '' });
  expect(readFileSync(path.join(staging, 'openapi.yaml'), 'utf8')).toBe(kept);

  vi.stubEnv('DOCS_CONTRACT_CACHE', 'off');
  const compiled = await contractCompiler(broken)(mkdtempSync(path.join(scratch, 'staging-')));
  expect(compiled.openapi).toBeUndefined();
  expect(compiled.diagnostics).toMatch(/^spec\/teams\.tsp:\d+:\d+ - error /m);
}, 120_000);
