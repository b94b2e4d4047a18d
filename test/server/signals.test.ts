// Signals sent to the outermost process stop the server cleanly, however it was started (`npm start`, `npm run dev`,
// `npm exec`): to npm's own pid, or to the whole process group as Ctrl-C sends it; npm exits, no process of the
// group is left, DATA_DIR's lock is released, the port is free.
// Why this works through npm: test/README.md, "The server as a process".
// @needs processes
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { copyRepository } from '../../scripts/repo-copy.ts';
import { HOLDER_FILE, lockDataDir } from '../../server/start/data-dir.ts';
import { repoRoot } from '../support/repo.ts';

const scratch = mkdtempSync(path.join(tmpdir(), 'signals-'));
const copy = path.join(scratch, 'repository');
const groups: number[] = [];
beforeAll(() => copyRepository(copy));
afterAll(() => {
  for (const group of groups) {
    try {
      process.kill(-group, 'SIGKILL');
    } catch {
      // gone, as it should be
    }
  }
  rmSync(scratch, { recursive: true, force: true });
});

// npm's own variables (set when the tests run under `npm test`) would point the nested npm at this repository.
const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));

/** Whether any process of the group is alive. */
const groupAlive = (group: number) => {
  try {
    process.kill(-group, 0);
    return true;
  } catch {
    return false;
  }
};

/** Whether the port can be listened on again. */
const portFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });

/** Runs `npm <args>` in `cwd` in a process group of its own, until the server it starts listens. */
async function npm(cwd: string, args: string[], name: string) {
  const dataDir = path.join(scratch, `data-${name}`);
  const child: ChildProcess = spawn('npm', args, {
    cwd,
    env: { ...env, PORT: '0', DATA_DIR: dataDir, LOG_FORMAT: 'json' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  groups.push(child.pid!);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await vi.waitFor(
    () => {
      const match = output.match(/listening on (http:\/\/127\.0\.0\.1:(\d+))/);
      if (!match) throw new Error(`not listening yet:\n${output}`);
      return match;
    },
    { timeout: 90_000, interval: 50 },
  );
  // The server that holds DATA_DIR's lock records itself beside it.
  const holder = path.join(dataDir, HOLDER_FILE);
  const server = (JSON.parse(readFileSync(holder, 'utf8')) as { pid: number }).pid;
  return { child, exit, port: Number(url[2]), dataDir, holder, server, output: () => output };
}

type Started = Awaited<ReturnType<typeof npm>>;

/** After the signal: npm exits, its whole group with it, the server closed its database and released DATA_DIR and the port. */
async function expectStoppedCleanly(started: Started) {
  const timer = setTimeout(() => process.kill(-started.child.pid!, 'SIGKILL'), 30_000);
  await started.exit;
  clearTimeout(timer);
  expect(started.output(), started.output()).toContain('"msg":"shutting down"');
  await vi.waitFor(() => expect(groupAlive(started.child.pid!)).toBe(false), { timeout: 10_000 });
  // The lock is free (a new holder gets it at once), and the clean stop removed the holder's record.
  lockDataDir(started.dataDir).release();
  expect(existsSync(started.holder), `${started.holder} left behind:\n${started.output()}`).toBe(false);
  expect(() => process.kill(started.server, 0)).toThrow(/ESRCH/);
  expect(await portFree(started.port)).toBe(true);
}

describe('npm start', () => {
  beforeAll(() => {
    if (!existsSync(path.join(repoRoot, 'dist/server/main.js'))) throw new Error('dist/server/main.js is missing: run npm ci (or npm run build:server)');
  });

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    test(`${signal} to npm's pid stops the server cleanly`, async () => {
      const started = await npm(repoRoot, ['start'], `start-${signal}`);
      process.kill(started.child.pid!, signal);
      await expectStoppedCleanly(started);
      expect(await started.exit).toBe(0);
    }, 120_000);
  }

  test('Ctrl-C (SIGINT to the whole process group: npm, and the server, which also gets the one npm forwards) stops it cleanly', async () => {
    const started = await npm(repoRoot, ['start'], 'start-group');
    process.kill(-started.child.pid!, 'SIGINT');
    await expectStoppedCleanly(started);
  }, 120_000);
});

describe('npm run dev', () => {
  test("SIGTERM to npm's pid stops dev, its type-check and its server cleanly", async () => {
    const started = await npm(copy, ['run', 'dev'], 'dev-term');
    process.kill(started.child.pid!, 'SIGTERM');
    await expectStoppedCleanly(started);
    expect(await started.exit).toBe(0);
  }, 120_000);

  test('Ctrl-C (SIGINT to the whole process group) stops it cleanly', async () => {
    const started = await npm(copy, ['run', 'dev', '--', '--no-typecheck'], 'dev-group');
    process.kill(-started.child.pid!, 'SIGINT');
    await expectStoppedCleanly(started);
  }, 120_000);
});

describe('npm exec (npx docs-platform-server runs the same way)', () => {
  // npm runs the command through `sh -c`, which does not pass npm's signal on: the server stops once the process
  // that started it is gone (server/main.ts, stopWithParent).
  test("SIGTERM to npm's pid stops the server it started, cleanly", async () => {
    const started = await npm(repoRoot, ['exec', '--', 'node', 'dist/server/main.js'], 'exec-term');
    process.kill(started.child.pid!, 'SIGTERM');
    await started.exit;
    await vi.waitFor(() => expect(groupAlive(started.child.pid!)).toBe(false), { timeout: 15_000 });
    expect(started.output()).toMatch(/"msg":"shutting down"/);
    lockDataDir(started.dataDir).release();
    expect(existsSync(started.holder), `${started.holder} left behind:\n${started.output()}`).toBe(false);
    expect(() => process.kill(started.server, 0)).toThrow(/ESRCH/);
    expect(await portFree(started.port)).toBe(true);
  }, 120_000);
});
