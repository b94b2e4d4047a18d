// The test harness's reset() as test files use it, one file alone and several side by side: each file a process with
// a server of the harness's (a child process, or in process) running rounds of a test's work, each followed by the
// `beforeEach` reset, timed. More: bench/README.md.
//   npx tsx bench/reset.ts               BENCH_RESETS rounds (40 by default) per file, 1 and 4 files
//   BENCH_PARTS=reset npm run bench      the same, as a part of the bench
import { spawn } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
import { startDocsServer } from '../server/testing/index.ts';
import { benchSettings } from './settings.ts';

export interface ResetFigures {
  files: number;
  inProcess: boolean;
  /** Every reset's time, ms, of every file. */
  times: number[];
}

const here = fileURLToPath(import.meta.url);

/** Runs `files` processes side by side, each `rounds` rounds; the times of their resets. */
async function sideBySide(files: number, rounds: number, inProcess: boolean): Promise<ResetFigures> {
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  const workers = Array.from({ length: files }, () =>
    spawn(process.execPath, ['--import', tsx, here, 'file', String(rounds), inProcess ? 'in-process' : 'child'], {
      stdio: ['pipe', 'pipe', 'inherit'],
    }),
  );
  const outputs = workers.map((worker) => {
    let text = '';
    worker.stdout!.on('data', (chunk: Buffer) => (text += chunk));
    return {
      ready: new Promise<void>((resolve, reject) => {
        worker.stdout!.on('data', () => text.includes('ready\n') && resolve());
        worker.once('exit', (code) => reject(new Error(`a bench file exited (code ${code}) before its server listened`)));
      }),
      done: new Promise<number[]>((resolve, reject) =>
        worker.once('exit', (code) => {
          const last = text.trim().split('\n').at(-1) ?? '';
          if (code === 0 && last.startsWith('[')) resolve(JSON.parse(last) as number[]);
          else reject(new Error(`a bench file exited (code ${code}):\n${text}`));
        }),
      ),
    };
  });
  await Promise.all(outputs.map((output) => output.ready));
  for (const worker of workers) worker.stdin!.end('go\n');
  const times = (await Promise.all(outputs.map((output) => output.done))).flat();
  return { files, inProcess, times };
}

/** One file: a server, then `rounds` rounds of work and a timed reset; the times as a JSON array on the last line. */
async function file(rounds: number, inProcess: boolean): Promise<void> {
  const server = await startDocsServer({ inProcess });
  try {
    const organization = { params: { path: { organizationId: 'demo' } } };
    process.stdout.write('ready\n');
    await new Promise<void>((resolve) => process.stdin.once('data', () => resolve()));
    const times: number[] = [];
    for (let round = 0; round < rounds; round++) {
      for (const title of ['Guides', 'Notes']) {
        const created = await server.client.POST('/v1/orgs/{organizationId}/spaces', { ...organization, body: { title } });
        if (created.error) throw new Error(created.error.error.message);
      }
      const listed = await server.client.GET('/v1/orgs/{organizationId}/spaces', organization);
      if (listed.error) throw new Error(listed.error.error.message);
      const started = performance.now();
      await server.reset();
      times.push(performance.now() - started);
    }
    process.stdout.write(`${JSON.stringify(times)}\n`);
  } finally {
    await server.stop();
  }
}

export async function benchReset(rounds: number): Promise<ResetFigures[]> {
  const figures: ResetFigures[] = [];
  for (const inProcess of [false, true]) {
    for (const files of [1, 4]) figures.push(await sideBySide(files, rounds, inProcess));
  }
  return figures;
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

export function resetTable(figures: ResetFigures[]): string {
  const rows = figures.map(({ files, inProcess, times }) => {
    const sorted = [...times].sort((a, b) => a - b);
    const cells = [0.5, 0.95, 1].map((q) => quantile(sorted, q).toFixed(1));
    return `| ${inProcess ? 'in process' : 'child process'} | ${files} | ${sorted.length} | ${cells.join(' | ')} |`;
  });
  return ['| server | files side by side | resets | median ms | p95 ms | worst ms |', '|---|---:|---:|---:|---:|---:|', ...rows].join('\n');
}

if (process.argv[1] === here) {
  if (process.argv[2] === 'file') {
    await file(Number(process.argv[3]), process.argv[4] === 'in-process');
  } else {
    console.log(resetTable(await benchReset(benchSettings().resets)));
  }
}
