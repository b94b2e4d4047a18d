// A compiled contract is kept by a hash of what it is compiled from (scripts/generate.ts, `contractCompiler`): the same
// spec/ in a copy of the repository finds it, a changed one does not, and DOCS_CONTRACT_CACHE=off keeps nothing. What
// is kept under a key is what the bytes hashed into that key compile to, however spec/ changes during the compile, and
// an entry that is not whole, or was written under another name, is compiled again rather than served.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, test, vi } from 'vitest';
import { cacheEntryText, contractCompiler, contractInputs, keptText } from '../../scripts/generate.ts';
import { copyRepository } from '../../scripts/repo-copy.ts';
import { repoRoot } from '../support/repo.ts';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'contract-cache-'));
afterAll(() => {
  vi.unstubAllEnvs();
  rmSync(scratch, { recursive: true, force: true });
});

/** What spec/ compiles to, as `npm run check` holds generated/ to it. */
const committed = readFileSync(path.join(repoRoot, 'generated/openapi.yaml'), 'utf8');
const PROBE = 'cacheProbeField';
/** spec/teams.tsp with a field added to `model Team`: a contract no committed spec/ holds. */
const withProbe = (text: string) => text.replace('model Team {\n', `model Team {\n  /** A field of the test's. */\n  ${PROBE}?: string;\n\n`);

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
  const name = `${contractInputs(broken)}.openapi.yaml`;
  writeFileSync(path.join(cache, name), cacheEntryText(name, kept));
  const staging = mkdtempSync(path.join(scratch, 'staging-'));
  expect(await contractCompiler(broken)(staging)).toEqual({ openapi: kept, diagnostics: '', notes: [], stamp: expect.stringContaining('\nsources: ') });
  expect(readFileSync(path.join(staging, 'openapi.yaml'), 'utf8')).toBe(kept);

  vi.stubEnv('DOCS_CONTRACT_CACHE', 'off');
  const compiled = await contractCompiler(broken)(mkdtempSync(path.join(scratch, 'staging-')));
  expect(compiled.openapi).toBeUndefined();
  expect(compiled.diagnostics).toMatch(/^spec\/teams\.tsp:\d+:\d+ - error /m);
}, 120_000);

test('a spec/ changed during a compile: its key keeps what its bytes compile to; damaged or foreign entries are compiled again', async () => {
  const cache = path.join(scratch, 'cache-during');
  mkdirSync(cache);
  vi.stubEnv('DOCS_CONTRACT_CACHE', cache);
  const copy = path.join(scratch, 'edited');
  copyRepository(copy);
  const teams = path.join(copy, 'spec/teams.tsp');
  const original = readFileSync(teams, 'utf8');
  const before = contractInputs(copy);
  const compile = contractCompiler(copy);

  // The compile has hashed spec/ when the call returns; the compiler reads the files after that, as an author's save
  // lands while `npm run dev` compiles.
  const during = compile(mkdtempSync(path.join(scratch, 'staging-')));
  writeFileSync(teams, withProbe(original));
  const first = await during;
  expect(first.diagnostics).toBe('');
  expect(first.openapi).toBe(committed);
  const keptBefore = readFileSync(path.join(cache, `${before}.openapi.yaml`), 'utf8');
  expect(keptBefore).toBe(cacheEntryText(`${before}.openapi.yaml`, committed));
  expect(keptBefore).not.toContain(PROBE);

  // The next compile (the save's, or `npm run generate`) gives what spec/ now holds, and keeps it under its own key.
  const after = await compile(mkdtempSync(path.join(scratch, 'staging-')));
  expect(after.openapi).toContain(PROBE);
  expect(readdirSync(cache).filter((entry) => entry.endsWith('.openapi.yaml')).sort()).toEqual([`${before}.openapi.yaml`, `${contractInputs(copy)}.openapi.yaml`].sort());

  // The save undone: served from the cache, the committed document.
  writeFileSync(teams, original);
  expect((await compile(mkdtempSync(path.join(scratch, 'staging-')))).openapi).toBe(committed);

  // An entry cut short, one written under another key, and one without its first line: each a miss; the compile that
  // meets one compiles again and keeps what the key's bytes compile to.
  const name = `${before}.openapi.yaml`;
  const foreign = `${contractInputs(repoRoot).replace(/^./, (c) => (c === '0' ? '1' : '0'))}.openapi.yaml`;
  const forged = withProbe(committed);
  for (const damaged of [cacheEntryText(name, committed).slice(0, -10), cacheEntryText(foreign, forged), forged]) {
    writeFileSync(path.join(cache, name), damaged);
    expect(keptText(name)).toBeUndefined();
  }
  expect((await compile(mkdtempSync(path.join(scratch, 'staging-')))).openapi).toBe(committed);
  expect(keptText(name)).toBe(committed);
}, 180_000);
