// Every module's header (its leading `//` lines, after a `#!` line) says what the module is for in at most five
// lines (a test file's `@needs` line, a declaration, not counted: test/support/needs.ts); the reasoning lives in the
// doc the header names (server/docs/code.md, "Glossary", says where each kind goes).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { REPOSITORY_LAYERS } from '../../eslint.config.js';
import { isNeedsLine } from '../support/needs.ts';
import { repoRoot } from '../support/repo.ts';

const MOST_LINES = 5;
const CODE = /\.(ts|mts|cts|js|mjs|cjs)$/;

/** The lines of a module's header: the `//` lines it starts with (after a `#!` line), but a `@needs` line. */
export function headerLines(text: string): number {
  const lines = text.split('\n');
  let at = lines[0]?.startsWith('#!') ? 1 : 0;
  const first = at;
  while (lines[at]?.startsWith('//')) at++;
  return lines.slice(first, at).filter((line) => !isNeedsLine(line)).length;
}

test('the header counts the leading comment lines only, after a #! line', () => {
  expect(headerLines('// one\n// two\nimport x from "y";\n// not the header\n')).toBe(2);
  expect(headerLines('#!/usr/bin/env node\n// one\nrun();\n')).toBe(1);
  expect(headerLines('import x from "y";\n')).toBe(0);
  expect(headerLines(`${'// line\n'.repeat(6)}code();\n`)).toBe(6);
  expect(headerLines(`${'// line\n'.repeat(5)}// @needs postgres\ncode();\n`)).toBe(5);
});

test(`no module of the repository has a header over ${MOST_LINES} lines`, () => {
  const modules = REPOSITORY_LAYERS.flatMap(({ folder }) =>
    (readdirSync(path.join(repoRoot, folder), { recursive: true, encoding: 'utf8' }) as string[])
      .map((file) => `${folder}/${file.split(path.sep).join('/')}`)
      .filter((file) => CODE.test(file) && !file.endsWith('.d.ts') && !/(^|\/)(node_modules|dist)\//.test(file)),
  );
  expect(modules.length).toBeGreaterThan(250);
  const long = modules
    .map((file) => ({ file, lines: headerLines(readFileSync(path.join(repoRoot, file), 'utf8')) }))
    .filter(({ lines }) => lines > MOST_LINES)
    .map(({ file, lines }) => `${file}: ${lines} lines`);
  expect(long).toEqual([]);
});
