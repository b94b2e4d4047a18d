// Writes docs/development.md's figures of the suite ("How long the suite takes"): fresh-clone times of `npm test` and
// `.ci/run` and npm test's CPU from `.ci/run`'s output; the slowest files and each folder's share from vitest's JSON
// report (.tmp/vitest-report.json). `--ci-log FILE… [--report FILE] [--date D] [--load L] [--print]`; each file's
// CPU: `--record REPORT [--load L]` keeps the least loaded runs in docs/suite-figures.json, `--compare REPORT` names
// the files whose CPU grew beyond their spread (reporting: it always exits 0).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const FIGURES_PAGE = path.join(root, 'docs/development.md');
const START = '<!-- suite-figures: written by scripts/suite-figures.ts -->';
const END = '<!-- /suite-figures -->';

/** One run of `.ci/run`, from its step lines (`::: .ci/run: <step> (<seconds> s, CPU <seconds> s)`). */
export interface CiRun {
  /** The whole run, to its `passed` line. */
  total: number;
  /** `npm test` on the first runtime: from its step line to the next. */
  npmTest: number;
  /** The CPU seconds of `npm test`'s processes, when the step lines give them. */
  npmTestCpu?: number;
}

/** The times of a `.ci/run` output; throws when it did not pass or has no `npm test` step. */
export function ciRun(output: string): CiRun {
  const steps = [...output.matchAll(/^::: \.ci\/run: (.*) \((\d+) s(?:, CPU (\d+) s)?\)$/gm)].map((match) => ({
    step: match[1]!,
    at: Number(match[2]),
    cpu: match[3] === undefined ? undefined : Number(match[3]),
  }));
  const passed = steps.find((step) => step.step === 'passed');
  const npmTest = steps.findIndex((step) => step.step.startsWith('npm test on Node'));
  if (!passed) throw new Error('suite-figures: the .ci/run output has no `passed` step: give the output of a run that passed');
  if (npmTest < 0 || !steps[npmTest + 1]) throw new Error('suite-figures: the .ci/run output has no `npm test on Node` step followed by another');
  const [from, to] = [steps[npmTest]!, steps[npmTest + 1]!];
  return { total: passed.at, npmTest: to.at - from.at, ...(from.cpu !== undefined && to.cpu !== undefined ? { npmTestCpu: to.cpu - from.cpu } : {}) };
}

/** A file's time in a vitest JSON report: its whole time when the report has it (timings-reporter.ts), else first test to last. */
interface ReportFile {
  name: string;
  project?: string;
  duration?: number;
  startTime: number;
  endTime: number;
  assertionResults: unknown[];
}

export interface FileTime {
  file: string;
  project: string | undefined;
  seconds: number;
  tests: number;
}

/** The files of a vitest JSON report by their time, slowest first; names from the repository's test/ (wherever it ran). */
export function fileTimes(report: { testResults: ReportFile[] }): FileTime[] {
  return report.testResults
    .map((result) => ({
      file: result.name.slice(result.name.lastIndexOf('/test/') + 1),
      project: result.project,
      seconds: (result.duration ?? result.endTime - result.startTime) / 1000,
      tests: result.assertionResults.length,
    }))
    .sort((a, b) => b.seconds - a.seconds);
}

/** Each folder of test/ with its share of the files' summed time, largest first (`test/tooling`, 0.4). */
export function folderShares(files: FileTime[]): { folder: string; share: number }[] {
  const total = files.reduce((sum, file) => sum + file.seconds, 0);
  const byFolder = new Map<string, number>();
  for (const file of files) {
    const folder = file.file.split('/').slice(0, 2).join('/');
    byFolder.set(folder, (byFolder.get(folder) ?? 0) + file.seconds);
  }
  return [...byFolder].map(([folder, seconds]) => ({ folder, share: total > 0 ? seconds / total : 0 })).sort((a, b) => b.share - a.share);
}

/** `low` or `low to high`, rounded to whole units. */
const span = (values: number[], unit: (value: number) => string) => {
  const low = Math.min(...values);
  const high = Math.max(...values);
  return unit(low) === unit(high) ? unit(low) : `${unit(low)} to ${unit(high)}`;
};
const minutes = (seconds: number) => `${Math.round(seconds / 6) / 10} min`;

/**
 * The section's text: the times of the runs given and the ten slowest files of the report; `load`, the machine's load
 * average over the runs (15 minutes, the runs' own work included), when given.
 */
export function figuresText(runs: CiRun[], files: FileTime[], date: string, load?: number): string {
  const at = load === undefined ? '' : ` at load ${load} (15 minutes' average, the run's own work included)`;
  const lines = [
    START,
    `Measured on ${date}, from a fresh clone on this 2-core machine${at} (\`bash .ci/run\` in a clone, ${runs.length} run${runs.length === 1 ? '' : 's'}): ` +
      `\`.ci/run\` ${span(runs.map((run) => run.total), minutes)}, of which \`npm test\` ${span(runs.map((run) => run.npmTest), minutes)}.`,
  ];
  const cpu = runs.flatMap((run) => (run.npmTestCpu === undefined ? [] : [run.npmTestCpu]));
  if (cpu.length > 0) {
    lines[1] += ` \`npm test\`'s processes used ${span(cpu, minutes)} of CPU: on 2 cores it cannot take less than half that.`;
  }
  if (files.length > 0) {
    lines.push('', 'The ten slowest files of `npm test` (vitest\'s time of each, hooks included; files run three at a time):', '', '| File | Project | Tests | s |', '|---|---|---|---|');
    for (const file of files.slice(0, 10)) lines.push(`| \`${file.file}\` | ${file.project ?? ''} | ${file.tests} | ${Math.round(file.seconds)} |`);
    const shares = folderShares(files).map(({ folder, share }) => `\`${folder}\` ${Math.round(share * 100)} %`);
    lines.push('', `The folders' shares of the files' summed time (${files.length} files, both projects): ${shares.join(', ')}.`);
  }
  lines.push(END);
  return lines.join('\n');
}

/** `page` with its figures section replaced by `text`; throws when the page has no such section. */
export function withFigures(page: string, text: string): string {
  const start = page.indexOf(START);
  const end = page.indexOf(END);
  if (start < 0 || end < start) throw new Error(`suite-figures: ${path.relative(root, FIGURES_PAGE)} has no section between ${START} and ${END}`);
  return `${page.slice(0, start)}${text}${page.slice(end + END.length)}`;
}

/** docs/suite-figures.json: each file's CPU seconds in the least loaded runs recorded, with each run's load. */
export const CPU_FIGURES = path.join(root, 'docs/suite-figures.json');
/** The runs kept: the least loaded, so that a file's spread is its own, not the machine's. */
export const KEPT_RUNS = 3;

/** One run's CPU per file (`project file`), with the machine's load average over the run (15 minutes). */
export interface CpuRun {
  date: string;
  load: number;
  files: Record<string, number>;
}

/** Each file's CPU seconds in a report that has them (test/support/timings-reporter.ts), by `project file`. */
export function fileCpu(report: { testResults: (ReportFile & { cpuSeconds?: number })[] }): Record<string, number> {
  const files: Record<string, number> = {};
  for (const result of report.testResults) {
    if (result.cpuSeconds === undefined) continue;
    files[`${result.project ?? ''} ${result.name.slice(result.name.lastIndexOf('/test/') + 1)}`.trim()] = result.cpuSeconds;
  }
  return files;
}

/** The runs to keep once `run` is added: the KEPT_RUNS least loaded. */
export function keptRuns(runs: CpuRun[], run: CpuRun): CpuRun[] {
  return [...runs, run].sort((a, b) => a.load - b.load).slice(0, KEPT_RUNS);
}

/**
 * The files whose CPU now is above their highest kept figure by more than their spread (highest less lowest), and by
 * more than a tenth and a second at least (one run kept has no spread), largest growth first.
 */
export function grownFiles(runs: CpuRun[], now: Record<string, number>): { file: string; seconds: number; low: number; high: number }[] {
  return Object.entries(now)
    .flatMap(([file, seconds]) => {
      const kept = runs.flatMap((run) => (run.files[file] === undefined ? [] : [run.files[file]]));
      if (kept.length === 0) return [];
      const [low, high] = [Math.min(...kept), Math.max(...kept)];
      return seconds > high + Math.max(high - low, high / 10, 1) ? [{ file, seconds, low, high }] : [];
    })
    .sort((a, b) => b.seconds - b.high - (a.seconds - a.high));
}

/** The comparison's lines: the files grown, or that none did; the runs compared with and their load. */
export function compareText(runs: CpuRun[], now: Record<string, number>): string {
  if (runs.length === 0) return 'suite-figures: no CPU figures recorded (docs/suite-figures.json): nothing to compare with';
  const grown = grownFiles(runs, now);
  const against = `${runs.length} run(s) recorded, load ${runs.map((run) => run.load).join(', ')}`;
  if (grown.length === 0) return `suite-figures: no file's CPU grew beyond its spread (${against})`;
  return [
    `suite-figures: ${grown.length} file(s) used more CPU than their spread (${against}):`,
    ...grown.map(({ file, seconds, low, high }) => `  ${file}: ${seconds.toFixed(1)} s, recorded ${low.toFixed(1)} to ${high.toFixed(1)} s`),
  ].join('\n');
}

const readRuns = (): CpuRun[] => (existsSync(CPU_FIGURES) ? (JSON.parse(readFileSync(CPU_FIGURES, 'utf8')) as { runs: CpuRun[] }).runs : []);
const readReport = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as { testResults: (ReportFile & { cpuSeconds?: number })[] };

/** `--record` and `--compare`: true when one of them was asked for (and done). */
function cpuCommand(values: { record?: string; compare?: string; load?: string; date?: string }): boolean {
  if (values.compare) {
    console.log(compareText(readRuns(), fileCpu(readReport(values.compare))));
    return true;
  }
  if (!values.record) return false;
  const load = values.load === undefined ? os.loadavg()[2]! : Number(values.load);
  const run: CpuRun = { date: values.date ?? new Date().toISOString().slice(0, 10), load: Math.round(load * 10) / 10, files: fileCpu(readReport(values.record)) };
  const runs = keptRuns(readRuns(), run);
  writeFileSync(CPU_FIGURES, `${JSON.stringify({ runs }, null, 1)}\n`);
  console.log(`suite-figures: ${runs.includes(run) ? 'kept' : 'did not keep'} this run (load ${run.load}); ${runs.length} run(s) in ${path.relative(root, CPU_FIGURES)}`);
  return true;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      'ci-log': { type: 'string', multiple: true },
      report: { type: 'string' },
      date: { type: 'string' },
      print: { type: 'boolean', default: false },
      record: { type: 'string' },
      compare: { type: 'string' },
      load: { type: 'string' },
    },
  });
  if (cpuCommand(values)) process.exit(0);
  const logs = values['ci-log'] ?? [];
  if (logs.length === 0) {
    console.error('suite-figures: give the output of at least one `bash .ci/run` run in a fresh clone: --ci-log FILE');
    process.exit(2);
  }
  const runs = logs.map((file) => ciRun(readFileSync(file, 'utf8')));
  const files = values.report ? fileTimes(JSON.parse(readFileSync(values.report, 'utf8')) as { testResults: ReportFile[] }) : [];
  const text = figuresText(runs, files, values.date ?? new Date().toISOString().slice(0, 10), values.load === undefined ? undefined : Number(values.load));
  if (values.print) console.log(text);
  else {
    writeFileSync(FIGURES_PAGE, withFigures(readFileSync(FIGURES_PAGE, 'utf8'), text));
    console.log(`suite-figures: wrote ${path.relative(root, FIGURES_PAGE)} (${runs.length} run(s), ${Math.min(files.length, 10)} files)`);
  }
}
