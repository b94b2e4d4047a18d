// What the benches that load a server process share (bench/measure.ts): the medians of interleaved runs, the
// order targets take in each run, the wait for a process's first answer, the CPU a process spent, and the cores the
// bench and the servers it starts run on (BENCH_SERVER_CPUS). The benches themselves run by `npm run bench`, which no
// test runs (their figures are measured, not asserted).
import { type ChildProcess, spawn } from 'node:child_process';
import { cpus } from 'node:os';
import { afterEach, describe, expect, test } from 'vitest';
import { answered, cpuMs, freePort, median, medians, rotated } from '../../bench/measure.ts';

describe('median, medians and rotated', () => {
  test('the middle value of an odd count, the mean of the two middle ones of an even count, in any order', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([7])).toBe(7);
  });

  test("a target's medians: each figure on its own; the CPU only when every run measured it", () => {
    const runs = [
      { rps: 100, p50: 1, p99: 9, cpuUs: 30 },
      { rps: 300, p50: 3, p99: 5, cpuUs: 10 },
      { rps: 200, p50: 2, p99: 7, cpuUs: 20 },
    ];
    expect(medians(runs)).toEqual({ rps: 200, p50: 2, p99: 7, cpuUs: 20 });
    expect(medians([...runs.slice(0, 2), { rps: 200, p50: 2, p99: 7 }])).toEqual({ rps: 200, p50: 2, p99: 7 });
  });

  test('each run starts at another target, the ones before it moved to the end', () => {
    expect(rotated(['a', 'b', 'c'], 0)).toEqual(['a', 'b', 'c']);
    expect(rotated(['a', 'b', 'c'], 1)).toEqual(['b', 'c', 'a']);
    expect(rotated(['a', 'b', 'c'], 5)).toEqual(['c', 'a', 'b']);
    expect(rotated([], 3)).toEqual([]);
  });
});

describe('processes', () => {
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
  });
  const node = (script: string, options: string[] = []) => {
    const child = spawn(process.execPath, [...options, '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk));
    return { child, output: () => output };
  };

  test('answered: resolves once the process answers on the URL, whatever the status', async () => {
    const port = await freePort();
    const { child, output } = node(
      `setTimeout(() => require('node:http').createServer((q, s) => { s.statusCode = 401; s.end(); }).listen(${port}, '127.0.0.1'), 200)`,
    );
    await expect(answered(`http://127.0.0.1:${port}/v1/orgs`, child, output, 30_000)).resolves.toBeUndefined();
  });

  test('answered: fails with the process output when it exits first', async () => {
    const port = await freePort();
    const { child, output } = node(`console.error('cannot start'); process.exit(3)`);
    await expect(answered(`http://127.0.0.1:${port}/v1/orgs`, child, output, 30_000)).rejects.toThrow(/the process exited before answering:\ncannot start/);
  });

  test('placeProcesses: the servers spawnServer starts run on the cores named, the bench (every thread) on the others', async () => {
    // In a process of its own: the bench pins itself. Each process says its cores as the kernel lists them (`0-2,4`).
    const allowed = "(status) => status.match(/^Cpus_allowed_list:\\s*(\\S+)$/m)[1]";
    const script = `
      import { readFileSync, readdirSync } from 'node:fs';
      import { placeProcesses, spawnServer } from '${new URL('../../bench/measure.ts', import.meta.url).href}';
      const allowed = ${allowed};
      placeProcesses([0]);
      const threads = readdirSync('/proc/self/task').map((task) => allowed(readFileSync('/proc/self/task/' + task + '/status', 'utf8')));
      const { child, output } = spawnServer(['-e', 'process.stdout.write(require("node:fs").readFileSync("/proc/self/status", "utf8"))'], {});
      child.on('exit', () => console.log(JSON.stringify({ threads, server: allowed(output()) })));`;
    const { child, output } = node(script, ['--import', 'tsx', '--input-type=module']);
    await new Promise((resolve) => child.once('exit', resolve));
    const listed = (text: string) =>
      text.split(',').flatMap((range) => {
        const [first, last = first] = range.split('-').map(Number) as [number, number?];
        return Array.from({ length: last - first + 1 }, (_, i) => first + i);
      });
    const { threads, server } = JSON.parse(output().trim().split('\n').at(-1)!) as { threads: string[]; server: string };
    expect(listed(server)).toEqual([0]);
    const others = Array.from({ length: cpus().length - 1 }, (_, i) => i + 1);
    expect(threads.length).toBeGreaterThan(1);
    for (const cores of threads) expect(listed(cores)).toEqual(others);
  });

  test('cpuMs: the CPU time the process has spent (300 ms of it, spun, then idle)', async () => {
    const { child } = node(`const end = process.cpuUsage().user + 300_000; while (process.cpuUsage().user < end); setInterval(() => {}, 1000); console.log('done')`);
    await new Promise<void>((resolve) => child.stdout!.on('data', () => resolve()));
    expect(cpuMs(child)).toBeGreaterThanOrEqual(250);
  });
});
