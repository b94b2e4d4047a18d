// The test harness of the reference server (`docs-platform-server/testing`): `startDocsServer` starts a server on
// 127.0.0.1, on a free port, in memory, seeded, in a child process unless `inProcess`, and gives its address, an admin
// token and a typed client; `reset()` puts the database back as seeded, `stop()` ends it. The repository's own tests
// start their servers through it too (server/docs/harness.md).
import './supported-node.ts';
import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DocsClient, DocsClientOptions, operations, ThrowingDocsClient } from '../../client/index.ts';
import type { SeedFixture } from '../start/seed-format.ts';
import { loadClient, loadServer, serverCommand } from './locations.ts';
import {
  COVERAGE_VARIABLE,
  coverageFolder,
  type FromServer,
  HARNESS_CONFIG_VARIABLE,
  HARNESS_SEED_VARIABLE,
  HARNESS_USAGE_VARIABLE,
  HARNESS_VARIABLE,
  type HarnessUsage,
  START_FAILURE,
  type ToServer,
  usageFolder,
} from '../start/harness-protocol.ts';
import { harnessUsage } from './usage.ts';

export type { SeedFixture as Seed, SeedPage } from '../start/seed-format.ts';
export { type CoverageOptions, type CoverageReport, reportCoverage, startCoverage } from './coverage.ts';
export type { Coverage, CoverageSummary, OperationCoverage } from '../../conformance/contract/coverage-format.ts';
export { type OperationUsage, type ReportUsageOptions, type ResponseUsage, reportUsage, startUsage, type UsageOptions, type UsageRecord, type UsageReport, type Used } from './usage.ts';

/**
 * The options of a client the harness makes (`clientWith`): the client package's (`createDocsClient`'s), less the
 * address, which is the server's, and the token, which `clientWith` takes first.
 */
export type DocsServerClientOptions = Omit<DocsClientOptions, 'baseUrl' | 'token'>;

export interface DocsServerOptions {
  /**
   * What the server starts with: a seed object (users and their tokens, organizations, members, teams, collections,
   * spaces and their pages; the format of SEED_FILE, server/docs/seed-file.md), or a JSON or YAML seed file: its path, resolved
   * against the working directory (`process.cwd()`, where vitest or `node --test` runs: the project's folder), or a
   * `file:` URL, such as `new URL('./seed.yaml', import.meta.url)` for a file beside the test file.
   * Without it, the demo organization (`demo`) and its admin.
   */
  seed?: SeedFixture | string | URL;
  /**
   * The admin token (DOCS_API_TOKEN): given to the first admin of the seed's first organization, or to the demo
   * admin. Random when absent; `token` on the server says which.
   */
  token?: string;
  /** Run the server in this process rather than as a child process (the default; see above). */
  inProcess?: boolean;
  /** The port; 0 (the default) picks a free one. */
  port?: number;
  /**
   * Other configuration variables of the server (server/docs/running-and-configuration.md, Configuration), such as `{ LOG_LEVEL: 'info' }`.
   * The harness sets PORT, HOST (127.0.0.1), DATA_DIR (`:memory:`), DOCS_API_TOKEN, SEED_FILE and LOG_LEVEL (`warn`);
   * these win over them.
   */
  env?: Record<string, string>;
  /** How long a child process may take to listen, in milliseconds (30 000). */
  startTimeoutMs?: number;
  /**
   * Answer the operations the server does not implement yet from the contract (ANSWER_FROM_CONTRACT): their
   * example, with the header `x-contract-answer`. Off by default: a server that does not implement the whole contract
   * then refuses to start.
   */
  answerFromContract?: boolean;
  /**
   * Record the declared responses the server answers, for `reportCoverage()`: `true` for the coverage folder of the
   * run (DOCS_SERVER_COVERAGE's, or `docs-platform-coverage`), or a folder. On when DOCS_SERVER_COVERAGE is set
   * (`startCoverage()` sets it); `false` turns it off.
   */
  coverage?: boolean | string;
  /**
   * Record what the consumer's requests use of the contract, for `reportUsage()`: `true` for the usage folder of the
   * run (DOCS_SERVER_USAGE's, or `docs-platform-usage`), or a folder. On when DOCS_SERVER_USAGE is set (`startUsage()`
   * sets it); `false` turns it off.
   */
  usage?: boolean | string;
}

/** An operation id of the contract, such as `getSpace`. */
export type OperationId = keyof operations & string;

type Responses<Op extends OperationId> = operations[Op]['responses'];

/** The error statuses (4xx and 5xx) the contract declares for `Op`, such as `400 | 401 | 403 | 404 | 429 | 500 | 503`. */
export type DeclaredErrorStatus<Op extends OperationId> = {
  [S in keyof Responses<Op>]: S extends number ? (`${S}` extends `4${string}` | `5${string}` ? S : never) : never;
}[keyof Responses<Op>];

/** The names of `Op`'s path parameters. */
type PathParameter<Op extends OperationId> = operations[Op]['parameters'] extends { path: infer Path } ? (Path extends object ? keyof Path & string : never) : never;

/**
 * A fault the server answers with instead of running `operation` (`server.faults.add`): one of the error statuses the
 * operation declares (with the contract's error envelope, and `Retry-After: 1` on a 429 or 503 unless `headers` gives
 * it), a delay, or a dropped connection; for the next `times` requests that match `when`, or all of them until
 * `faults.clear()` or `reset()`. It applies to requests that pass the contract's checks and the token check.
 */
export interface Fault<Op extends OperationId = OperationId> {
  operation: Op;
  /** An error status `operation` declares. */
  status?: DeclaredErrorStatus<Op>;
  /** The error envelope's message (a generic one by default). */
  message?: string;
  /** Headers of the answer, such as `{ 'Retry-After': '2' }`. */
  headers?: Record<string, string>;
  /** Wait this long first; without `status` or `drop`, the request is then served as always (a slow answer). */
  delayMs?: number;
  /** Close the connection without answering (the client sees a network error). */
  drop?: boolean;
  /** How many matching requests it applies to; all of them, until cleared, by default. */
  times?: number;
  /** Only the requests with these path parameters, or with this token. */
  when?: { params?: Partial<Record<PathParameter<Op>, string>>; token?: string };
}

/** The faults of a server (`server.faults`); the server refuses, naming why, a fault the contract does not declare. */
export interface DocsServerFaults {
  /** Adds a fault after the others; a request takes the first that matches it. */
  add<Op extends OperationId>(fault: Fault<Op>): Promise<void>;
  /** Removes every fault (`reset()` does too). */
  clear(): Promise<void>;
}

export interface DocsServer {
  /** The server's address, such as `http://127.0.0.1:41234` (the API is under `/v1`). */
  readonly url: string;
  /** The admin token. */
  readonly token: string;
  /** A typed client of the server with the admin token (needs the client package, `docs-platform-contract`). */
  readonly client: DocsClient;
  /**
   * A typed client of the server with another token (a seed user's, or a function giving it), or none (`undefined`),
   * and the client's other options; with `throwOnError: true`, a client whose error answers throw `ApiError`.
   */
  clientWith(token: DocsClientOptions['token'], options: DocsServerClientOptions & { throwOnError: true }): ThrowingDocsClient;
  clientWith(token: DocsClientOptions['token'], options?: DocsServerClientOptions): DocsClient;
  /** Puts the database back as the seed left it, and clears the faults; resolves once the server answers from it. */
  reset(): Promise<void>;
  /** Declared faults on demand: make an operation fail, answer late, or drop the connection (see `Fault`). */
  readonly faults: DocsServerFaults;
  /** Stops the server (a child process exits); calling it again does nothing. */
  stop(): Promise<void>;
}

/** Starts a server; see `DocsServerOptions`. */
export function startDocsServer(options: DocsServerOptions = {}): Promise<DocsServer> {
  return start(options, undefined);
}

/**
 * @internal The repository's tests: an in-process server with options of server.ts's `startServer` beyond the
 * package's (a clock, handlers, recording of operations); `running` is its `RunningServer`.
 */
export function startDocsServerWith(options: DocsServerOptions, internals: object): Promise<DocsServer & { readonly running: unknown }> {
  return start({ ...options, inProcess: true }, internals) as Promise<DocsServer & { readonly running: unknown }>;
}

/** The seed file's absolute path: a path from the working directory, or a `file:` URL; it must exist. */
function seedFilePath(seed: string | URL): string {
  const file = seed instanceof URL || seed.startsWith('file:') ? fileURLToPath(seed) : path.resolve(seed);
  if (!existsSync(file)) {
    const how = seed instanceof URL || seed.startsWith('file:') ? 'a file: URL' : `a path, resolved against the working directory ${process.cwd()}`;
    throw new Error(
      `docs-platform-server/testing: the seed file ${file} does not exist (the seed was ${how}; new URL('./seed.yaml', import.meta.url) names a file beside the test file)`,
    );
  }
  return file;
}

async function start(options: DocsServerOptions, internals: object | undefined): Promise<DocsServer> {
  const token = options.token ?? options.env?.DOCS_API_TOKEN ?? randomBytes(18).toString('base64url');
  const seedObject = typeof options.seed === 'object' && !(options.seed instanceof URL) ? options.seed : undefined;
  const variables: Record<string, string> = {
    PORT: String(options.port ?? 0),
    HOST: '127.0.0.1',
    DATA_DIR: ':memory:',
    LOG_LEVEL: 'warn',
    ...(options.seed !== undefined && seedObject === undefined ? { SEED_FILE: seedFilePath(options.seed as string | URL) } : {}),
    ...(options.answerFromContract ? { ANSWER_FROM_CONTRACT: 'true' } : {}),
    ...options.env,
    DOCS_API_TOKEN: token,
  };
  const client = await loadClient().catch((error: unknown) => error as Error);
  const coverage = options.coverage === undefined ? coverageFolder() : options.coverage === false ? undefined : coverageFolder(options.coverage);
  const usageIn = options.usage === undefined ? usageFolder() : options.usage === false ? undefined : usageFolder(options.usage);
  const usage = usageIn === undefined ? undefined : harnessUsage(usageIn);
  const handle = options.inProcess
    ? await startInProcess(variables, { ...(seedObject ? { seed: seedObject } : {}), ...(coverage ? { coverage } : {}), ...(usage ? { usage } : {}), ...internals })
    : await startChild(variables, seedObject, options.startTimeoutMs ?? 30_000, { coverage, usage });
  function clientWith(clientToken: DocsClientOptions['token'], clientOptions: DocsServerClientOptions & { throwOnError: true }): ThrowingDocsClient;
  function clientWith(clientToken: DocsClientOptions['token'], clientOptions?: DocsServerClientOptions): DocsClient;
  function clientWith(clientToken: DocsClientOptions['token'], clientOptions: DocsServerClientOptions = {}): DocsClient | ThrowingDocsClient {
    if (client instanceof Error) {
      throw new Error(`docs-platform-server/testing: a client needs the client package, docs-platform-contract, installed beside the server package (${client.message})`);
    }
    return client.createDocsClient({ ...clientOptions, baseUrl: handle.url, ...(clientToken === undefined ? {} : { token: clientToken }) });
  }
  let admin: DocsClient | undefined;
  return {
    url: handle.url,
    token,
    get client() {
      return (admin ??= clientWith(token));
    },
    clientWith,
    reset: handle.reset,
    faults: handle.faults,
    stop: handle.stop,
    ...(handle.running === undefined ? {} : { running: handle.running }),
  };
}

interface Handle {
  url: string;
  reset(): Promise<void>;
  faults: DocsServerFaults;
  stop(): Promise<void>;
  running?: unknown;
}

async function startInProcess(variables: Record<string, string>, internals: object): Promise<Handle> {
  const server = await loadServer();
  // The error of a start that fails says what failed, as the command's first line does for a child process.
  const running = await server.startInProcess(variables, internals).catch((error: unknown) => {
    throw new Error(`docs-platform-server (in process) failed to start: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  });
  let stopping: Promise<void> | undefined;
  const faults = running.faults!;
  return {
    url: running.url,
    reset: () => running.reset(),
    faults: {
      add: async (fault) => {
        try {
          faults.add(fault);
        } catch (error) {
          throw faultRefused(error instanceof Error ? error.message : String(error));
        }
      },
      clear: async () => faults.clear(),
    },
    stop: () => (stopping ??= running.close()),
    running,
  };
}

const faultRefused = (why: string) => new Error(`docs-platform-server: fault refused: ${why}`);

/** Children that have not exited: sent SIGTERM when this process exits without having stopped them. */
const children = new Set<ChildProcess>();
let exitHook = false;

/** The last 16 kB of a child's output, for the message of a failure. */
const OUTPUT_KEPT = 16_384;

/** What the servers record for the run's reports: the coverage folder, the usage folder and consumer. */
interface Recording {
  coverage: string | undefined;
  usage: HarnessUsage | undefined;
}

async function startChild(variables: Record<string, string>, seed: SeedFixture | undefined, timeoutMs: number, { coverage, usage }: Recording): Promise<Handle> {
  // A seed object goes to the command in a file, read at start-up (and named as the seed object in its errors, not by
  // the file's path) and removed once the server listens.
  let seedDir: string | undefined;
  let seedFile: string | undefined;
  if (seed) {
    seedDir = mkdtempSync(path.join(os.tmpdir(), 'docs-server-seed-'));
    seedFile = path.join(seedDir, 'seed.json');
    writeFileSync(seedFile, JSON.stringify(seed));
  }
  const { modulePath, execArgv } = serverCommand();
  const child = fork(modulePath, [], {
    execArgv,
    env: {
      ...process.env,
      [HARNESS_VARIABLE]: 'ipc',
      [HARNESS_CONFIG_VARIABLE]: JSON.stringify(variables),
      [HARNESS_SEED_VARIABLE]: seedFile ?? '',
      [COVERAGE_VARIABLE]: coverage ?? '',
      [HARNESS_USAGE_VARIABLE]: usage ? JSON.stringify(usage) : '',
    },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  children.add(child);
  if (!exitHook) {
    exitHook = true;
    process.once('exit', () => {
      for (const running of children) running.kill('SIGTERM');
    });
  }
  // What the server logs (at LOG_LEVEL, warn unless `env` says otherwise) goes to the test's stderr once it listens
  // (what it wrote before, then); the output of a start that fails is in the start's error instead, said once.
  let output = '';
  let listening = false;
  const keep = (chunk: Buffer) => {
    if (listening) process.stderr.write(chunk);
    output = (output + chunk.toString()).slice(-OUTPUT_KEPT);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  let exitCode: number | null | undefined;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      exitCode = code ?? (signal ? 128 : null);
      children.delete(child);
      resolve();
    }),
  );
  /**
   * The error of a start that failed: the command's own line (`… failed to start: why`) when it wrote one, then the
   * rest of what it wrote; else what happened, with what it wrote.
   */
  const failure = (what: string) => {
    const lines = output.trim().split('\n').filter(Boolean);
    const reason = lines.find((line) => line.startsWith(START_FAILURE));
    const rest = lines.filter((line) => line !== reason);
    const head = reason ? `docs-platform-server failed to start: ${reason.slice(START_FAILURE.length)}` : `docs-platform-server ${what}`;
    return new Error(`${head}${rest.length > 0 ? `:\n${rest.join('\n')}` : ''}`);
  };

  let url: string;
  try {
    url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(failure(`did not listen within ${timeoutMs} ms`)), timeoutMs);
      child.on('message', (message: FromServer) => {
        if (message.type === 'listening') {
          clearTimeout(timer);
          listening = true;
          if (output) process.stderr.write(output);
          resolve(message.url);
        }
      });
      void exited.then(() => {
        clearTimeout(timer);
        reject(failure(`exited (code ${exitCode}) before it listened`));
      });
    });
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  } finally {
    if (seedDir) rmSync(seedDir, { recursive: true, force: true });
  }

  // From here on the child does not keep this process alive by itself; a request under way does (below).
  const unref = () => {
    child.unref();
    (child.channel as { unref?: () => void } | undefined)?.unref?.();
    (child.stdout as Socket | null)?.unref();
    (child.stderr as Socket | null)?.unref();
  };
  unref();

  const replies = new Map<number, (error?: string) => void>();
  let next = 0;
  child.on('message', (message: FromServer) => {
    if (message.type === 'done') replies.get(message.id)?.(message.error);
  });
  const send = (message: ToServer) => {
    if (child.connected) child.send(message);
    else child.kill('SIGTERM');
  };
  /** Sends a request to the server and waits for its answer, keeping this process alive meanwhile. */
  const ask = async (what: string, message: ToServer & { id: number }, refused: (error: string) => Error) => {
    if (exitCode !== undefined || stopping) throw failure(`has ${stopping ? 'been stopped' : `exited (code ${exitCode})`}: ${what} needs a running server`);
    child.ref();
    (child.channel as { ref?: () => void } | undefined)?.ref?.();
    try {
      await new Promise<void>((resolve, reject) => {
        replies.set(message.id, (error) => (error ? reject(refused(error)) : resolve()));
        void exited.then(() => reject(failure(`exited (code ${exitCode}) during ${what}`)));
        send(message);
      });
    } finally {
      replies.delete(message.id);
      unref();
    }
  };

  let stopping: Promise<void> | undefined;
  return {
    url,
    reset: () => ask('reset()', { type: 'reset', id: next++ }, (error) => new Error(`docs-platform-server: reset failed: ${error}`)),
    faults: {
      add: (fault) => ask('faults.add()', { type: 'fault', id: next++, fault }, faultRefused),
      clear: () => ask('faults.clear()', { type: 'clear-faults', id: next++ }, (error) => new Error(`docs-platform-server: faults.clear() failed: ${error}`)),
    },
    stop: () =>
      (stopping ??= (async () => {
        if (exitCode !== undefined) return;
        child.ref();
        send({ type: 'stop' });
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      })()),
  };
}
