// `npm run dev`: the reference server with a developer's settings (server/docs/running-and-configuration.md,
// "Development mode"), serving each saved contract within seconds: spec/ compiled in this process, a server process
// started ahead taking over, then generated/ and the type-check following. Its parts: the server processes
// (dev-processes.ts), the type-check (dev-typecheck.ts), the changes handled in turn (dev-changes.ts); here, what a
// change does. How and why: docs/development.md ("The dev loop").
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type Batch, ChangeBatches } from './dev-changes.ts';
import { ServerProcesses } from './dev-processes.ts';
import { startTypecheck, type Typecheck } from './dev-typecheck.ts';
import { contractCompiler, schemaTypes } from './generate.ts';
import { STAMP_FILE } from '../breaking/stamp.ts';
import { type TreeWatcher, watchTree } from './watch-tree.ts';
import { EXAMPLE_SEED } from './example-world/world.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OPENAPI = path.join(root, 'generated/openapi.yaml');
const SCHEMA = path.join(root, 'generated/schema.d.ts');

export const DEV_TOKEN = 'dev-token';

/**
 * Dev's seed: the seeded part of the world the contract's examples are written in (scripts/example-world/world.ts),
 * written here at each start, so that an example's ids (`demo`, the team `0Vby0wqo00TPjFeKcwfHCB`, …) are dev's.
 */
export const DEV_SEED_FILE = path.join(root, '.data/dev-seed.json');

/** Writes dev's seed file (DEV_SEED_FILE) when `env` names it. */
function writeDevSeed(env: NodeJS.ProcessEnv): void {
  if (env.SEED_FILE !== DEV_SEED_FILE) return;
  mkdirSync(path.dirname(DEV_SEED_FILE), { recursive: true });
  writeFileSync(DEV_SEED_FILE, `${JSON.stringify(EXAMPLE_SEED, null, 1)}\n`);
}

/** The environment of the development server: the developer's settings, under whatever the caller's environment sets. */
export function devEnvironment(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return {
    DOCS_API_TOKEN: DEV_TOKEN,
    ANSWER_FROM_CONTRACT: 'true',
    ALLOW_PRIVATE_NETWORKS: 'true',
    ALLOW_LOCAL_GIT: 'true',
    LOCAL_GIT_ROOT: tmpdir(),
    DATA_DIR: path.join(root, '.data/dev'),
    SEED_FILE: DEV_SEED_FILE,
    LOG_FORMAT: 'pretty',
    ...env,
  };
}

export interface DevOptions {
  env?: NodeJS.ProcessEnv;
  /** Run the type-check beside the server (default true). */
  typecheck?: boolean;
  /** Quiet time after a change before acting on it: the events of one save come close together. */
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
  const dev = new DevLoop(options);
  return { url: dev.url, close: () => dev.close() };
}

type Kind = 'spec' | 'server';

/** The development loop: the server served, and each change to spec/ or server/ acted on. */
class DevLoop {
  readonly url: Promise<string>;
  private readonly env: NodeJS.ProcessEnv;
  private readonly say: (line: string) => void;
  private readonly debounceMs: number;
  private readonly staging = mkdtempSync(path.join(tmpdir(), 'dev-contract-'));
  private readonly compileContract = contractCompiler(root);
  private readonly servers: ServerProcesses;
  private readonly changes: ChangeBatches<Kind>;
  private readonly watchers: TreeWatcher[];
  private typecheck: Typecheck | undefined;
  private closed = false;

  constructor(private readonly options: DevOptions) {
    const env = devEnvironment(options.env);
    writeDevSeed(env);
    const print = options.print ?? ((text: string) => process.stdout.write(text));
    const say = (line: string) => print(`[dev] ${line}\n`);
    this.env = env;
    this.say = say;
    this.debounceMs = options.debounceMs ?? 100;
    let resolveUrl!: (url: string) => void;
    this.url = new Promise<string>((resolve) => (resolveUrl = resolve));
    this.servers = new ServerProcesses({ root, env, print, say, isClosed: () => this.closed, onListening: (url) => resolveUrl(url) });
    this.changes = new ChangeBatches<Kind>(['spec', 'server'], this.debounceMs, (batch) => this.handle(batch), (error) => this.failed(error));
    this.watchers = [
      // The declared breaks too: the breaking-change rule reads them in every compile.
      watchTree(path.join(root, 'spec'), (file) => file.endsWith('.tsp') || path.basename(file) === 'breaking-changes.yaml', (file) => this.changes.add('spec', file)),
      watchTree(path.join(root, 'server'), (file) => /\.(ts|sql|json)$/.test(file), (file) => this.changes.add('server', file)),
    ];
    say(
      `starting the server with the development settings: DOCS_API_TOKEN=${env.DOCS_API_TOKEN}, ANSWER_FROM_CONTRACT=${env.ANSWER_FROM_CONTRACT}, ALLOW_PRIVATE_NETWORKS=${env.ALLOW_PRIVATE_NETWORKS}, ` +
        `ALLOW_LOCAL_GIT=${env.ALLOW_LOCAL_GIT} (LOCAL_GIT_ROOT=${env.LOCAL_GIT_ROOT}), DATA_DIR=${env.DATA_DIR}`,
    );
    this.changes.enqueue(() => this.start());
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const watcher of this.watchers) watcher.close();
    const typechecked = this.typecheck?.close();
    await this.changes.close();
    this.servers.dropStandby();
    await Promise.all([this.servers.stopServer(), typechecked]);
    rmSync(this.staging, { recursive: true, force: true });
  }

  private failed(error: unknown): void {
    this.say(`failed: ${(error as Error)?.stack ?? String(error)}`);
  }

  /** The first start: the server, then the contract compiled (loading the compiler), then the type-check. */
  private async start(): Promise<void> {
    const { say, env } = this;
    const address = await this.servers.startNext(true);
    if (address) say(`serving ${address}, API reference ${address}/docs (token ${env.DOCS_API_TOKEN}, data in ${env.DATA_DIR})`);
    if (this.closed) return;
    // The first compilation loads the compiler (a second or two); done now, the first save does not wait for it. It
    // also catches a spec/ changed while dev was not running.
    const since = performance.now();
    const compiled = await this.compileContract(this.staging);
    if (compiled.openapi !== undefined && compiled.openapi !== readFileSync(OPENAPI, 'utf8')) {
      say('generated/openapi.yaml is not what spec/ compiles to: regenerating');
      // It compiles again (from the cache), and says what the rules say.
      await this.contractChanged(since, false);
    } else {
      // What fails first, then the rules' information.
      if (compiled.openapi === undefined) say(`TypeSpec: spec/ does not compile:\n${compiled.diagnostics}`);
      this.notes(compiled.notes);
    }
    if (this.closed) return;
    const typecheck = this.options.typecheck !== false;
    say(`watching spec/ and server/${typecheck ? '; type-checking the project beside the server' : ''}`);
    if (typecheck) this.typecheck = startTypecheck({ root, debounceMs: this.debounceMs, say });
  }

  /** A batch of changes: the contract compiled when spec/ changed, the server restarted when it or server/ did. */
  private async handle(batch: Batch<Kind>): Promise<void> {
    if (this.closed) return;
    // The save happened when the first of its events came, a debounce earlier.
    const since = performance.now() - this.debounceMs;
    const changed = [...batch.spec, ...batch.server].map((file) => path.relative(root, file)).join(', ');
    if (batch.spec.size > 0) {
      this.say(`changed: ${changed}; compiling the contract…`);
      const serverChanged = batch.server.size > 0;
      const restarted = await this.contractChanged(since, serverChanged);
      // Server code changed with a contract that did not, or no server running (its last start failed): start it,
      // on whatever generated/openapi.yaml now holds.
      if (!restarted && (serverChanged || !this.servers.running)) {
        await this.restart(since, serverChanged ? 'the changed server' : 'the last good contract', serverChanged);
      }
    } else {
      this.say(`changed: ${changed}; restarting…`);
      await this.restart(since, 'the changed server', true);
    }
  }

  /**
   * The information of the contract's rules, after their errors, one line each: the warnings that touch a known
   * consumer, the breaks spec/breaking-changes.yaml accepts as one line with their count (a break that fails is a
   * TypeSpec error, printed before them), and the deprecations a known consumer still uses (`deprecation: …`).
   */
  private notes(notes: readonly string[]): void {
    for (const note of notes) this.say(note);
  }

  private async restart(since: number, what: string, serverChanged: boolean): Promise<void> {
    const address = await this.servers.startNext(serverChanged);
    if (address) this.say(`serving ${what} on ${address} (${seconds(since)} after the save)`);
  }

  /**
   * Compiles spec/; when it compiles to another document, writes it and restarts the server on it (afresh when
   * `serverChanged`: the standby's modules are the old ones). Resolves with whether it restarted the server.
   */
  private async contractChanged(since: number, serverChanged: boolean): Promise<boolean> {
    const { say } = this;
    const compiled = await this.compileContract(this.staging);
    if (compiled.openapi === undefined) {
      const errors = compiled.diagnostics.split('\n').filter((line) => / - (error|warning) /.test(line)).length;
      say(`TypeSpec: ${errors} error(s), nothing written (${seconds(since)}):\n${compiled.diagnostics}`);
      this.notes(compiled.notes);
      say(this.servers.running ? 'the server keeps serving the last good contract; fix the error and save again' : 'fix the error and save again');
      return false;
    }
    this.notes(compiled.notes);
    if (compiled.openapi === readFileSync(OPENAPI, 'utf8')) {
      say(`spec/ compiles to generated/openapi.yaml as it is (${seconds(since)}): nothing to restart`);
      return false;
    }
    // generated/ is written whole before the new contract is served: whoever sees it answered (a scaffold, a check,
    // an editor) reads types that match it. The types cost under a second here; the type-check follows the server.
    const compiledIn = seconds(since);
    const types = await schemaTypes(compiled.openapi);
    if (types !== readFileSync(SCHEMA, 'utf8')) {
      replaceFile(SCHEMA, types);
      say(`generated/schema.d.ts written (${seconds(since)})${this.typecheck ? '; type-checking it beside the server' : ''}`);
    }
    replaceFile(OPENAPI, compiled.openapi);
    replaceFile(path.join(root, STAMP_FILE), compiled.stamp);
    say(`generated/openapi.yaml written (${compiledIn}, its types with it); restarting the server…`);
    await this.restart(since, 'the new contract', serverChanged);
    return true;
  }
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
