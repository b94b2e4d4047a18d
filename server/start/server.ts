// Starting and stopping the reference server: used by main.ts (npm start) and by the tests (port 0, in memory).
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Express } from 'express';
import type { Logger } from 'pino';
import { type ContractChecks, contractChecks, createApp, planOf } from './app.ts';
import { answeredLine } from '../http/example-answers.ts';
import { keepRevisionContents } from '../content/revisions.ts';
import { type Config, StartupError } from '../common/config.ts';
import { type AppContext, createContext, inWrite, type ResolvedConfig } from '../context/context.ts';
import { type Clock, systemClock } from '../common/clock.ts';
import { purgeExpiredSpaces } from '../domain/spaces.ts';
import { createHandlers, registerRoutes } from '../handlers/index.ts';
import { registerJobKinds } from './job-kinds.ts';
import { createLogger } from '../http/access-log.ts';
import { type AppServer, appServer } from '../speed/app-server.ts';
import type { ConnectionsInFlight } from '../http/connection-bound.ts';
import type { HandlerTable } from '../handlers/types.ts';
import { type DataDirLock, DataDirError, lockDataDir, prepareDataDir } from './data-dir.ts';
import { JobRunner } from '../jobs/runner.ts';
import { Faults } from '../http/faults.ts';
import { answerRecorder } from '../http/coverage-recorder.ts';
import { type UsageRecorder, usageRecorder } from '../http/usage-recorder.ts';
import { type HarnessUsage, recordsFolder, usageRecordsFolder } from './harness-protocol.ts';
import { loadContract } from '../http/contract.ts';
import { repairStoredValues } from '../domain/stored-values.ts';
import { applyFixture, readSeedFile, type SeedFixture, type SeedResult, seedDemo } from './seed.ts';
import type { Store } from '../store/db.ts';
import { openStore } from '../store/open.ts';
import { SqliteStore } from '../store/sqlite/store.ts';
import { redactedUrl, StoreOpenError } from '../store/postgres/store.ts';
import * as organizations from '../store/organizations.ts';
import { type ConditionKind, Refusal } from '../common/errors.ts';

export interface RunningServer {
  /** Address of the server, such as `http://127.0.0.1:41234`. */
  url: string;
  ctx: AppContext;
  server: Server;
  /** A token created for the demo admin on first start when DOCS_API_TOKEN is unset. */
  createdToken?: string;
  /** Who DOCS_API_TOKEN was registered for (see `seedDemo`). */
  tokenFor?: SeedResult['tokenFor'];
  /**
   * Stops accepting connections, lets the requests in flight finish (answered with `Connection: close`), closes the
   * remaining connections, waits for the running background jobs, then closes the database. As long as that takes:
   * main.ts bounds it with SHUTDOWN_TIMEOUT_MS.
   */
  close(): Promise<void>;
  /** What a `close()` under way still waits for: requests in flight, and background jobs running. */
  unfinished(): { requests: number; jobs: number };
  /**
   * Puts the database back as it was once the server had started and seeded it, and forgets what the server kept in
   * memory of it; the address stays, and so do the clients' connections. Only for a server started with
   * `resettable` (the test harness, server/testing/).
   */
  reset(): Promise<void>;
  /**
   * Makes the database as it is now, once the background work has ended, what `reset()` puts back (records a test
   * made through the API beside the seed: test/api/examples.test.ts builds the world of the contract's examples so).
   * Only for a server started with `resettable`.
   */
  keep(): Promise<void>;
  /**
   * Declared faults the server answers with instead of an operation (http/faults.ts); `reset()` clears them. Only for
   * a server started with `faults` (the test harness); undefined otherwise.
   */
  faults?: Faults;
}

export interface StartOptions {
  clock?: Clock;
  log?: Logger;
  /**
   * The seed, in SEED_FILE's place, checked already (`readSeedFile`, `checkSeed`): main.ts reads SEED_FILE before
   * anything else, the test harness's in-process server checks its seed object.
   */
  seed?: SeedFixture;
  /** A fixture applied after the seed, which DOCS_API_TOKEN is not given to (the repository's tests pass theirs). */
  fixture?: SeedFixture;
  /** Called when a request routed to an operation has been answered (tests record what they exercise). */
  onOperation?: (operationId: string, status: number, contentType: string | undefined) => void;
  /** Make every list page sent from memory again and fail the request if it differs (tests; see http/list-page-cache.ts). */
  verifyListPageCache?: boolean;
  /** Replaces handlers of the table (tests use it to break the server on purpose). */
  handlers?: (ctx: AppContext, table: HandlerTable) => HandlerTable;
  /**
   * Keep an image of the database as seeded, for `reset()` (the test harness). SQLite in memory only: the image is a
   * copy of the whole database, which `reset()` opens as a new in-memory database.
   */
  resettable?: boolean;
  /** Answer declared faults on demand (`RunningServer.faults`; the test harness). */
  faults?: boolean;
  /** Record the declared responses answered into this coverage folder (the test harness, testing/coverage.ts). */
  coverage?: string;
  /** Record what the consumer used of the contract into this usage folder (the test harness, testing/usage.ts). */
  usage?: HarnessUsage;
}

/** How often deleted spaces older than 7 days are purged. */
const PURGE_INTERVAL_MS = 60 * 60 * 1000;

export async function startServer(config: Config, options: StartOptions = {}): Promise<RunningServer> {
  const log = options.log ?? createLogger(config);
  // DATA_DIR is checked and locked before anything else, so that a second server on it does not even listen. It holds
  // SQLite's database only: with PostgreSQL, instances share the database and need no folder of their own.
  let lock: DataDirLock | undefined;
  if (config.databaseUrl === undefined && config.dataDir !== ':memory:') {
    prepareDataDir(config.dataDir);
    lock = lockDataDir(config.dataDir);
    if (lock.takenOver) {
      const previous = lock.takenOver;
      log.warn({ dataDir: config.dataDir, previous }, `the previous server on DATA_DIR (process ${previous.pid} on ${previous.host}, started ${previous.startedAt}) did not stop cleanly`);
    }
  }
  // Listen first: with port 0 the address, which every `urls.location` starts with, is known only then.
  const http = appServer(config.speedupsOff, config.maxConnections);
  const { server, inFlight: requests } = http;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => resolve());
    });
  } catch (error) {
    lock?.release();
    throw listenError(error, config);
  }
  const { port } = server.address() as AddressInfo;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  const publicUrl = config.publicUrl ?? url.replace('//0.0.0.0:', '//127.0.0.1:');
  const resolved = { ...config, publicUrl, appUrl: config.appUrl ?? `${publicUrl}/app` };

  try {
    return await serve(http, requests, url, resolved, log, options, lock);
  } catch (error) {
    server.close();
    lock?.release();
    throw error;
  }
}

/** A failure to listen, as one line naming the variable to change. */
function listenError(error: unknown, config: Config): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  const where = `${config.host}:${config.port}`;
  const other = config.port === 65535 ? 3000 : config.port + 1;
  if (code === 'EADDRINUSE') {
    return new StartupError(
      `PORT ${config.port} is already in use on ${config.host}: stop the other server, or choose another port (PORT=${other}, or PORT=0 for any free port).`,
      { cause: error },
    );
  }
  if (code === 'EACCES') {
    return new StartupError(`PORT ${config.port} on ${config.host} needs privileges this process lacks: choose a port above 1023 (PORT=3000).`, { cause: error });
  }
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') {
    return new StartupError(`HOST ${config.host} is not an address of this machine (cannot listen on ${where}): use 127.0.0.1, or 0.0.0.0 for every interface.`, { cause: error });
  }
  return error;
}

async function serve(
  http: AppServer,
  requests: ConnectionsInFlight,
  url: string,
  config: ResolvedConfig,
  log: Logger,
  options: StartOptions,
  lock: DataDirLock | undefined,
): Promise<RunningServer> {
  let opened: { store: Store; applied: string[] };
  try {
    opened = await openStore({
      dataDir: config.dataDir,
      dbCacheMb: config.dbCacheMb,
      databaseUrl: config.databaseUrl,
      poolSize: config.databasePoolSize,
    });
  } catch (error) {
    if (error instanceof StoreOpenError) throw new StartupError(error.message, { cause: error });
    if (config.dataDir === ':memory:') throw error;
    throw new DataDirError(`DATA_DIR ${config.dataDir}: the database data.sqlite cannot be opened (${(error as Error).message}). Fix its permissions or choose another DATA_DIR.`, { cause: error });
  }
  const { store, applied } = opened;
  if (applied.length > 0) log.info({ migrations: applied, engine: store.engine }, 'database migrated');
  if (options.resettable && !(store instanceof SqliteStore && config.dataDir === ':memory:')) {
    await store.close();
    throw new StartupError('a resettable server keeps its database in memory: DATA_DIR=:memory:, without DATABASE_URL');
  }

  let seeded: SeedResult | undefined;
  let image: Buffer | undefined;
  // Built once: a reset's app reuses them (app.ts).
  const checks = contractChecks(config, log);
  const faults = options.faults ? new Faults(checks.contract) : undefined;
  const usage = options.usage === undefined ? undefined : usageRecorder(checks.contract, usageRecordsFolder(options.usage.folder), options.usage.consumer, log);
  const recorder = options.coverage === undefined ? undefined : answerRecorder(checks.contract, recordsFolder(options.coverage));
  if (recorder) {
    const also = options.onOperation;
    options = {
      ...options,
      onOperation: (operationId, status, contentType) => {
        recorder.answered(operationId, status, contentType);
        also?.(operationId, status, contentType);
      },
    };
  }
  const startup = startGeneration(store, config, log, options, { checks, faults, usage }, async (ctx) => {
    const seedFile = options.seed ?? (config.seedFile ? readSeedFile(config.seedFile) : undefined);
    const seedWrites = () => inWrite(ctx, async (scope) => {
      // Values an earlier release stored that this contract refuses, rewritten once, after the migrations that
      // brought the database to this release (domain/stored-values.ts).
      if (applied.length > 0) {
        for (const value of await repairStoredValues(scope.db, loadContract())) {
          log.warn({ repaired: value }, `${value.table}.${value.column} of ${value.id} broke the contract: ${JSON.stringify(value.from)} is now ${JSON.stringify(value.to)}`);
        }
      }
      if (seedFile) await applyFixture(scope, seedFile);
      if (options.fixture) await applyFixture(scope, options.fixture);
      await purgeExpiredSpaces(scope);
      return seedDemo(scope, config.apiToken, seedFile);
    });
    try {
      seeded = await seedWrites();
    } catch (error) {
      // A restart on a full disk serves what the database holds, and writes its start-up writes once there is room.
      // A first start has nothing to serve (and a token to print): it fails.
      if (!(error instanceof Refusal && error.condition === 'storage-full' && (await organizations.any(store.reader)))) throw error;
      deferStartupWrites(store, seedWrites, log);
      return;
    }
    if (seeded.tokenNotRegistered) log.warn(seeded.tokenNotRegistered);
    // The database as seeded, before any job runs: what reset() gives back.
    if (options.resettable) image = (store as SqliteStore).image();
  });
  let current: Generation;
  try {
    current = await startup;
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    const where = config.databaseUrl === undefined ? `DATA_DIR ${config.dataDir}` : `DATABASE_URL ${redactedUrl(config.databaseUrl)}`;
    const [why, fix] = error.condition === 'storage-full' ? ['its storage is full', 'free space'] : ['the database is unreachable', 'bring it back'];
    throw new StartupError(`${where}: ${why}, and this start must write to it: ${fix}, then start again.`, { cause: error });
  }
  http.serve(current.app);

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      await resetting.catch(() => undefined);
      // No new connection; idle ones are closed at once, and the others once their request is answered.
      const closed = new Promise<void>((resolve) => http.server.close(() => resolve()));
      requests.lastOnTheirConnections();
      await requests.answered();
      // What is left sent no whole request: idle connections, and any still sending its headers.
      http.server.closeAllConnections();
      await closed;
      await Promise.all([current.stop(), retiring]);
      recorder?.write();
      usage?.write();
      lock?.release();
    })());

  // A reset opens a new store from the image, with a context, job runner and app of its own, and serves it from the
  // next request on; the previous one stops behind it (its running jobs end first, writing to the previous database
  // only; waiting for that was most of a reset's time). Nothing kept in memory for the previous database (caches of
  // contents, list pages, callers of tokens: each is the store's or the context's) outlives it. The listening socket
  // and the clients' connections stay.
  let resetting: Promise<void> = Promise.resolve();
  let retiring: Promise<void> = Promise.resolve();
  const reset = () =>
    (resetting = resetting
      .catch(() => undefined)
      .then(async () => {
        if (!image) throw new Error('reset() needs a server started with resettable, whose database is in memory (DATA_DIR=:memory:, without DATABASE_URL)');
        if (closing) throw new Error('reset() of a server that is closing');
        faults?.clear();
        const next = await startGeneration(new SqliteStore(':memory:', config.dbCacheMb, image), config, log, options, { checks, faults, usage });
        const previous = current;
        current = next;
        http.replace(next.app);
        // The reset is done once the new generation serves; the previous one stops behind it (close() waits for it).
        const stopping = previous.stop().catch((error: unknown) => log.error({ err: error }, 'stopping the database before a reset failed'));
        retiring = Promise.all([retiring, stopping]).then(() => undefined);
      }));

  const keep = () =>
    (resetting = resetting
      .catch(() => undefined)
      .then(async () => {
        if (!image) throw new Error('keep() needs a server started with resettable, whose database is in memory (DATA_DIR=:memory:, without DATABASE_URL)');
        await current.ctx.jobs.idle();
        image = (current.ctx.store as SqliteStore).image();
      }));

  return {
    url,
    get ctx() {
      return current.ctx;
    },
    server: http.server,
    createdToken: seeded?.createdToken,
    tokenFor: seeded?.tokenFor,
    close,
    unfinished: () => ({ requests: requests.count, jobs: current.runner.runningCount }),
    reset,
    keep,
    faults,
  };
}

/** The line that says who DOCS_API_TOKEN was registered for. */
export function logTokenFor(log: Logger, tokenFor: NonNullable<SeedResult['tokenFor']>): void {
  log.info(tokenFor, `DOCS_API_TOKEN is the token of ${tokenFor.user} (admin of ${tokenFor.organization})`);
}

/**
 * The start-up writes (the seed file, DOCS_API_TOKEN, values repaired, expired spaces purged) of a restart that met a
 * full disk: done as soon as writes fit again (the store's `storage-full` condition ends), and tried again at each
 * such end until they are done. Meanwhile the server serves what the database holds, tokens registered before
 * included. Undo: let the refusal fail the start (the server then stays down until space is freed by hand).
 */
function deferStartupWrites(store: Store, write: () => Promise<SeedResult>, log: Logger): void {
  log.warn('the start-up writes (SEED_FILE, DOCS_API_TOKEN) wait until the storage has room: they are done then, without a restart');
  let writing = false;
  const attempt = () => {
    if (writing) return;
    writing = true;
    write()
      .then(
        (seeded) => {
          stop();
          log.info('the start-up writes are done');
          if (seeded.tokenFor) logTokenFor(log, seeded.tokenFor);
          if (seeded.tokenNotRegistered) log.warn(seeded.tokenNotRegistered);
        },
        (error: unknown) => {
          if (error instanceof Refusal) return;
          stop();
          log.error({ err: error }, 'the start-up writes failed');
        },
      )
      .finally(() => (writing = false));
  };
  const stop = store.conditions.watch({ ended: ({ kind }) => kind === 'storage-full' && attempt() });
  // The condition may have ended already, between the refusal and now.
  if (!store.conditions.has('storage-full')) attempt();
}

/** The store's conditions in the log: one line when one starts (error, with its cause), one when it ends. */
function logConditions(store: Store, log: Logger): void {
  store.conditions.watch({
    started: ({ kind, cause }) => log.error({ condition: kind, cause }, CONDITION_STARTED[kind]),
    ended: ({ kind, durationMs, refusedRequests, retriedJobSteps }) =>
      log.info(
        { condition: kind, durationMs, refusedRequests, retriedJobSteps },
        `${CONDITION_ENDED[kind]} (after ${(durationMs / 1000).toFixed(1)} s, ${refusedRequests} request${refusedRequests === 1 ? '' : 's'} refused meanwhile)`,
      ),
  });
}

const CONDITION_STARTED: Record<ConditionKind, string> = {
  'database-unreachable': 'the database is unreachable: requests that need it are answered 503 until it is back',
  'storage-full': 'the storage is full: writes are answered 503 until space is freed; reads are served',
};

const CONDITION_ENDED: Record<ConditionKind, string> = {
  'database-unreachable': 'the database is reachable again',
  'storage-full': 'the storage has room again: writes are accepted',
};

/** What the server serves one database with: a context on its store, a job runner, the app, the purge of deleted spaces. */
interface Generation {
  ctx: AppContext;
  app: Express;
  runner: JobRunner;
  /** Stops the purge and the job runner (waiting for running jobs), then closes the store. */
  stop(): Promise<void>;
}

/**
 * Builds a generation on `store`: the context, the job runner, `seed` (given the context, before any job runs), the
 * app (on the server's contract checks, which every generation shares). The store is closed when this fails.
 */
async function startGeneration(
  store: Store,
  config: ResolvedConfig,
  log: Logger,
  options: StartOptions,
  shared: { checks: ContractChecks; faults?: Faults; usage?: UsageRecorder },
  seed?: (ctx: AppContext) => Promise<void>,
): Promise<Generation> {
  keepRevisionContents(store, config.contentCacheMb * 1024 * 1024);
  logConditions(store, log);
  let ctx: AppContext;
  try {
    ctx = await createContext({ store, config, clock: options.clock ?? systemClock, log });
  } catch (error) {
    await store.close();
    throw error;
  }
  const runner = new JobRunner(ctx, { leaseMs: config.jobLeaseMs });
  ctx.jobs = runner;

  let app: Express;
  try {
    await seed?.(ctx);
    registerJobKinds(runner);
    await runner.start();
    let handlers = createHandlers();
    if (options.handlers) handlers = options.handlers(ctx, handlers);
    const contractAnswers = planOf(shared.checks, handlers, config.answerFromContract);
    // Said once per server: at its start (its first generation, the one that seeds), not at each reset.
    if (seed) {
      if (contractAnswers.answered.size > 0) log.warn({ answeredFromContract: Object.fromEntries(contractAnswers.answered) }, answeredLine(contractAnswers));
      for (const operation of shared.checks.operations.filter((each) => contractAnswers.answered.has(each.operationId))) {
        const { problem } = shared.checks.contractAnswer(operation);
        if (problem) log.error({ operationId: operation.operationId }, `${problem}: it answers 500`);
      }
      if (contractAnswers.extra.length > 0) log.warn({ handlers: contractAnswers.extra }, `handlers of no operation of the contract, not served: ${contractAnswers.extra.join(', ')}`);
      if (contractAnswers.stalePending.length > 0) {
        log.warn({ pending: contractAnswers.stalePending }, `server/handlers/pending.ts lists operations the contract does not have: ${contractAnswers.stalePending.join(', ')}`);
      }
    }
    app = createApp(ctx, handlers, {
      ...shared,
      contractAnswers,
      extraRoutes: (routes) => registerRoutes(ctx, routes),
      onOperation: options.onOperation,
      verifyListPageCache: options.verifyListPageCache,
    });
  } catch (error) {
    await runner.stop();
    await store.close();
    throw error;
  }

  const sweep = setInterval(() => {
    inWrite(ctx, purgeExpiredSpaces).catch((error) => {
      // Refused by a condition of the store (logged as such): the next sweep purges what this one would have.
      if (error instanceof Refusal) error.counted('job');
      else log.error({ err: error }, 'purge failed');
    });
  }, PURGE_INTERVAL_MS);
  sweep.unref();

  return {
    ctx,
    app,
    runner,
    async stop() {
      clearInterval(sweep);
      await runner.stop();
      await store.close();
    },
  };
}
