// A setup file (vitest runs it before each test file, in the file's worker process): the CPU the file used, its
// worker's and that of the processes it started and waited for (servers, npm, tsc), from its start to its last
// afterAll, appended to a file of FILE_CPU_DIR, which test/support/timings-reporter.ts sets and reads into vitest's
// JSON report (`cpuSeconds`). Without FILE_CPU_DIR it records nothing.
import { appendFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, expect } from 'vitest';

/**
 * The variable naming the folder each worker appends its files' CPU to, one `{file, engine, cpuSeconds}` JSON line a
 * file (`engine`, the project's TEST_ENGINE, tells the two projects' runs of one file apart).
 */
export const FILE_CPU_DIR = 'FILE_CPU_DIR';

/** Clock ticks a second: Linux's USER_HZ, which /proc gives times in. */
const TICKS = 100;

/** The CPU seconds of this process and of its children it has waited for (/proc/self/stat, Linux); 0 elsewhere. */
export function cpuWithChildren(stat = readStat()): number {
  if (!stat) return 0;
  // The fields after the command's closing parenthesis: utime, stime, cutime, cstime are the 14th to the 17th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const [utime, stime, cutime, cstime] = [11, 12, 13, 14].map((at) => Number(fields[at]));
  return (utime! + stime! + cutime! + cstime!) / TICKS;
}

function readStat(): string | undefined {
  try {
    return readFileSync('/proc/self/stat', 'utf8');
  } catch {
    return undefined;
  }
}

const folder = process.env[FILE_CPU_DIR];
if (folder) {
  const start = cpuWithChildren();
  afterAll(() => {
    const line = { file: expect.getState().testPath, engine: process.env.TEST_ENGINE ?? '', cpuSeconds: Math.round((cpuWithChildren() - start) * 100) / 100 };
    appendFileSync(path.join(folder, `${process.pid}.jsonl`), `${JSON.stringify(line)}\n`);
  });
}
