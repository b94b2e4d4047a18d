// What the benches that load a server process share (bench/measure.ts): the medians of interleaved runs, the
// order targets take in each run, the wait for a process's first answer, and the CPU a process spent. The benches
// themselves run by `npm run bench`, which no test runs (their figures are measured, not asserted).
import { type ChildProcess, spawn } from 'node:child_process';
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
  const node = (script: string) => {
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
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

  test('cpuMs: the CPU time the process has spent (300 ms of it, spun, then idle)', async () => {
    const { child } = node(`const end = process.cpuUsage().user + 300_000; while (process.cpuUsage().user < end); setInterval(() => {}, 1000); console.log('done')`);
    await new Promise<void>((resolve) => child.stdout!.on('data', () => resolve()));
    expect(cpuMs(child)).toBeGreaterThanOrEqual(250);
  });
});
