// Starting and stopping the reference server: used by main.ts (npm start) and by the tests (port 0, in memory).
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { pino, type Logger } from 'pino';
import { createApp } from './app.ts';
import type { Config } from './config.ts';
import { type AppContext, createContext, type ResolvedConfig } from './context.ts';
import { type Clock, systemClock } from './domain/clock.ts';
import { purgeExpiredSpaces } from './domain/spaces.ts';
import { createHandlers, registerJobKinds, registerRoutes } from './handlers/index.ts';
import type { HandlerTable } from './http/types.ts';
import { applyFixture, readSeedFile, type SeedFixture, seedDemo } from './seed.ts';
import { Store } from './store/db.ts';

export interface RunningServer {
  /** Address of the server, such as `http://127.0.0.1:41234`. */
  url: string;
  ctx: AppContext;
  server: Server;
  /** A token created for the demo admin on first start when DOCS_API_TOKEN is unset. */
  createdToken?: string;
  close(): Promise<void>;
}

export interface StartOptions {
  clock?: Clock;
  log?: Logger;
  /** A fixture applied after SEED_FILE (tests pass theirs directly). */
  fixture?: SeedFixture;
  /** Called when a request routed to an operation has been answered (tests record what they exercise). */
  onOperation?: (operationId: string, status: number) => void;
  /** Replaces handlers of the table (tests use it to break the server on purpose). */
  handlers?: (ctx: AppContext, table: HandlerTable) => HandlerTable;
}

/** How often deleted spaces older than 7 days are purged. */
const PURGE_INTERVAL_MS = 60 * 60 * 1000;

export async function startServer(config: Config, options: StartOptions = {}): Promise<RunningServer> {
  const log = options.log ?? pino({ level: config.logLevel });
  // Listen first: with port 0 the address, which every `urls.location` starts with, is known only then.
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  const publicUrl = config.publicUrl ?? url.replace('//0.0.0.0:', '//127.0.0.1:');
  const resolved = { ...config, publicUrl, appUrl: config.appUrl ?? `${publicUrl}/app` };

  try {
    return await serve(server, url, resolved, log, options);
  } catch (error) {
    server.close();
    throw error;
  }
}

async function serve(
  server: Server,
  url: string,
  config: ResolvedConfig,
  log: Logger,
  options: StartOptions,
): Promise<RunningServer> {
  const { store, applied } = Store.open(config.dataDir);
  if (applied.length > 0) log.info({ migrations: applied }, 'database migrated');
  const ctx = createContext({ store, config, clock: options.clock ?? systemClock, log });

  let seeded: { createdToken?: string };
  try {
    seeded = await store.write(() => {
      if (config.seedFile) applyFixture(ctx, readSeedFile(config.seedFile));
      if (options.fixture) applyFixture(ctx, options.fixture);
      purgeExpiredSpaces(ctx);
      return seedDemo(ctx, config.apiToken);
    });
    registerJobKinds(ctx);
    await ctx.jobs.start();
    let handlers = createHandlers(ctx);
    if (options.handlers) handlers = options.handlers(ctx, handlers);
    server.on(
      'request',
      createApp(ctx, handlers, { extraRoutes: (app) => registerRoutes(ctx, app), onOperation: options.onOperation }),
    );
  } catch (error) {
    await ctx.jobs.stop();
    await store.close();
    throw error;
  }

  const sweep = setInterval(() => {
    store.write(() => purgeExpiredSpaces(ctx)).catch((error) => log.error({ err: error }, 'purge failed'));
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
      await ctx.jobs.stop();
      await store.close();
    })());

  return { url, ctx, server, createdToken: seeded.createdToken, close };
}
