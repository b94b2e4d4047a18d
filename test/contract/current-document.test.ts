// One document for every judgement (breaking/current.ts): generated/openapi.stamp says what spec/ generated/ was
// compiled from; when spec/ changed since, check:breaking and the changelog judge spec/ compiled in memory, say so,
// and a break the compile refuses fails the gate with the entry to declare, which, declared, passes.
// @needs processes
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { isGeneratedCurrent } from '../../breaking/current.ts';
import { currentStamp, STAMP_FILE, writtenStamp } from '../../breaking/stamp.ts';
import { repoRoot } from '../support/repo.ts';

/** Two compiles of the contract in memory, on a loaded machine. */
const COMPILES = 300_000;

function run(cwd: string, script: string, args: string[] = []): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { cwd });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

describe('the stamp of generated/', () => {
  test('the repository holds the stamp of spec/ as it is: generated/ is current', () => {
    expect(writtenStamp(repoRoot)).toBe(currentStamp(repoRoot));
    expect(isGeneratedCurrent(repoRoot)).toBe(true);
  });
});

describe('a breaking edit that npm run generate refuses, in a copy of the repository', () => {
  let copy: string;
  const at = (file: string) => path.join(copy, file);
  const edit = (file: string, from: string, to: string) => {
    const text = readFileSync(at(file), 'utf8');
    expect(text).toContain(from);
    writeFileSync(at(file), text.replace(from, to));
  };
  beforeAll(() => {
    copy = mkdtempSync(path.join(tmpdir(), 'current-document-'));
    for (const entry of ['spec', 'scripts', 'breaking', 'compare', 'release', 'generated', 'conformance', 'tspconfig.yaml', 'package.json', 'package-lock.json']) {
      cpSync(path.join(repoRoot, entry), at(entry), { recursive: true });
    }
    symlinkSync(path.join(repoRoot, 'node_modules'), at('node_modules'), 'dir');
  });
  afterAll(() => rmSync(copy, { recursive: true, force: true }));

  test(
    'check:breaking fails on it, saying generated/ is stale and printing the declaration; declared, it passes and the notes carry it',
    async () => {
      const declarations = readFileSync(at('spec/breaking-changes.yaml'), 'utf8');
      edit('spec/breaking-changes.yaml', '\n', '\n# a comment the stamp leaves out\n');
      expect(isGeneratedCurrent(copy)).toBe(true);
      edit('spec/spaces.tsp', '  /** Who can access the space. */\n  visibility: SpaceVisibility;', '  /** Who can access the space. */\n  visibility?: SpaceVisibility;');
      expect(isGeneratedCurrent(copy)).toBe(false);

      const failed = await run(copy, 'breaking/check.ts');
      expect(failed.status, failed.stderr).toBe(1);
      expect(failed.stderr).toContain('check:breaking: generated/openapi.yaml is not what spec/ compiles to now');
      expect(failed.stderr).toContain('npm run generate refuses it now (1 undeclared break(s)');
      expect(failed.stdout).toContain('check:breaking: spec/ compiled now (1.0.0) against release 1.0.0');
      const entry = '- rule: response-property-became-optional\n  schema: Space\n  path: "#/components/schemas/Space/properties/visibility"\n';
      expect(failed.stdout).toContain(entry);

      writeFileSync(at('spec/breaking-changes.yaml'), `${declarations.trimEnd()}\n${entry}  reason: Spaces being imported have none yet.\n`);
      const [passed, notes] = await Promise.all([run(copy, 'breaking/check.ts'), run(copy, 'release/changelog.ts')]);
      expect(passed.status, passed.stdout + passed.stderr).toBe(0);
      expect(passed.stderr).toContain('judging spec/ compiled in memory; npm run generate writes it.');
      expect(passed.stdout).toMatch(/check:breaking: passed: \d+ breaking declared/);
      expect(notes.status, notes.stderr).toBe(0);
      expect(notes.stderr).toContain('changelog: generated/openapi.yaml is not what spec/ compiles to now');
      expect(notes.stdout).toContain('Spaces being imported have none yet.');
      // The stamp was not written: nothing judged it current.
      expect(readFileSync(at(STAMP_FILE), 'utf8')).toBe(readFileSync(path.join(repoRoot, STAMP_FILE), 'utf8'));
    },
    COMPILES,
  );
});
