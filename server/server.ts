// Starting and stopping the reference server: used by main.ts (npm start) and by the tests (port 0, in memory).
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import { createApp } from './app.ts';
import { keepRevisionContents } from './content/revisions.ts';
import { type Config, StartupError } from './config.ts';
import { type AppContext, createContext, inWrite, type ResolvedConfig } from './context.ts';
import { type Clock, systemClock } from './domain/clock.ts';
import { purgeExpiredSpaces } from './domain/spaces.ts';
import { createHandlers, registerJobKinds, registerRoutes } from './handlers/index.ts';
import { createLogger } from './http/access-log.ts';
import { type AppServer, appServer } from './http/app-server.ts';
import type { HandlerTable } from './http/types.ts';
import { type DataDirLock, DataDirError, lockDataDir, prepareDataDir } from './data-dir.ts';
import { JobRunner } from './jobs/runner.ts';
import { applyFixture, readSeedFile, type SeedFixture, type SeedResult, seedDemo } from './seed.ts';
import type { Store } from './store/db.ts';
import { openStore } from './store/open.ts';
import { StoreOpenError } from './store/postgres/store.ts';

export interface RunningServer {
  /** Address of the server, such as `http://127.0.0.1:41234`. */
  url: string;
  ctx: AppContext;
  server: Server;
  /** A token created for the demo admin on first start when DOCS_API_TOKEN is unset. */
  createdToken?: string;
  /** Who DOCS_API_TOKEN was registered for (see `seedDemo`). */
  tokenFor?: SeedResult['tokenFor'];
  close(): Promise<void>;
}

export interface StartOptions {
  clock?: Clock;
  log?: Logger;
  /** A fixture applied after SEED_FILE (tests pass theirs directly). */
  fixture?: SeedFixture;
  /** Called when a request routed to an operation has been answered (tests record what they exercise). */
  onOperation?: (operationId: string, status: number) => void;
  /** Make every list page sent from memory again and fail the request if it differs (tests; see http/kept-lists.ts). */
  verifyKeptLists?: boolean;
  /** Replaces handlers of the table (tests use it to break the server on purpose). */
  handlers?: (ctx: AppContext, table: HandlerTable) => HandlerTable;
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
      log.warn({ dataDir: config.dataDir, previous: lock.takenOver }, `took over the lock of DATA_DIR from process ${lock.takenOver.pid}, which no longer runs`);
    }
  }
  // Listen first: with port 0 the address, which every `urls.location` starts with, is known only then.
  const http = appServer();
  const { server } = http;
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
    return await serve(http, url, resolved, log, options, lock);
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
  { server, serve: serveApp }: AppServer,
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
      onError: (error, what) => log.warn({ err: error }, what),
    });
  } catch (error) {
    if (error instanceof StoreOpenError) throw new StartupError(error.message, { cause: error });
    if (config.dataDir === ':memory:') throw error;
    throw new DataDirError(`DATA_DIR ${config.dataDir}: the database data.sqlite cannot be opened (${(error as Error).message}). Fix its permissions or choose another DATA_DIR.`, { cause: error });
  }
  const { store, applied } = opened;
  keepRevisionContents(store, config.contentCacheMb * 1024 * 1024);
  if (applied.length > 0) log.info({ migrations: applied, engine: store.engine }, 'database migrated');
  let ctx: AppContext;
  try {
    ctx = await createContext({ store, config, clock: options.clock ?? systemClock, log });
  } catch (error) {
    await store.close();
    throw error;
  }
  const runner = new JobRunner(ctx, { leaseMs: config.jobLeaseMs });
  ctx.jobs = runner;

  let seeded: SeedResult;
  try {
    const seedFile = config.seedFile ? readSeedFile(config.seedFile) : undefined;
    seeded = await inWrite(ctx, async (scope) => {
      if (seedFile) await applyFixture(scope, seedFile);
      if (options.fixture) await applyFixture(scope, options.fixture);
      await purgeExpiredSpaces(scope);
      return seedDemo(scope, config.apiToken, seedFile);
    });
    if (seeded.tokenNotRegistered) log.warn(seeded.tokenNotRegistered);
    registerJobKinds(runner);
    await runner.start();
    let handlers = createHandlers();
    if (options.handlers) handlers = options.handlers(ctx, handlers);
    serveApp(
      createApp(ctx, handlers, {
        extraRoutes: (app) => registerRoutes(ctx, app),
        onOperation: options.onOperation,
        verifyKeptLists: options.verifyKeptLists,
      }),
    );
  } catch (error) {
    await runner.stop();
    await store.close();
    throw error;
  }

  const sweep = setInterval(() => {
    inWrite(ctx, purgeExpiredSpaces).catch((error) => log.error({ err: error }, 'purge failed'));
  }, PURGE_INTERVAL_MS);
  sweep.unref();

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      clearInterval(sweep);
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await runner.stop();
      await store.close();
      lock?.release();
    })());

  return { url, ctx, server, createdToken: seeded.createdToken, tokenFor: seeded.tokenFor, close };
}
