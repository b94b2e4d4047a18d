// `npm run bench` reads its BENCH_* variables before it builds or starts anything, and stops on one it cannot use,
// naming every such variable, instead of measuring nothing (a part it does not have), crashing minutes in, or
// passing NaN to autocannon.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { BENCH_PARTS, BenchSettingsError, benchSettings } from '../../bench/settings.ts';

/** The error benchSettings throws for `env`, one line per variable. */
function problems(env: NodeJS.ProcessEnv): string[] {
  try {
    benchSettings(env);
  } catch (error) {
    expect(error).toBeInstanceOf(BenchSettingsError);
    return (error as Error).message.split('\n');
  }
  throw new Error(`no error for ${JSON.stringify(env)}`);
}

describe('the bench settings', () => {
  test('unset or empty variables take the defaults the README gives', () => {
    const defaults = {
      parts: BENCH_PARTS.filter((part) => part !== 'guard'),
      server: 'dist',
      nodeArgs: [],
      seconds: 5,
      runs: 2,
      warmup: 500,
      connections: 10,
      connectionsSet: false,
      memoryRequests: 100_000,
      memoryPages: 4_900,
      sizes: [100, 1000, 10000, 50000],
      rounds: 20,
      pages: [100, 1000, 4900],
      pageBytes: 2000,
      idRows: 100_000,
      resets: 40,
      saves: 5,
      fresh: 400, pipelineConnections: 1000,
    };
    expect(benchSettings({})).toEqual(defaults);
    const names = ['PARTS', 'SERVER', 'NODE_ARGS', 'SECONDS', 'RUNS', 'WARMUP', 'CONNECTIONS', 'MEMORY_REQUESTS', 'MEMORY_PAGES'];
    names.push('SIZES', 'ROUNDS', 'PAGES', 'PAGE_BYTES', 'ID_ROWS', 'RESETS', 'SAVES', 'FRESH', 'OPERATIONS', 'SERVER_CPUS', 'PIPELINE_CONNECTIONS');
    const empty = Object.fromEntries(names.map((name) => [`BENCH_${name}`, '']));
    expect(benchSettings(empty)).toEqual(defaults);
  });

  test('values it can use are read as given; parts run in the bench order, whatever order they are named in', () => {
    expect(
      benchSettings({
        BENCH_PARTS: 'ids, throughput,prism',
        BENCH_SERVER: 'tsx',
        BENCH_NODE_ARGS: '--cpu-prof  --cpu-prof-dir=/tmp/p',
        BENCH_SECONDS: '2.5',
        BENCH_RUNS: '3',
        BENCH_WARMUP: '4000',
        BENCH_CONNECTIONS: '50',
        BENCH_MEMORY_REQUESTS: '1000',
        BENCH_MEMORY_PAGES: '5000',
        BENCH_SIZES: '10, 20',
        BENCH_ROUNDS: '5',
        BENCH_PAGES: '4994',
        BENCH_PAGE_BYTES: '100',
        BENCH_ID_ROWS: '0',
        BENCH_RESETS: '3',
        BENCH_SAVES: '2',
        BENCH_FRESH: '50',
      }),
    ).toEqual({
      parts: ['throughput', 'prism', 'ids'],
      server: 'tsx',
      nodeArgs: ['--cpu-prof', '--cpu-prof-dir=/tmp/p'],
      seconds: 2.5,
      runs: 3,
      warmup: 4000,
      connections: 50,
      connectionsSet: true,
      memoryRequests: 1000,
      memoryPages: 5000,
      sizes: [10, 20],
      rounds: 5,
      pages: [4994],
      pageBytes: 100,
      idRows: 0,
      resets: 3,
      saves: 2,
      fresh: 50, pipelineConnections: 1000,
    });
  });

  test('BENCH_REQUESTS picks requests by name; one it does not have is named, with those it has', () => {
    expect(benchSettings({ BENCH_REQUESTS: 'PATCH a space, GET a space' }).requests).toEqual(['PATCH a space', 'GET a space']);
    expect(benchSettings({}).requests).toBeUndefined();
    expect(problems({ BENCH_REQUESTS: 'PATCH a space,PUT a space' })).toEqual([
      expect.stringMatching(/^BENCH_REQUESTS must name requests among GET a space, .*POST a comment.*, got "PATCH a space,PUT a space" \(no request "PUT a space"\)$/),
    ]);
    expect(problems({ BENCH_REQUESTS: ' , ' })).toEqual([expect.stringMatching(/^BENCH_REQUESTS must name requests among .*, got " , "$/)]);
  });

  test('BENCH_OPERATIONS picks operations by operationId; one the server does not implement is named', () => {
    expect(benchSettings({ BENCH_OPERATIONS: 'getSpace, updateSpace' }).operations).toEqual(['getSpace', 'updateSpace']);
    expect(benchSettings({}).operations).toBeUndefined();
    expect(problems({ BENCH_OPERATIONS: 'getSpace,getSpaces' })).toEqual([
      'BENCH_OPERATIONS must name operations the server implements, by operationId, separated by commas, got "getSpace,getSpaces" (no operation "getSpaces")',
    ]);
    expect(problems({ BENCH_FRESH: '5' })).toEqual(['BENCH_FRESH must be a whole number from 10 to 100000, got "5"']);
  });

  test('BENCH_SERVER_CPUS names cores of this machine for the servers, leaving one at least for the bench and PostgreSQL', () => {
    const cores = cpus().length;
    const wrong = (text: string) => `BENCH_SERVER_CPUS must be whole numbers from 0 to ${cores - 1}, separated by commas, got "${text}"`;
    expect(benchSettings({}).serverCpus).toBeUndefined();
    for (const text of [`${cores}`, '-1', '0-1', 'a', '1.0', ' , ']) expect(problems({ BENCH_SERVER_CPUS: text })).toEqual([wrong(text)]);
    const every = Array.from({ length: cores }, (_, core) => core).join(',');
    expect(problems({ BENCH_SERVER_CPUS: every })).toEqual([`BENCH_SERVER_CPUS must leave one core at least for the bench and PostgreSQL (this machine has ${cores}), got "${every}"`]);
    // The machines this runs on have two cores at least (the bench's own need: a server and its load apart).
    if (cores >= 2) expect(benchSettings({ BENCH_SERVER_CPUS: ' 0, 0' }).serverCpus).toEqual([0]);
  });

  test('a part it does not have is named, with the parts it has', () => {
    expect(problems({ BENCH_PARTS: 'throughput,idz' })).toEqual([
      'BENCH_PARTS must name parts among throughput, guard, prism, startup, memory, bounds, pipelining, store, mechanisms, operations, lists, revisions, ids, reset, save, client, spec-rule, separated by commas, got "throughput,idz" (no part "idz")',
    ]);
    expect(problems({ BENCH_PARTS: ' , ' })[0]).toMatch(/^BENCH_PARTS must name parts among .*, got " , "$/);
  });

  test.each([
    ['BENCH_RUNS', '0'],
    ['BENCH_RUNS', 'two'],
    ['BENCH_RUNS', '1.5'],
    ['BENCH_RUNS', '-1'],
    ['BENCH_RUNS', '1e2'],
    ['BENCH_RUNS', '0x10'],
    ['BENCH_CONNECTIONS', '0'],
    ['BENCH_MEMORY_REQUESTS', '9'],
    ['BENCH_MEMORY_PAGES', '5001'],
    ['BENCH_SIZES', '100,,1000'],
    ['BENCH_SIZES', '100,ten'],
    ['BENCH_ROUNDS', '0'],
    ['BENCH_PAGE_BYTES', 'big'],
    ['BENCH_ID_ROWS', '-5'],
    ['BENCH_SECONDS', '0'],
    ['BENCH_SECONDS', 'five'],
    ['BENCH_SECONDS', '-2'],
    ['BENCH_SERVER', 'node'],
  ])('%s=%s is refused, naming the variable and the value', (name, value) => {
    const [line, ...rest] = problems({ [name]: value });
    expect(rest).toEqual([]);
    expect(line).toMatch(new RegExp(`^${name} must be .*, got "${value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"$`));
  });

  test("a space of the revisions part must leave room for the pages its template calls add (one per call)", () => {
    // 5 000 pages at most in a revision; 20 timed calls and one to warm add 21.
    expect(benchSettings({ BENCH_PAGES: '4979' }).pages).toEqual([4979]);
    expect(problems({ BENCH_PAGES: '100,4980' })).toEqual([
      'BENCH_PAGES must be whole numbers from 1 to 4979, separated by commas, got "100,4980"',
    ]);
    expect(benchSettings({ BENCH_PAGES: '4980', BENCH_ROUNDS: '19' }).pages).toEqual([4980]);
  });

  test('every variable it cannot use is named at once, a line each', () => {
    expect(problems({ BENCH_PARTS: 'all', BENCH_RUNS: '0', BENCH_SECONDS: 'x', BENCH_SIZES: '' })).toEqual([
      expect.stringMatching(/^BENCH_PARTS /),
      expect.stringMatching(/^BENCH_SECONDS /),
      expect.stringMatching(/^BENCH_RUNS /),
    ]);
  });
});

describe('npm run bench with a variable it cannot use', () => {
  test('exits 2 before it builds or starts anything, naming each variable on stderr', async () => {
    const temp = mkdtempSync(path.join(tmpdir(), 'bench-settings-'));
    try {
      const bench = spawn('npm', ['run', '--silent', 'bench'], {
        // Were the settings not checked first, the ids part would run (a few seconds, nothing built): a small one.
        env: { ...process.env, BENCH_PARTS: 'ids,nope', BENCH_RUNS: 'many', BENCH_ID_ROWS: '100', TMPDIR: temp },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      bench.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
      bench.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
      const code = await new Promise<number | null>((resolve) => bench.once('exit', resolve));
      expect(code, stderr).toBe(2);
      const lines = stderr.split('\n').filter((line) => line.startsWith('npm run bench: '));
      expect(lines).toEqual([
        expect.stringContaining('BENCH_PARTS must name parts among throughput, guard, prism, startup, memory, bounds, pipelining, store, mechanisms, operations, lists, revisions, ids'),
        'npm run bench: BENCH_RUNS must be a whole number from 1 to 100, got "many"',
      ]);
      // Nothing built or measured, no data made (the bench's data goes to docs-bench-* and bench-ids-* in TMPDIR;
      // tsx keeps its cache there too).
      expect(stdout).not.toMatch(/throughput:|build-server/);
      expect(readdirSync(temp).filter((entry) => entry.startsWith('docs-bench-') || entry.startsWith('bench-ids-'))).toEqual([]);
    } finally {
      rmSync(temp, { recursive: true, force: true });
    }
  });
});
