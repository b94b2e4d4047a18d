// The client's type-level checks (client-types.ts, status-types.ts) as a consumer's compiler sees them: against the
// declarations the package ships (scripts/build-client.ts, built into a temporary folder), under the package tests'
// strict settings, with each consumer TypeScript (7 and 5.4, CONSUMER_TYPESCRIPTS). Each `@ts-expect-error` marks an
// error where it stands: the files compile as they are, and without their directives exactly the lines they marked fail.
// @needs processes
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { buildClient } from '../../scripts/build-client.ts';
import { everyTypeScriptAccepts, strictCompilerOptions, tsc } from '../support/packaging.ts';
import { repoRoot } from '../support/repo.ts';

const FILES = ['client-types.ts', 'status-types.ts'];
const DIRECTIVE = /^\s*\/\/ @ts-expect-error\b/;
const scratch = mkdtempSync(path.join(os.tmpdir(), 'client-types-'));
const folder = path.join(scratch, 'test/client');

/** Writes the checks into the project, with or without their directives: for each file, the lines they marked. */
function writeChecks(directives: 'kept' | 'removed'): Record<string, number[]> {
  const marked: Record<string, number[]> = {};
  for (const file of FILES) {
    const kept: string[] = [];
    marked[file] = [];
    for (const line of readFileSync(path.join(repoRoot, 'test/client', file), 'utf8').split('\n')) {
      if (DIRECTIVE.test(line)) {
        marked[file].push(kept.length + (directives === 'kept' ? 2 : 1));
        if (directives === 'removed') continue;
      }
      kept.push(line);
    }
    writeFileSync(path.join(folder, file), kept.join('\n'));
  }
  return marked;
}

beforeAll(() => {
  // The files import ../../client/index.ts, which resolves to the built declarations beside them.
  buildClient(scratch);
  mkdirSync(folder, { recursive: true });
  symlinkSync(path.join(repoRoot, 'node_modules'), path.join(scratch, 'node_modules'));
  writeFileSync(path.join(scratch, 'package.json'), JSON.stringify({ type: 'module' }));
  const compilerOptions = { ...strictCompilerOptions, noEmit: true, allowImportingTsExtensions: true };
  writeFileSync(path.join(scratch, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: FILES.map((file) => `test/client/${file}`) }));
}, 120_000);

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

test('the checks compile with every consumer TypeScript, under strict settings, against the built declarations', async () => {
  const marked = writeChecks('kept');
  expect(Object.values(marked).flat().length).toBeGreaterThan(10);
  expect(await tsc(scratch, process.env, 120_000)).toEqual(everyTypeScriptAccepts());
}, 120_000);

test('without their @ts-expect-error directives, exactly the lines they marked fail, with every consumer TypeScript', async () => {
  const marked = writeChecks('removed');
  for (const [release, checked] of Object.entries(await tsc(scratch, process.env, 120_000))) {
    const failing: Record<string, number[]> = Object.fromEntries(FILES.map((file) => [file, []]));
    for (const [, file, line] of checked.stdout.matchAll(/^test\/client\/([\w-]+\.ts)\((\d+),\d+\): error TS\d+/gm)) failing[file!]!.push(Number(line));
    const distinct = Object.fromEntries(Object.entries(failing).map(([file, lines]) => [file, [...new Set(lines)].sort((a, b) => a - b)]));
    expect(distinct, `${release}: ${checked.stdout}`).toEqual(marked);
    expect(checked.code, release).not.toBe(0);
  }
}, 120_000);
