// `npm run dev`: the reference server with a developer's settings, serving each saved contract within seconds.
//   - settings (each overridden by the environment): DOCS_API_TOKEN=dev-token, ANSWER_FROM_CONTRACT=true (an operation
//     added to spec/ is answered from its example until it is implemented: server/http/contract-answers.ts), ALLOW_PRIVATE_NETWORKS=true,
//     ALLOW_LOCAL_GIT=true with LOCAL_GIT_ROOT the system's temporary folder (where the conformance runner and tests
//     create their repositories; set LOCAL_GIT_ROOT to reach your own),
//     DATA_DIR=.data/dev (git-ignored), LOG_FORMAT=pretty; an empty database gets the demo organization (`demo`);
//   - a spec/ change: the TypeSpec compiler, kept loaded in this process with the files it parsed, compiles spec/
//     (about a second); a TypeSpec error is printed and the server keeps serving the last good contract; a contract
//     that compiles to another generated/openapi.yaml is written, and a server process that loaded its modules
//     while the last one served (scripts/dev-server.ts) takes over (half a second). Then generated/schema.d.ts is
//     regenerated, and the type-check (below) reports on it while the server already serves;
//   - a server/ change: restart, afresh (the server runs from the sources, through tsx);
//   - the type-check: TypeScript 7's tsc on the whole project (incremental, its state shared with `npm run check`), at a
//     lower CPU priority beside the server; each result is one `[dev] types:` line with the errors under it. It
//     starts once the server serves. `npm run dev -- --no-typecheck` leaves it out.
// The files are watched as editors save them (scripts/watch-tree.ts). Every line it prints starts with `[dev]`; the
// server's own output follows as it comes. SIGINT and SIGTERM stop the server and then this process.
// Measured by scripts/bench-save.ts (`BENCH_PARTS=save npm run bench`; docs/performance-figures.md, "The daily loop").
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { setPriority, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { contractCompiler, schemaTypes } from './generate.ts';
import { watchTree } from './watch-tree.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OPENAPI = path.join(root, 'generated/openapi.yaml');
const SCHEMA = path.join(root, 'generated/schema.d.ts');
/** The folders of tsconfig.json's `include`, whose TypeScript files the type-check re-runs on. */
const TYPECHECKED = ['scripts', 'test', 'generated', 'server', 'client', 'conformance', 'breaking'];

export const DEV_TOKEN = 'dev-token';

/** The environment of the development server: the developer's settings, under whatever the caller's environment sets. */
export function devEnvironment(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return {
    DOCS_API_TOKEN: DEV_TOKEN,
    ANSWER_FROM_CONTRACT: 'true',
    ALLOW_PRIVATE_NETWORKS: 'true',
    ALLOW_LOCAL_GIT: 'true',
    LOCAL_GIT_ROOT: tmpdir(),
    DATA_DIR: path.join(root, '.data/dev'),
    LOG_FORMAT: 'pretty',
    ...env,
  };
}

export interface DevOptions {
  env?: NodeJS.ProcessEnv;
  /** Run the type-check beside the server (default true). */
  typecheck?: boolean;
  /** Quiet time after a change before acting on it: the events of one save come within a few milliseconds. */
  debounceMs?: number;
  /** Where the lines go (default stdout). */
  print?: (text: string) => void;
}

export interface DevServer {
  /** The server's address, known once its first start listens. */
  readonly url: Promise<string>;
  close(): Promise<void>;
}

const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

/** Writes a file whole: readers (the server starting, tsc) see the old content or the new, never half of it. */
function replaceFile(file: string, content: string): void {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, content);
  renameSync(temporary, file);
}

export function startDev(options: DevOptions = {}): DevServer {
  const env = devEnvironment(options.env);
  const print = options.print ?? ((text: string) => process.stdout.write(text));
  const say = (line: string) => print(`[dev] ${line}\n`);
  const debounceMs = options.debounceMs ?? 100;

  let child: ChildProcess | undefined;
  /** A server process with its modules loaded, waiting to be told to start (scripts/dev-server.ts). */
  let standby: Launched | undefined;
  let checker: ChildProcess | undefined;
  let closed = false;
  let resolveUrl!: (url: string) => void;
  const url = new Promise<string>((resolve) => (resolveUrl = resolve));
  const staging = mkdtempSync(path.join(tmpdir(), 'dev-contract-'));
  const compileContract = contractCompiler(root);

  interface Launched {
    process: ChildProcess;
    /** The server's address once it listens; undefined once it has exited without. */
    listening: Promise<string | undefined>;
    /** Standby only: whether its modules loaded (false: it exited first). */
    ready: Promise<boolean>;
    /** Makes it the running server: its output is printed from then on. */
    activate(): void;
  }

  /**
   * Starts a server process from the sources: `server/main.ts` at once, or scripts/dev-server.ts, which loads the
   * server's modules and waits (a standby). Until it is the running server its output is held, and dropped if it
   * exits before: a standby that fails to load is replaced by a fresh start, which prints the error.
   */
  const launch = (kind: 'now' | 'standby'): Launched => {
    const entry = kind === 'now' ? 'server/main.ts' : 'scripts/dev-server.ts';
    const server = spawn(process.execPath, ['--import', 'tsx', entry], {
      cwd: root,
      env: { ...env },
      // The server tells its address over the IPC channel (server/main.ts), whatever its log level hides.
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    let active = false;
    let held = '';
    let listening = false;
    let resolveListening!: (address: string | undefined) => void;
    const listeningPromise = new Promise<string | undefined>((resolve) => (resolveListening = resolve));
    const onData = (chunk: Buffer) => {
      if (active) print(chunk.toString());
      else held += chunk;
    };
    server.stdout!.on('data', onData);
    server.stderr!.on('data', onData);
    server.on('message', (message: { type?: string; url?: string } | string) => {
      if (listening || typeof message !== 'object' || message.type !== 'listening' || typeof message.url !== 'string') return;
      listening = true;
      // Restarts keep the address, even when PORT=0 let the first start pick it.
      env.PORT = new URL(message.url).port;
      resolveUrl(message.url);
      resolveListening(message.url);
    });
    // A standby that died just before it was told to start: `send` fails, and the exit below tells the rest.
    server.on('error', (error) => {
      if (active) say(`the server process failed: ${error.message}`);
    });
    const ready =
      kind === 'standby'
        ? new Promise<boolean>((resolve) => {
            server.on('message', (message) => message === 'ready' && resolve(true));
            server.once('exit', () => resolve(false));
          })
        : Promise.resolve(true);
    server.once('exit', (code, signal) => {
      if (standby?.process === server) standby = undefined;
      if (!active) return;
      if (child === server) child = undefined;
      if (!listening) {
        say(`the server did not start (exit code ${code ?? signal}): fix the error above; waiting for the next change`);
        resolveListening(undefined);
      } else if (!closed && !stopping.has(server)) {
        say(`the server stopped (exit code ${code ?? signal}); waiting for the next change`);
      }
    });
    return {
      process: server,
      listening: listeningPromise,
      ready,
      activate() {
        active = true;
        child = server;
        if (held) print(held);
        held = '';
        if (server.exitCode !== null || server.signalCode !== null) {
          child = undefined;
          resolveListening(undefined);
        }
      },
    };
  };

  const stopping = new Set<ChildProcess>();
  const stopServer = async () => {
    const server = child;
    if (!server || server.exitCode !== null || server.signalCode !== null) return;
    stopping.add(server);
    // 'close', not 'exit': its last lines ("shutting down") may still be in the pipe when it has exited.
    const exited = new Promise<void>((resolve) => server.once('close', () => resolve()));
    server.kill('SIGTERM');
    const timer = setTimeout(() => server.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };

  const dropStandby = () => {
    standby?.process.kill('SIGKILL');
    standby = undefined;
  };

  /**
   * Stops the running server and starts the next: the standby when the server's code is what it loaded, else a fresh
   * process. Resolves with the new server's address, or undefined when it did not start.
   */
  const startNext = async (serverChanged: boolean): Promise<string | undefined> => {
    if (serverChanged) dropStandby();
    await stopServer();
    if (closed) return undefined;
    let next = standby;
    standby = undefined;
    if (!next || !(await next.ready)) next = launch('now');
    else next.process.send('start');
    next.activate();
    const address = await next.listening;
    // The next standby loads while this server serves.
    if (address && !closed) standby = launch('standby');
    return address;
  };

  const restart = async (since: number, what: string, serverChanged: boolean) => {
    const address = await startNext(serverChanged);
    if (address) say(`serving ${what} on ${address} (${seconds(since)} after the save)`);
  };

  /**
   * Compiles spec/; when it compiles to another document, writes it and restarts the server on it (afresh when
   * `serverChanged`: the standby's modules are the old ones). Resolves with whether it restarted the server.
   */
  const contractChanged = async (since: number, serverChanged = false): Promise<boolean> => {
    const compiled = await compileContract(staging);
    if (compiled.openapi === undefined) {
      const errors = compiled.diagnostics.split('\n').filter((line) => / - (error|warning) /.test(line)).length;
      say(`TypeSpec: ${errors} error(s), nothing written (${seconds(since)}):\n${compiled.diagnostics}`);
      say(child ? 'the server keeps serving the last good contract; fix the error and save again' : 'fix the error and save again');
      return false;
    }
    if (compiled.openapi === readFileSync(OPENAPI, 'utf8')) {
      say(`spec/ compiles to generated/openapi.yaml as it is (${seconds(since)}): nothing to restart`);
      return false;
    }
    replaceFile(OPENAPI, compiled.openapi);
    say(`generated/openapi.yaml written (${seconds(since)}); restarting the server…`);
    await restart(since, 'the new contract', serverChanged);
    // The types follow, beside the server: the type-check sees the new schema.d.ts and reports.
    const types = await schemaTypes(compiled.openapi);
    if (types !== readFileSync(SCHEMA, 'utf8')) {
      replaceFile(SCHEMA, types);
      say(`generated/schema.d.ts written${checking ? '; type-checking beside the server…' : ''}`);
    }
    return true;
  };

  // Changes are collected while the previous batch is handled, then handled together.
  let pending = { spec: new Set<string>(), server: new Set<string>() };
  let timer: NodeJS.Timeout | undefined;
  let busy: Promise<void> = Promise.resolve();

  const handle = async () => {
    const batch = pending;
    pending = { spec: new Set(), server: new Set() };
    if (closed || (batch.spec.size === 0 && batch.server.size === 0)) return;
    // The save happened when the first of its events came, a debounce earlier.
    const since = performance.now() - debounceMs;
    const changed = [...batch.spec, ...batch.server].map((file) => path.relative(root, file)).join(', ');
    if (batch.spec.size > 0) {
      say(`changed: ${changed}; compiling the contract…`);
      const serverChanged = batch.server.size > 0;
      const restarted = await contractChanged(since, serverChanged);
      // Server code changed with a contract that did not, or no server running (its last start failed): start it,
      // on whatever generated/openapi.yaml now holds.
      if (!restarted && (serverChanged || child === undefined)) {
        await restart(since, serverChanged ? 'the changed server' : 'the last good contract', serverChanged);
      }
    } else {
      say(`changed: ${changed}; restarting…`);
      await restart(since, 'the changed server', true);
    }
  };

  const onChange = (kind: 'spec' | 'server', file: string) => {
    if (closed) return;
    pending[kind].add(file);
    clearTimeout(timer);
    timer = setTimeout(() => {
      busy = busy.then(handle).catch((error: unknown) => say(`failed: ${(error as Error)?.stack ?? String(error)}`));
    }, debounceMs);
  };

  const watchers = [
    watchTree(path.join(root, 'spec'), (file) => file.endsWith('.tsp'), (file) => onChange('spec', file)),
    watchTree(path.join(root, 'server'), (file) => /\.(ts|sql|json)$/.test(file), (file) => onChange('server', file)),
  ];

  /**
   * The type-check: TypeScript 7's native tsc on the whole project, incremental (its state shared with `npm run check`),
   * at a lower priority, once when the server serves and again after any TypeScript file of the project changes (a
   * change during a check runs one more after it). One `[dev] types:` line per check. Not `tsc --watch`: TypeScript
   * 7.0's watch mode did not see saved files here, and TypeScript 5's takes four times as long to check the project.
   */
  let checking = false;
  const startChecker = () => {
    mkdirSync(path.join(root, '.tmp'), { recursive: true });
    checking = true;
    const tscPath = path.join(root, 'node_modules/typescript-native/bin/tsc');
    const args = ['--noEmit', '-p', '.', '--incremental', '--tsBuildInfoFile', '.tmp/check-native.tsbuildinfo', '--pretty', 'false'];
    let again = false;
    const run = () => {
      if (closed) return;
      again = false;
      const started = performance.now();
      const tsc = spawn(process.execPath, [tscPath, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
      checker = tsc;
      try {
        setPriority(tsc.pid!, 10);
      } catch {
        // not allowed here: it runs at the normal priority
      }
      let output = '';
      tsc.stdout!.on('data', (chunk: Buffer) => (output += chunk));
      tsc.stderr!.on('data', (chunk: Buffer) => (output += chunk));
      tsc.once('close', (code, signal) => {
        checker = undefined;
        if (closed) return;
        const errors = output.split('\n').filter((line) => line.trim() !== '');
        if (code === 0) say(`types: the project type-checks (${seconds(started)})`);
        else if (errors.some((line) => /error TS\d+/.test(line))) {
          say(`types: ${errors.filter((line) => /error TS\d+/.test(line)).length} type error(s) (${seconds(started)}):\n${errors.join('\n')}`);
        } else say(`the type-check stopped (exit code ${code ?? signal})${errors.length > 0 ? `:\n${errors.join('\n')}` : ''}`);
        if (again) run();
      });
    };
    let pause: NodeJS.Timeout | undefined;
    const changed = () => {
      if (closed) return;
      clearTimeout(pause);
      pause = setTimeout(() => {
        if (checker) again = true;
        else run();
      }, debounceMs);
    };
    for (const folder of TYPECHECKED) watchers.push(watchTree(path.join(root, folder), (file) => /\.(ts|mts|cts|json)$/.test(file), changed));
    run();
  };

  say(
    `starting the server with the development settings: DOCS_API_TOKEN=${env.DOCS_API_TOKEN}, ANSWER_FROM_CONTRACT=${env.ANSWER_FROM_CONTRACT}, ALLOW_PRIVATE_NETWORKS=${env.ALLOW_PRIVATE_NETWORKS}, ` +
      `ALLOW_LOCAL_GIT=${env.ALLOW_LOCAL_GIT} (LOCAL_GIT_ROOT=${env.LOCAL_GIT_ROOT}), DATA_DIR=${env.DATA_DIR}`,
  );
  busy = (async () => {
    const address = await startNext(true);
    if (address) say(`serving ${address}, API reference ${address}/docs (token ${env.DOCS_API_TOKEN}, data in ${env.DATA_DIR})`);
    if (closed) return;
    // The first compilation loads the compiler (a second or two); done now, the first save does not wait for it. It
    // also catches a spec/ changed while dev was not running.
    const since = performance.now();
    const compiled = await compileContract(staging);
    if (compiled.openapi !== undefined && compiled.openapi !== readFileSync(OPENAPI, 'utf8')) {
      say('generated/openapi.yaml is not what spec/ compiles to: regenerating');
      await contractChanged(since, false);
    } else if (compiled.openapi === undefined) {
      say(`TypeSpec: spec/ does not compile:\n${compiled.diagnostics}`);
    }
    if (closed) return;
    say(`watching spec/ and server/${options.typecheck === false ? '' : '; type-checking the project beside the server'}`);
    if (options.typecheck !== false) startChecker();
  })().catch((error: unknown) => say(`failed: ${(error as Error)?.stack ?? String(error)}`));

  return {
    url,
    async close() {
      closed = true;
      clearTimeout(timer);
      for (const watcher of watchers) watcher.close();
      await busy.catch(() => undefined);
      const tsc = checker;
      const checkerGone = tsc && tsc.exitCode === null && tsc.signalCode === null ? new Promise((resolve) => tsc.once('exit', resolve)) : undefined;
      tsc?.kill('SIGTERM');
      dropStandby();
      await Promise.all([stopServer(), checkerGone]);
      rmSync(staging, { recursive: true, force: true });
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { 'no-typecheck': { type: 'boolean', default: false } } });
  const dev = startDev({ typecheck: !values['no-typecheck'] });
  // One shutdown however many signals come (Ctrl-C sends SIGINT to npm, to this process and to the server at once).
  let closing = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (closing) return;
      closing = true;
      void dev.close().then(() => process.exit(0));
    });
  }
}
