// Instances of the server as separate processes, the way several are run behind a load balancer: each started from
// the sources (`node --import tsx server/main.ts`, what `npm start` runs once built) with the environment given,
// killed with any signal the test chooses.
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { createDocsClient, type DocsClient } from '../../client/index.ts';
import type { SeedFixture } from '../../server/seed.ts';
import { repoRoot } from './repo.ts';

export interface Instance {
  url: string;
  child: ChildProcess;
  pid: number;
  /** Everything it printed so far. */
  output(): string;
  client(token: string): DocsClient;
  /** Resolves with its exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  /** Stops it (SIGTERM) and waits for it to exit. */
  stop(): Promise<void>;
}

/** Writes `fixture` as a SEED_FILE in `dir` and returns its path. */
export function seedFile(dir: string, fixture: SeedFixture): string {
  const file = path.join(dir, `seed-${process.pid}-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(fixture));
  return file;
}

/**
 * Starts an instance with `env` (over a test-friendly base: port 0) and resolves once it listens: its log level is
 * info, since the line that says where it listens is (what it prints is kept, not shown).
 */
export function startInstance(env: Record<string, string>): Promise<Instance> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: repoRoot,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', ...env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return new Promise<Instance>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk;
      const match = output.match(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
      if (match) {
        child.stdout!.off('data', onData);
        child.stdout!.on('data', (more: Buffer) => (output += more));
        const url = match[1]!;
        resolve({
          url,
          child,
          pid: child.pid!,
          output: () => output,
          client: (token) => createDocsClient({ baseUrl: url, token }),
          exited,
          async stop() {
            if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
            await exited;
          },
        });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk));
    void exited.then((code) => reject(new Error(`the instance exited with ${code} before listening:\n${output}`)));
  });
}

/** Runs a server command to its end (a start that fails): its exit code and what it printed. */
export function runServer(env: Record<string, string>, timeoutMs = 20_000): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: repoRoot,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    }),
  );
}
