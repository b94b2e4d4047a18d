// scripts/suite-figures.ts: docs/development.md's figures of the suite, read from `.ci/run`'s step lines and a vitest
// JSON report (test/support/timings-reporter.ts's), and written into the page's section between its markers.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { ciRun, compareText, type CpuRun, fileCpu, figuresText, fileTimes, FIGURES_PAGE, grownFiles, keptRuns, withFigures } from '../../scripts/suite-figures.ts';
import { cpuWithChildren } from '../support/file-cpu.ts';
import { repoRoot } from '../support/repo.ts';

const CI_OUTPUT = `::: .ci/run: npm ci on Node v24.21.0 (3 s)
added 900 packages
::: .ci/run: npm test on Node v24.21.0 (41 s)
 Test Files  200 passed (200)
::: .ci/run: API suites on SQLite, the speed mechanisms' guards and the packages on Node v22.23.3 (521 s)
::: .ci/run: API suites on SQLite with SPEEDUPS_OFF=all, the speed mechanisms' guards and the packages on Node v26.10.0 (700 s)
::: .ci/run: passed (880 s)
`;

test("a .ci/run output gives the whole run's time and npm test's, from its step lines, with npm test's CPU when they give it; one that did not pass is refused", () => {
  expect(ciRun(CI_OUTPUT)).toEqual({ total: 880, npmTest: 480 });
  const withCpu = CI_OUTPUT.replace('(41 s)', '(41 s, CPU 30 s)').replace('(521 s)', '(521 s, CPU 930 s)');
  expect(ciRun(withCpu)).toEqual({ total: 880, npmTest: 480, npmTestCpu: 900 });
  expect(figuresText([ciRun(withCpu)], [], '2026-11-27')).toContain("`npm test` 8 min. `npm test`'s processes used 15 min of CPU: on 2 cores it cannot take less than half that.");
  expect(figuresText([ciRun(withCpu)], [], '2026-11-27', 7.5)).toContain('on this 2-core machine at load 7.5 (15 minutes\' average, the run\'s own work included) (`bash .ci/run`');
  expect(figuresText([ciRun(withCpu)], [], '2026-11-27')).not.toContain('at load');
  expect(() => ciRun(CI_OUTPUT.replace(/^::: \.ci\/run: passed.*$/m, ''))).toThrow(/no `passed` step/);
  expect(() => ciRun('::: .ci/run: passed (9 s)\n')).toThrow(/no `npm test on Node` step/);
});

test("a vitest JSON report gives each file's time, slowest first (its whole time when the report has it, else first test to last), and each folder's share", () => {
  const report = {
    testResults: [
      { name: '/tmp/clone/test/api/spaces.test.ts', project: 'postgres', startTime: 1000, endTime: 4000, duration: 9000, assertionResults: [{}, {}] },
      { name: '/tmp/clone/test/tooling/dev.test.ts', startTime: 0, endTime: 61_000, assertionResults: [{}] },
    ],
  };
  expect(fileTimes(report)).toEqual([
    { file: 'test/tooling/dev.test.ts', project: undefined, seconds: 61, tests: 1 },
    { file: 'test/api/spaces.test.ts', project: 'postgres', seconds: 9, tests: 2 },
  ]);
  const text = figuresText([ciRun(CI_OUTPUT), { total: 940, npmTest: 455 }], fileTimes(report), '2026-11-27');
  expect(text).toContain('2 runs): `.ci/run` 14.7 min to 15.7 min, of which `npm test` 7.6 min to 8 min.');
  expect(text).toContain('| `test/tooling/dev.test.ts` |  | 1 | 61 |\n| `test/api/spaces.test.ts` | postgres | 2 | 9 |');
  expect(text).toContain("The folders' shares of the files' summed time (2 files, both projects): `test/tooling` 87 %, `test/api` 13 %.");
});

test("the section is written between its markers in docs/development.md, and only there", () => {
  const page = readFileSync(FIGURES_PAGE, 'utf8');
  expect(path.relative(repoRoot, FIGURES_PAGE)).toBe('docs/development.md');
  const text = figuresText([ciRun(CI_OUTPUT)], [], '2026-11-27');
  const written = withFigures(page, text);
  expect(written).toContain(text);
  expect(withFigures(written, text)).toBe(written);
  expect(written.replace(text, '')).toBe(page.replace(/<!-- suite-figures: [^]*?<!-- \/suite-figures -->/, ''));
  expect(() => withFigures('# A page without the section\n', text)).toThrow(/has no section/);
});

test("a file's CPU is its process's and its waited-for children's, from /proc's stat line (a command name with spaces and parentheses too)", () => {
  // Fields 14 to 17 (utime, stime, cutime, cstime) in clock ticks: 150 + 50 + 200 + 100 ticks.
  const fields = ['S', ...Array.from({ length: 10 }, (_, at) => String(at)), '150', '50', '200', '100', '20', '0'];
  expect(cpuWithChildren(`4242 (node (worker) x) ${fields.join(' ')}`)).toBe(5);
  expect(cpuWithChildren('')).toBe(0);
});

test("each file's CPU is kept from the least loaded runs, and a file is named when its CPU grows beyond its spread, never when within it", () => {
  const report = {
    testResults: [
      { name: '/clone/test/api/spaces.test.ts', project: 'sqlite', startTime: 0, endTime: 1, cpuSeconds: 12, assertionResults: [] },
      { name: '/clone/test/api/spaces.test.ts', project: 'postgres', startTime: 0, endTime: 1, cpuSeconds: 20, assertionResults: [] },
      { name: '/clone/test/api/old.test.ts', project: 'sqlite', startTime: 0, endTime: 1, assertionResults: [] },
    ],
  };
  expect(fileCpu(report)).toEqual({ 'sqlite test/api/spaces.test.ts': 12, 'postgres test/api/spaces.test.ts': 20 });
  const run = (load: number, spaces: number): CpuRun => ({ date: '2026-11-29', load, files: { 'sqlite test/api/spaces.test.ts': spaces } });
  const kept = [run(9, 10), run(1, 10), run(30, 99), run(2, 14)].reduce<CpuRun[]>((runs, next) => keptRuns(runs, next), []);
  expect(kept.map((each) => each.load)).toEqual([1, 2, 9]);
  // Kept: 10 to 14 s, a spread of 4: 18 s is within it, 18.5 s beyond; a file not recorded is not judged.
  expect(grownFiles(kept, { 'sqlite test/api/spaces.test.ts': 18, 'sqlite test/api/new.test.ts': 500 })).toEqual([]);
  expect(grownFiles(kept, { 'sqlite test/api/spaces.test.ts': 18.5 })).toEqual([{ file: 'sqlite test/api/spaces.test.ts', seconds: 18.5, low: 10, high: 14 }]);
  expect(compareText(kept, { 'sqlite test/api/spaces.test.ts': 18.5 })).toContain('sqlite test/api/spaces.test.ts: 18.5 s, recorded 10.0 to 14.0 s');
  expect(compareText([], {})).toMatch(/no CPU figures recorded/);
});
