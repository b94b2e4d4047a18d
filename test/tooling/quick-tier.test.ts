// The quick tier leaves out a test file by the need its header declares (`// @needs postgres`, test/support/needs.ts),
// read when vitest.quick.config.ts loads: a new file that needs PostgreSQL is out by its own line, a file that declares
// nothing runs, and the files that must stay out (PostgreSQL, processes, a mount, TLS, the slow ones) declare so.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import quickConfig, { QUICK_FOLDERS, quickExclusions } from '../../vitest.quick.config.ts';
import { fileNeeds, type Need, NEEDS } from '../support/needs.ts';
import { repoRoot } from '../support/repo.ts';

/** Files the quick tier must leave out, each with the need that puts it out. */
const STAYS_OUT: Record<string, Need> = {
  'test/api/engines.test.ts': 'postgres',
  'test/server/caller.test.ts': 'postgres',
  'test/server/postgres-writes.test.ts': 'postgres',
  'test/server/postgres-connections.test.ts': 'postgres',
  'test/server/postgres-traffic.test.ts': 'postgres',
  'test/server/postgres-isolation.test.ts': 'postgres',
  'test/server/store-schema.test.ts': 'postgres',
  'test/server/instances.test.ts': 'postgres',
  'test/server/job-instances.test.ts': 'postgres',
  'test/server/database-outage.test.ts': 'postgres',
  'test/server/main.test.ts': 'processes',
  'test/server/signals.test.ts': 'processes',
  'test/server/shutdown.test.ts': 'processes',
  'test/server/process-warnings.test.ts': 'processes',
  'test/server/harness.test.ts': 'processes',
  'test/server/harness-usage.test.ts': 'processes',
  'test/server/coverage.test.ts': 'processes',
  'test/server/faults.test.ts': 'processes',
  'test/server/full-disk.test.ts': 'mount',
  'test/server/upgrade.test.ts': 'processes',
  'test/server/log-format.test.ts': 'processes',
  'test/server/outbound-tls.test.ts': 'tls',
  'test/contract/breaking.test.ts': 'processes',
  'test/contract/breaking-ci.test.ts': 'processes',
  'test/contract/check.test.ts': 'processes',
  'test/contract/spec-rules.test.ts': 'processes',
  'test/server/enumerations.test.ts': 'processes',
  'test/server/seed-type.test.ts': 'processes',
  'test/client/client-types.test.ts': 'processes',
  'test/contract/breaking-consumers.test.ts': 'processes',
  'test/contract/breaking-removals.test.ts': 'processes',
  'test/contract/spec-rules-breaking.test.ts': 'processes',
  'test/contract/current-document.test.ts': 'processes',
  'test/client/deprecation-editor.test.ts': 'processes',
  'test/contract/breaking-properties-changes.test.ts': 'slow',
  'test/contract/breaking-properties-rewrites.test.ts': 'slow',
  'test/contract/breaking-properties-unions-schemes.test.ts': 'slow',
  'test/api/request-bounds.test.ts': 'slow',
  'test/server/pipelining-bounds.test.ts': 'slow',
  'test/contract/consumer-corpus.test.ts': 'slow',
  'test/server/validator.test.ts': 'slow',
};

test('a header declares its needs in one @needs line of known words; an unknown word, an empty line or a line below the header is refused', () => {
  expect(fileNeeds('// What it tests.\n// @needs postgres processes\nimport x from "y";\n')).toEqual(['postgres', 'processes']);
  expect(fileNeeds('// What it tests.\nimport x from "y";\n')).toEqual([]);
  expect(() => fileNeeds('// What it tests.\n// @needs postgress\n', 'a.test.ts')).toThrow(/a\.test\.ts: @needs postgress is not one of postgres, processes/);
  expect(() => fileNeeds('// What it tests.\n// @needs\n', 'a.test.ts')).toThrow(/an empty @needs line/);
  expect(() => fileNeeds('// What it tests.\nimport x from "y";\n// @needs postgres\n', 'a.test.ts')).toThrow(/below its header/);
  expect(Object.keys(NEEDS)).toEqual(['postgres', 'processes', 'mount', 'tls', 'browser', 'network', 'slow']);
});

test('a new test file that needs PostgreSQL is left out of the quick tier by its own declaration; one that declares nothing runs', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'quick-tier-'));
  try {
    for (const folder of QUICK_FOLDERS) mkdirSync(path.join(root, folder), { recursive: true });
    writeFileSync(path.join(root, 'test/server/new-engine.test.ts'), '// A rule of the store on PostgreSQL.\n// @needs postgres\nimport { test } from "vitest";\n');
    writeFileSync(path.join(root, 'test/server/new-rule.test.ts'), '// A rule of the store.\nimport { test } from "vitest";\n');
    mkdirSync(path.join(root, 'test/api/deeper'));
    writeFileSync(path.join(root, 'test/api/deeper/new-process.test.ts'), '// A server as a process.\n// @needs processes\n');
    expect(quickExclusions(root)).toEqual(['test/api/deeper/new-process.test.ts', 'test/server/new-engine.test.ts']);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test("the quick tier's config runs its folders and leaves out exactly the files that declare a need", () => {
  const { include, exclude, env } = quickConfig.test ?? {};
  expect(include).toEqual(QUICK_FOLDERS.map((folder) => `${folder}/**/*.test.ts`));
  expect(exclude).toEqual(quickExclusions(repoRoot));
  expect(env).toMatchObject({ TEST_POSTGRES: 'off' });
});

test('the files that must stay out of the quick tier declare the need that puts them out', () => {
  const excluded = new Set(quickExclusions(repoRoot));
  const missing = Object.entries(STAYS_OUT)
    .filter(([file, need]) => !excluded.has(file) || !fileNeeds(readFileSync(path.join(repoRoot, file), 'utf8'), file).includes(need))
    .map(([file, need]) => `${file} (@needs ${need})`);
  expect(missing).toEqual([]);
});

test('a file of the quick folders that imports node:child_process declares `processes`: what it starts is out of the tier by its own line', () => {
  const undeclared = QUICK_FOLDERS.flatMap((folder) =>
    readdirSync(path.join(repoRoot, folder), { recursive: true, encoding: 'utf8' })
      .filter((name) => name.endsWith('.test.ts'))
      .map((name) => path.join(folder, name)),
  ).filter((file) => {
    const source = readFileSync(path.join(repoRoot, file), 'utf8');
    return /from 'node:child_process'/.test(source) && !fileNeeds(source, file).includes('processes');
  });
  expect(undeclared).toEqual([]);
});
