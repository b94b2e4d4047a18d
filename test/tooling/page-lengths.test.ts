// The documentation stays short enough to be read: the README, the first page anyone opens, at most 200 lines (what
// it is, the two commands, a section per task, each linking to where its detail lives), and each page of docs/,
// server/docs/ and conformance/ at most 320. A page past its length moves detail into the pages it links. docs/api-document.md is the
// API document the contract is written from, kept as it was given, whatever its length.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { repoRoot } from '../support/repo.ts';

const README_LINES = 200;
const PAGE_LINES = 320;
const AS_GIVEN = new Set(['docs/api-document.md']);

const linesOf = (file: string) => readFileSync(path.join(repoRoot, file), 'utf8').replace(/\n$/, '').split('\n').length;

test(`the README is at most ${README_LINES} lines, and each page of docs/, server/docs/ and conformance/ at most ${PAGE_LINES}`, () => {
  const pages = ['docs', 'server/docs', 'conformance'].flatMap((folder) =>
    readdirSync(path.join(repoRoot, folder), { recursive: true, encoding: 'utf8' })
      .filter((name) => name.endsWith('.md') && (folder !== 'conformance' || path.basename(name) === 'README.md') && !name.includes('node_modules'))
      .map((name) => `${folder}/${name.split(path.sep).join('/')}`)
      .filter((file) => !AS_GIVEN.has(file)),
  );
  expect(pages.length).toBeGreaterThan(10);
  const over = [
    ...(linesOf('README.md') > README_LINES ? [`README.md: ${linesOf('README.md')} lines`] : []),
    ...pages.filter((file) => linesOf(file) > PAGE_LINES).map((file) => `${file}: ${linesOf(file)} lines`),
  ];
  expect(over, 'move detail into the pages these link').toEqual([]);
});
