// Instances of the server as separate processes, the way several are run behind a load balancer: each started as
// `npm start` starts it (the compiled server, built from the sources at the start of the run: built-server.ts) with the environment given,
// killed with any signal the test chooses. And what tests of them share: SQL on their database, waiting for what
// they do in the background, a remote server that holds their requests.
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { createDocsClient, type DocsClient } from '../../client/index.ts';
import type { SeedFixture } from '../../server/start/seed.ts';
import { serverArguments } from './built-server.ts';
import { repoRoot } from './repo.ts';

/** One JSON line of an instance's log (LOG_FORMAT=json). */
export type LogLine = { level: number; msg: string; condition?: string; status?: number; err?: unknown; [field: string]: unknown };

/** The JSON lines an instance logged so far. */
export const logLines = (instance: Instance): LogLine[] =>
  instance
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);

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
 * info, since the line that says where it listens is (what it prints is kept, not shown). `imports`: modules loaded
 * before the server (`--import`), such as skewed-clock.ts.
 */
export function startInstance(env: Record<string, string>, options: { imports?: string[] } = {}): Promise<Instance> {
  const child = spawn(process.execPath, serverArguments(options.imports), {
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
  const child = spawn(process.execPath, serverArguments(), {
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

/** Runs `sql` on the database at `url`. */
export async function query<T>(url: string, sql: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, values)).rows as T[];
  } finally {
    await client.end();
  }
}

/** Polls `check` until it returns something, for at most `ms`. */
export async function eventually<T>(check: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const found = await check();
    if (found !== undefined) return found;
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A request a held server received: its path, headers and body. */
export interface HeldRequest {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * An HTTP server on 127.0.0.1 that holds every request until `release`, then answers each with `documents[path]`
 * (404 for another path), after `answerDelayMs`. `held()` is how many wait, `received` every request in the order of
 * arrival, `mostAtOnce` the most requests it had at once (held or being answered).
 */
export async function heldServer(documents: Record<string, { type: string; body: string }>, options: { answerDelayMs?: number } = {}) {
  const waiting: (() => void)[] = [];
  const received: HeldRequest[] = [];
  let released = false;
  let open = 0;
  let mostAtOnce = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk));
    req.on('end', () => {
      const path = new URL(req.url!, 'http://held').pathname;
      received.push({ path, headers: req.headers, body });
      open++;
      mostAtOnce = Math.max(mostAtOnce, open);
      const serve = () =>
        setTimeout(() => {
          open--;
          const document = documents[path];
          if (!document) res.writeHead(404).end();
          else res.writeHead(200, { 'content-type': document.type }).end(document.body);
        }, options.answerDelayMs ?? 0);
      if (released) serve();
      else waiting.push(serve);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    held: () => waiting.length,
    received,
    mostAtOnce: () => mostAtOnce,
    release() {
      released = true;
      for (const serve of waiting.splice(0)) serve();
    },
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
