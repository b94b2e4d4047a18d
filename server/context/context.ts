// What handlers and background work share: the store, the configuration, the clock, the log, cursors, addresses.
// `AppContext` is the server's; a `Scope` is the same with the database handle of one unit of work (a request, a
// job's step), which is what every function that reads or writes the database takes.
import type { Logger } from 'pino';
import type { Config } from '../common/config.ts';
import { type Clock, countingClock } from '../common/clock.ts';
import { newSecret } from '../common/ids.ts';
import { Cursors } from '../common/paging.ts';
import type { Db, ReadOptions, Store } from '../store/db.ts';
import * as meta from '../store/meta.ts';

export interface Urls {
  /** Absolute API address of a path such as `/v1/spaces/abc`. */
  api(path: string): string;
  /** Address in the app of a path such as `/s/abc`. */
  app(path: string): string;
}

/** The configuration once the server listens: its addresses are known. */
export type ResolvedConfig = Config & { publicUrl: string; appUrl: string };

/** Background work as handlers see it: jobs are queued in a write transaction (`enqueue`, jobs/runner.ts). */
export interface Jobs {
  /** Claims and starts the queued jobs this instance can run now (`enqueue` asks once its write has committed). */
  kick(): void;
  /** Resolves when no job is queued or running (tests use it to wait for background work). */
  idle(): Promise<void>;
}

/**
 * The server's secrets, kept in the database (`meta`) so that they survive restarts and every instance shares them:
 * made by the first start, read by the others.
 */
export interface Secrets {
  /** Signs list cursors (common/paging.ts). */
  cursors: string;
  /** Signs the visitor claims of `ping` (members). */
  visitorClaims: string;
  /** Signs the addresses of files (content/files.ts). */
  fileUrls: string;
  /** The key that encrypts Git credentials while an operation waits (domain/git.ts). */
  gitCredentials: string;
}

/** Each secret's key in `meta`. */
const SECRET_KEYS = {
  cursors: 'cursor-secret',
  visitorClaims: 'visitor-claims-secret',
  fileUrls: 'file-url-secret',
  gitCredentials: 'git-credentials-key',
} satisfies Record<keyof Secrets, string>;

export interface AppContext {
  store: Store;
  secrets: Secrets;
  config: ResolvedConfig;
  /** The time: read it here only (see `clockReads`). */
  clock: Clock;
  /** How many times `clock` (or `now`) was read, since the context was made. */
  clockReads(): number;
  log: Logger;
  cursors: Cursors;
  urls: Urls;
  /** Background work: job kinds are registered at start-up (jobs/runner.ts). */
  jobs: Jobs;
  /** The current time as an ISO 8601 UTC string. */
  now(): string;
  /**
   * Set in the context a background job runs with (jobs/runner.ts): checks, inside each write transaction `inWrite`
   * opens, that the job is still this instance's (its lease, a fencing token), and throws otherwise, so that the
   * write is undone. Absent elsewhere.
   */
  readonly fence?: (db: Db) => Promise<void>;
}

/** The context of one unit of work: the app's, with the database handle of that work. */
export interface Scope extends AppContext {
  readonly db: Db;
}

/** `ctx` with `db` as its database handle. */
export function scoped(ctx: AppContext, db: Db): Scope {
  const scope = Object.create(ctx) as Scope & { db: Db };
  scope.db = db;
  return scope;
}

/**
 * Runs `work` with a scope of its own write transaction (see Store.write). In a background job's context the
 * transaction first checks the job's lease (`fence`): a job another instance took over writes nothing. From a
 * request's reads (`inRead`), the write is part of them: they see it once it has committed (WriteOptions.reading).
 */
export function inWrite<T>(ctx: AppContext | Scope, work: (scope: Scope) => Promise<T>): Promise<T> {
  const { fence } = ctx;
  const options = 'db' in ctx && ctx.db !== ctx.store.reader ? { reading: ctx.db } : {};
  if (fence === undefined) return ctx.store.write((db) => work(scoped(ctx, db)), options);
  return ctx.store.write(async (db) => {
    await fence(db);
    return work(scoped(ctx, db));
  }, options);
}

/**
 * Runs `work` with a scope whose reads all see one committed state (Store.read): the reads of one request. `work` may
 * run twice (see Store.read). `options.kind`: the kind of request, made once per route (ReadOptions).
 */
export function inRead<T>(ctx: AppContext, work: (scope: Scope) => Promise<T>, options?: ReadOptions): Promise<T> {
  return ctx.store.read((db) => work(scoped(ctx, db)), options);
}

/** The scope of each context with the store's reader, made once. */
const readers = new WeakMap<AppContext, Scope>();

/** `ctx` with the store's reader: reads outside any transaction, each statement at its own moment (a job's). */
export function reading(ctx: AppContext): Scope {
  let scope = readers.get(ctx);
  if (scope === undefined) readers.set(ctx, (scope = scoped(ctx, ctx.store.reader)));
  return scope;
}

/** Characters encodeURIComponent leaves as they are, and the segment separator. */
const URL_SAFE = /^[A-Za-z0-9\-_.!~*'()/]*$/;

/** The server's context; `jobs` is set by the caller (the runner needs the context it belongs to). */
export async function createContext(deps: { store: Store; config: ResolvedConfig; clock: Clock; log: Logger }): Promise<AppContext> {
  const { store, config } = deps;
  const clock = countingClock(deps.clock);
  // Each segment percent-encoded; most paths (ids are URL-safe) have nothing to encode and are returned as they are
  // (a list page builds several addresses per item, so encoding each showed in its profile).
  const encode = (path: string) => (URL_SAFE.test(path) ? path : path.split('/').map(encodeURIComponent).join('/'));
  const secrets = await store.write(async (db) => {
    const kept: Partial<Secrets> = {};
    for (const [name, key] of Object.entries(SECRET_KEYS) as [keyof Secrets, string][]) kept[name] = await meta.keep(db, key, newSecret());
    return kept as Secrets;
  });
  return {
    ...deps,
    secrets,
    clock,
    clockReads: () => clock.reads,
    cursors: new Cursors(secrets.cursors),
    urls: {
      api: (path) => `${config.publicUrl}${encode(path)}`,
      app: (path) => `${config.appUrl}${encode(path)}`,
    },
    now: () => clock.now().toISOString(),
    jobs: undefined as unknown as Jobs,
  };
}
