// `npm run dev`: the reference server with a developer's settings, restarted as the code changes.
//   - settings (each overridden by the environment): DOCS_API_TOKEN=dev-token, ALLOW_PRIVATE_NETWORKS=true,
//     ALLOW_LOCAL_GIT=true with LOCAL_GIT_ROOT the system's temporary folder (where the conformance runner and tests
//     create their repositories; set LOCAL_GIT_ROOT to reach your own),
//     DATA_DIR=.data/dev (git-ignored), LOG_FORMAT=pretty; an empty database gets the demo organization (`demo`);
//   - spec/ changes: regenerate generated/ (`npm run generate`), type-check (as `npm run check`), then restart; when
//     either fails the error is printed and the server keeps serving the last good contract;
//   - server/ changes: restart (the server runs from the sources, through tsx).
// Every line it prints starts with `[dev]`; the server's own output follows as it comes.
import { type ChildProcess, spawn } from 'node:child_process';
import { watch, type FSWatcher } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type CheckResult, runCommand, typecheck } from './check.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export const DEV_TOKEN = 'dev-token';

/** The environment of the development server: the developer's settings, under whatever the caller's environment sets. */
export function devEnvironment(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return {
    DOCS_API_TOKEN: DEV_TOKEN,
    ALLOW_PRIVATE_NETWORKS: 'true',
    ALLOW_LOCAL_GIT: 'true',
    LOCAL_GIT_ROOT: tmpdir(),
    DATA_DIR: path.join(root, '.data/dev'),
    LOG_FORMAT: 'pretty',
    ...env,
  };
}

/** Regenerates generated/ from spec/ (writing nothing when generation fails). */
export async function regenerate(): Promise<CheckResult> {
  const run = await runCommand(path.join(root, 'node_modules/.bin/tsx'), ['scripts/generate.ts']);
  return run.code === 0
    ? { ok: true, summary: 'generated/ regenerated' }
    : { ok: false, summary: '`npm run generate` failed', details: run.output.trim() };
}

export interface DevOptions {
  env?: NodeJS.ProcessEnv;
  /** Folders whose changes restart the server (default server/). */
  serverDirs?: string[];
  /** The contract's folder (default spec/). */
  specDir?: string;
  /** What a spec/ change runs before the restart (default: regenerate, then type-check). */
  contractSteps?: (() => Promise<CheckResult>)[];
  /** Quiet time after a change before acting on it. */
  debounceMs?: number;
  /** Where the lines go (default stdout). */
  print?: (text: string) => void;
}

export interface DevServer {
  /** The server's address, known once its first start listens. */
  readonly url: Promise<string>;
  /** How many times the server has been (re)started successfully. */
  readonly starts: number;
  /** Resolves after the next start that listens (or the next failed attempt, with false). */
  nextStart(): Promise<boolean>;
  close(): Promise<void>;
}

export function startDev(options: DevOptions = {}): DevServer {
  const env = devEnvironment(options.env);
  const print = options.print ?? ((text: string) => process.stdout.write(text));
  const say = (line: string) => print(`[dev] ${line}\n`);
  const serverDirs = options.serverDirs ?? [path.join(root, 'server')];
  const specDir = options.specDir ?? path.join(root, 'spec');
  const steps = options.contractSteps ?? [regenerate, typecheck];
  const debounceMs = options.debounceMs ?? 300;

  let child: ChildProcess | undefined;
  let starts = 0;
  let closed = false;
  let resolveUrl!: (url: string) => void;
  const url = new Promise<string>((resolve) => (resolveUrl = resolve));
  let waiters: ((ok: boolean) => void)[] = [];
  const settle = (ok: boolean) => {
    for (const waiter of waiters) waiter(ok);
    waiters = [];
  };

  /** Starts the server from the sources; resolves once it listens (true) or has exited (false). */
  const startServer = () =>
    new Promise<boolean>((resolve) => {
      const server = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
      child = server;
      let seen = '';
      let listening = false;
      const onData = (chunk: Buffer) => {
        print(chunk.toString());
        if (listening) return;
        seen += chunk;
        const match = seen.match(/listening on (http:\/\/[^\s"]+)/);
        if (match) {
          listening = true;
          starts++;
          // Restarts keep the address, even when PORT=0 let the first start pick it.
          env.PORT = new URL(match[1]!).port;
          resolveUrl(match[1]!);
          say(`serving ${match[1]} (token ${env.DOCS_API_TOKEN}, data in ${env.DATA_DIR})`);
          resolve(true);
        }
      };
      server.stdout!.on('data', onData);
      server.stderr!.on('data', onData);
      server.once('exit', (code, signal) => {
        if (child === server) child = undefined;
        if (!listening) {
          say(`the server did not start (exit code ${code ?? signal}): fix the error above; waiting for the next change`);
          resolve(false);
        } else if (!closed && !stopping.has(server)) {
          say(`the server stopped (exit code ${code ?? signal}); waiting for the next change`);
        }
      });
    });

  const stopping = new Set<ChildProcess>();
  const stopServer = async () => {
    const server = child;
    if (!server || server.exitCode !== null || server.signalCode !== null) return;
    stopping.add(server);
    const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
    server.kill('SIGTERM');
    const timer = setTimeout(() => server.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };

  const restart = async () => {
    await stopServer();
    if (closed) return;
    const ok = await startServer();
    settle(ok);
  };

  // Changes are collected while the previous batch is handled, then handled together.
  let pending = { spec: new Set<string>(), server: new Set<string>() };
  let timer: NodeJS.Timeout | undefined;
  let busy: Promise<void> = Promise.resolve();

  const handle = async () => {
    const batch = pending;
    pending = { spec: new Set(), server: new Set() };
    if (batch.spec.size === 0 && batch.server.size === 0) return;
    const changed = [...batch.spec, ...batch.server].map((file) => path.relative(root, file)).join(', ');
    if (batch.spec.size > 0) {
      say(`changed: ${changed}; regenerating and type-checking…`);
      for (const step of steps) {
        const result = await step();
        if (!result.ok) {
          say(`${result.summary}${result.details ? `:\n${result.details}` : ''}`);
          say(child ? 'the server keeps serving the last good contract; fix the error and save again' : 'fix the error and save again');
          settle(false);
          return;
        }
        say(result.summary);
      }
    } else {
      say(`changed: ${changed}; restarting…`);
    }
    await restart();
  };

  const onChange = (kind: 'spec' | 'server', dir: string, file: string | null) => {
    if (closed || !file) return;
    const wanted = kind === 'spec' ? /\.tsp$/.test(file) : /\.(ts|sql|json)$/.test(file);
    if (!wanted) return;
    pending[kind].add(path.join(dir, file));
    clearTimeout(timer);
    timer = setTimeout(() => {
      busy = busy.then(handle, handle);
    }, debounceMs);
  };

  const watchers: FSWatcher[] = [
    watch(specDir, { recursive: true }, (_event, file) => onChange('spec', specDir, file)),
    ...serverDirs.map((dir) => watch(dir, { recursive: true }, (_event, file) => onChange('server', dir, file))),
  ];

  say(
    `starting the server with the development settings: DOCS_API_TOKEN=${env.DOCS_API_TOKEN}, ALLOW_PRIVATE_NETWORKS=${env.ALLOW_PRIVATE_NETWORKS}, ` +
      `ALLOW_LOCAL_GIT=${env.ALLOW_LOCAL_GIT} (LOCAL_GIT_ROOT=${env.LOCAL_GIT_ROOT}), DATA_DIR=${env.DATA_DIR}`,
  );
  say(`watching ${[specDir, ...serverDirs].map((dir) => path.relative(root, dir) || '.').join(', ')}`);
  busy = startServer().then(settle);

  return {
    url,
    get starts() {
      return starts;
    },
    nextStart: () => new Promise<boolean>((resolve) => waiters.push(resolve)),
    async close() {
      closed = true;
      clearTimeout(timer);
      for (const watcher of watchers) watcher.close();
      await busy.catch(() => undefined);
      await stopServer();
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dev = startDev();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      void dev.close().then(() => process.exit(0));
    });
  }
}
