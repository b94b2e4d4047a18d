// Mutation testing of the server's rules (`npm run mutate`): Stryker mutates a folder or file of server/ and runs, for
// each mutant, the API tests that reach it (per-test coverage); a mutant the tests let live is a rule no test pins.
//   npm run mutate -- <folder or file> [--tests <test file>,…] [--concurrency N] [--force]
//   npm run mutate -- --scores      (each file's score from the last runs, by folder)
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Where each run keeps its incremental file and its report (git ignores it): `.mutation/<target>/`. */
export const MUTATION_DIR = '.mutation';
const API_TESTS = 'test/api';

/**
 * The API test files of a resource beyond those named after it (`<name>.test.ts`, `<name>-*.test.ts`): the files
 * whose requests go through its rules too.
 */
export const RELATED_TESTS: Record<string, string[]> = {
  spaces: ['space-counters', 'organization-space-counts', 'site-spaces'],
  'site-structure': ['site-sections', 'site-section-groups', 'site-spaces'],
  'site-structure-changes': ['site-structure', 'site-sections', 'site-section-groups'],
  'change-requests': ['comments-change-requests'],
  members: ['organizations', 'permissions'],
  teams: ['members', 'permissions'],
};

/** The API test files that reach a source file: those named after it, and its RELATED_TESTS. */
export function testsOf(sourceFile: string, available: readonly string[]): string[] {
  const name = path.basename(sourceFile, '.ts');
  const names = [name, ...(RELATED_TESTS[name] ?? [])];
  return available
    .filter((file) => {
      const base = path.basename(file, '.test.ts');
      return names.includes(base) || base.startsWith(`${name}-`);
    })
    .sort();
}

/** The source files of a target (a file, or a folder's .ts files, not below it), relative to the root. */
export function sourcesOf(target: string): string[] {
  const relative = path.relative(root, path.resolve(target));
  if (!existsSync(path.join(root, relative))) throw new Error(`${target}: no such file or folder`);
  if (!statSync(path.join(root, relative)).isDirectory()) return [relative];
  return readdirSync(path.join(root, relative))
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
    .map((file) => path.posix.join(relative, file))
    .sort();
}

const apiTests = () =>
  readdirSync(path.join(root, API_TESTS))
    .filter((file) => file.endsWith('.test.ts') && file !== 'engines.test.ts')
    .map((file) => path.posix.join(API_TESTS, file));

/** The run's folder under .mutation/: the target's path with its slashes as `+`. */
export const runDir = (target: string) => path.join(MUTATION_DIR, path.relative(root, path.resolve(target)).replace(/\.ts$/, '').replaceAll(path.sep, '+'));

async function mutate(target: string, options: { tests?: string; concurrency: number; force: boolean }): Promise<void> {
  const sources = sourcesOf(target);
  const available = apiTests();
  const mapped = sources.map((source) => ({ source, tests: options.tests ? options.tests.split(',') : testsOf(source, available) }));
  const without = mapped.filter((entry) => entry.tests.length === 0).map((entry) => entry.source);
  const kept = mapped.filter((entry) => entry.tests.length > 0);
  if (without.length > 0) console.log(`No API test file is named for ${without.join(', ')} (pass --tests): left out.`);
  if (kept.length === 0) throw new Error(`${target}: nothing to mutate`);
  const testFiles = [...new Set(kept.flatMap((entry) => entry.tests))].sort();
  console.log(`Mutating ${kept.map((entry) => entry.source).join(', ')}\nwith ${testFiles.join(', ')}`);
  const dir = runDir(target);
  mkdirSync(path.join(root, dir), { recursive: true });
  const { Stryker } = await import('@stryker-mutator/core');
  const stryker = new Stryker({
    mutate: kept.map((entry) => entry.source),
    testFiles,
    testRunner: 'vitest',
    // The API tests reach the rules through the server, which vitest's search for related test files does not follow.
    vitest: { configFile: 'scripts/mutate-vitest.config.ts', related: false },
    checkers: ['typescript'],
    tsconfigFile: 'scripts/mutate-tsconfig.json',
    coverageAnalysis: 'perTest',
    incremental: true,
    incrementalFile: path.join(dir, 'incremental.json'),
    force: options.force,
    concurrency: options.concurrency,
    // The machine may be loaded: a mutant's run is a timeout only well past its tests' time without the mutant.
    timeoutMS: 30_000,
    reporters: ['clear-text', 'progress', 'json', 'html'],
    jsonReporter: { fileName: path.join(dir, 'mutation.json') },
    htmlReporter: { fileName: path.join(dir, 'mutation.html') },
    clearTextReporter: { allowEmojis: false, reportScoreTable: true },
    // What a run of the API tests does not read: the built packages, the docs, the bench, the release tooling.
    ignorePatterns: ['dist', 'docs', 'bench', 'release', '.mutation', '.tmp', 'coverage', 'data', '.data'],
    cleanTempDir: 'always',
  });
  await stryker.runMutationTest();
}

interface MutantEntry {
  status: string;
}
interface Report {
  files: Record<string, { mutants: MutantEntry[] }>;
}

/** One file's counts: the statuses of its mutants; its score is killed (or timed out) among those that ran or had no test. */
export function scoreOf(mutants: readonly MutantEntry[]) {
  const count = (...statuses: string[]) => mutants.filter((mutant) => statuses.includes(mutant.status)).length;
  const killed = count('Killed', 'Timeout');
  const survived = count('Survived');
  const noCoverage = count('NoCoverage');
  const invalid = count('CompileError');
  const errors = count('RuntimeError');
  const ignored = count('Ignored');
  const detected = killed + survived + noCoverage;
  return { total: mutants.length, killed, survived, noCoverage, invalid, errors, ignored, score: detected === 0 ? 100 : (100 * killed) / detected };
}

/** Each file's score from the newest report that holds it (or an interrupted run's incremental file), by folder. */
function scores(): void {
  const dir = path.join(root, MUTATION_DIR);
  const newest = new Map<string, { mutants: MutantEntry[]; date: Date; partial: boolean }>();
  for (const run of existsSync(dir) ? readdirSync(dir) : []) {
    // An interrupted run writes no report, only its incremental file: the mutants it tested.
    const file = [path.join(dir, run, 'mutation.json'), path.join(dir, run, 'incremental.json')].find((candidate) => existsSync(candidate));
    if (file === undefined) continue;
    const date = statSync(file).mtime;
    const report = JSON.parse(readFileSync(file, 'utf8')) as Report;
    for (const [source, { mutants }] of Object.entries(report.files)) {
      const name = path.relative(root, path.resolve(root, source));
      if ((newest.get(name)?.date ?? 0) < date) newest.set(name, { mutants, date, partial: file.endsWith('incremental.json') });
    }
  }
  if (newest.size === 0) return console.log(`No report under ${MUTATION_DIR}/: run \`npm run mutate -- <folder or file>\` first.`);
  const line = (name: string, mutants: readonly MutantEntry[], date?: Date, partial = false) => {
    const s = scoreOf(mutants);
    return `${name.padEnd(40)} ${s.score.toFixed(1).padStart(5)} %  ${String(s.killed).padStart(4)} killed ${String(s.survived).padStart(3)} survived ${String(s.noCoverage).padStart(3)} no coverage ${String(s.invalid).padStart(3)} not compiling ${String(s.errors).padStart(3)} errors ${String(s.ignored).padStart(3)} equivalent${date ? `  ${date.toISOString().slice(0, 10)}` : ''}${partial ? '  (interrupted: the mutants it tested)' : ''}`;
  };
  const folders = [...new Set([...newest.keys()].map((name) => path.dirname(name)))].sort();
  for (const folder of folders) {
    const files = [...newest.entries()].filter(([name]) => path.dirname(name) === folder).sort(([a], [b]) => a.localeCompare(b));
    console.log(line(`${folder}/`, files.flatMap(([, entry]) => entry.mutants)));
    for (const [name, entry] of files) console.log(`  ${line(path.basename(name), entry.mutants, entry.date, entry.partial)}`);
  }
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      scores: { type: 'boolean', default: false },
      tests: { type: 'string' },
      concurrency: { type: 'string', default: '2' },
      force: { type: 'boolean', default: false },
    },
  });
  if (values.scores) return scores();
  if (positionals.length !== 1) throw new Error('usage: npm run mutate -- <folder or file> [--tests a,b] [--concurrency N] [--force] | --scores');
  await mutate(positionals[0]!, { tests: values.tests, concurrency: Number(values.concurrency), force: values.force });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}
