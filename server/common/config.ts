// The server's configuration, read from the environment once at start-up.
import fs from 'node:fs';
import path from 'node:path';
import { parseAddressRange } from '../net/outbound.ts';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Config {
  /** Port to listen on; 0 picks a free one. */
  port: number;
  /** Interface to listen on. */
  host: string;
  /** Folder of the database file, or `:memory:` for a database that lives and dies with the process (SQLite). */
  dataDir: string;
  /** PostgreSQL's connection string: the server runs on PostgreSQL instead of SQLite, shared by several instances. */
  databaseUrl?: string;
  /** Connections to PostgreSQL each instance keeps at most. */
  databasePoolSize: number;
  /** How long a claimed background job stays an instance's without its heartbeat, in milliseconds. */
  jobLeaseMs: number;
  /** Base of every `urls.location`: the address clients reach the API at, without `/v1`. Defaults to the address
   *  the server listens on (known once it listens, so port 0 works). */
  publicUrl?: string;
  /** Base of every `urls.app`; defaults to `<publicUrl>/app`. */
  appUrl?: string;
  /** Token of the demo admin seeded into an empty database; a random one is printed when unset. */
  apiToken?: string;
  logLevel: LogLevel;
  /** One access-log line per request answered (LOG_REQUESTS); off, only a 5xx's line (at `warn`) is written. */
  logRequests: boolean;
  /** Validate every response against the contract (on by default; a failure is a 500 and a log line). */
  validateResponses: boolean;
  /**
   * Answer the operations this server does not implement (no handler, or pending: handlers/pending.ts) from the
   * contract, and serve the rest, instead of refusing to start (http/example-answers.ts).
   */
  answerFromContract: boolean;
  /** JSON or YAML fixture of organizations, users, memberships and tokens loaded at start-up. */
  seedFile?: string;
  /** Largest request body accepted, in bytes; larger ones get 413. */
  bodyLimit: number;
  /** Connections held open at once; one beyond it is closed as soon as it is accepted (MAX_CONNECTIONS). */
  maxConnections: number;
  /** SQLite page cache, MiB (DB_CACHE_MB). */
  dbCacheMb: number;
  /** Revisions' contents kept parsed, MiB of their JSON (CONTENT_CACHE_MB). */
  contentCacheMb: number;
  /** Pages of lists kept until the database next changes, MiB of their JSON (LIST_CACHE_MB). */
  listCacheMb: number;
  /** Allow outbound requests (imports, OpenAPI sources, Git, tunnels) to loopback and private addresses. */
  allowPrivateNetworks: boolean;
  /** Addresses and CIDR ranges outbound requests may reach even when `allowPrivateNetworks` is off. */
  allowedAddresses: string[];
  /** Timeout of outbound requests, in milliseconds. */
  outboundTimeoutMs: number;
  /**
   * How long a shutdown (SIGTERM, SIGINT) may take, in milliseconds: past it the process exits anyway, naming what it
   * gave up on (main.ts).
   */
  shutdownTimeoutMs: number;
  /** Allow Git import and export with local paths and file:// URLs (repositories on the server's own disk). */
  allowLocalGit: boolean;
  /** The folder local repositories must be in (needed when `allowLocalGit` is on); absolute. */
  localGitRoot?: string;
  /** Origins whose pages may call the API (CORS), or `['*']` for every origin; empty: CORS off. */
  corsOrigins: string[];
  /** Log lines as JSON (pino's) or as one readable line each (`pretty`); `auto` (LOG_FORMAT unset): pretty when the
   *  log goes to a terminal, JSON otherwise (decided by `createLogger`, http/access-log.ts). */
  logFormat: LogFormat | 'auto';
  /** A file the server writes its address into once it listens, for the process that started it (absolute). */
  addressFile?: string;
  /** Speed mechanisms turned off (SPEEDUPS_OFF): to measure what each buys (`npm run bench`'s `mechanisms` part), or to run on the dependencies as published. */
  speedupsOff: Speedup[];
}

/**
 * The server's speed mechanisms that reach past a library's or Node's documented surface (docs/performance.md, "What
 * the speed rests on"), all of them in server/speed/, each of which SPEEDUPS_OFF can turn off (`all` turns every one
 * off: the server on its dependencies as published): requests born with the app's prototypes (speed/app-server.ts),
 * answers written at the end of the turn (speed/write-together.ts), the app's `res.json` (speed/json-answer.ts), and
 * the validator as one middleware with its route index (speed/validator.ts; off, the validator's own `middleware()`),
 * and what a connection sent parsed a slice at a time (speed/parse-slices.ts; off, a connection past its bound is
 * parsed to the end of the chunk it was read in).
 */
export const SPEEDUPS = ['app-prototypes', 'write-together', 'json-answer', 'validator-wrapper', 'parse-slices'] as const;
export type Speedup = (typeof SPEEDUPS)[number];

export type LogFormat = 'json' | 'pretty';

/** A failure to start that a user fixes (configuration, DATA_DIR, port, seed): printed as one line, no stack trace. */
export class StartupError extends Error {}

/** A configuration variable with a value the server cannot use; the message names the variable. */
export class ConfigError extends StartupError {}

const LOG_LEVELS: LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function bool(name: string, value: string | undefined, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (/^(1|true|yes|on)$/i.test(value)) return true;
  if (/^(0|false|no|off)$/i.test(value)) return false;
  throw new ConfigError(`${name} must be true or false, got "${value}"`);
}

function int(name: string, value: string | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < min || parsed > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${value}"`);
  }
  return parsed;
}

function baseUrl(name: string, value: string | undefined): string | undefined {
  if (!value) return undefined;
  try {
    return new URL(value).href.replace(/\/+$/, '');
  } catch {
    throw new ConfigError(`${name} must be an absolute URL, got "${value}"`);
  }
}

function addressRanges(name: string, value: string | undefined): string[] {
  const ranges = (value ?? '').split(',').map((range) => range.trim()).filter(Boolean);
  for (const range of ranges) {
    try {
      parseAddressRange(range);
    } catch {
      throw new ConfigError(`${name} must list IP addresses or CIDR ranges separated by commas, got "${range}"`);
    }
  }
  return ranges;
}

/** The engines a variable is read on: `both`, or the one engine it concerns (ignored on the other). */
export type VariableEngine = 'both' | 'SQLite' | 'PostgreSQL';

/**
 * One configuration variable: its name in the environment, the field of `Config` it sets, its default as shown to
 * users, the engines it is read on, what it does, and its parser (which gets the value, `undefined` when unset or
 * empty, and the whole environment for the variables that depend on another). `readConfig` reads this table,
 * `--help` prints it, and `test/server/main.test.ts` checks that the configuration table of
 * server/docs/running-and-configuration.md lists exactly these variables with these defaults and engines.
 */
export type Variable = {
  [K in keyof Config]-?: {
    name: string;
    key: K;
    default: string;
    engine: VariableEngine;
    description: string;
    parse: (value: string | undefined, env: NodeJS.ProcessEnv) => Config[K];
  };
}[keyof Config];

const variable = <K extends keyof Config>(entry: {
  name: string;
  key: K;
  default: string;
  engine: VariableEngine;
  description: string;
  parse: (value: string | undefined, env: NodeJS.ProcessEnv) => Config[K];
}): Variable => entry as unknown as Variable;

/** Every configuration variable of the server, in the order `--help` and the README list them. */
export const VARIABLES: readonly Variable[] = [
  variable({
    name: 'PORT',
    key: 'port',
    default: '3000',
    engine: 'both',
    description: 'port to listen on (0 picks a free one)',
    parse: (value) => int('PORT', value, 3000, 0, 65535),
  }),
  variable({
    name: 'HOST',
    key: 'host',
    default: '127.0.0.1',
    engine: 'both',
    description: 'interface to listen on (0.0.0.0 for every interface)',
    parse: (value) => value ?? '127.0.0.1',
  }),
  variable({
    name: 'DATA_DIR',
    key: 'dataDir',
    default: './data',
    engine: 'both',
    description: 'folder of the SQLite database (created if missing; one server at a time) and, on either engine, of the Git clones imports keep (repoCacheID); :memory: keeps everything in memory',
    parse: (value) => (value === ':memory:' ? ':memory:' : path.resolve(value ?? './data')),
  }),
  variable({
    name: 'DATABASE_URL',
    key: 'databaseUrl',
    default: 'none (SQLite in DATA_DIR)',
    engine: 'PostgreSQL',
    description: 'postgres://user:password@host:port/database: run on PostgreSQL, shared by every instance, instead of SQLite',
    parse: (value) => databaseUrl('DATABASE_URL', value),
  }),
  variable({
    name: 'DATABASE_POOL_SIZE',
    key: 'databasePoolSize',
    default: '10',
    engine: 'PostgreSQL',
    description: 'connections each instance keeps at most',
    parse: (value) => int('DATABASE_POOL_SIZE', value, 10, 1, 1000),
  }),
  variable({
    name: 'JOB_LEASE_MS',
    key: 'jobLeaseMs',
    default: '30000',
    engine: 'both',
    description: 'how long a background job an instance claimed stays its own without a heartbeat, measured by the database clock (then another instance takes it over), in milliseconds',
    parse: (value) => int('JOB_LEASE_MS', value, 30_000, 300, 3_600_000),
  }),
  variable({
    name: 'PUBLIC_URL',
    key: 'publicUrl',
    default: 'the listening address',
    engine: 'both',
    description: 'base of every urls.location: the address clients reach the API at, without /v1',
    parse: (value) => baseUrl('PUBLIC_URL', value),
  }),
  variable({
    name: 'APP_URL',
    key: 'appUrl',
    default: '<PUBLIC_URL>/app',
    engine: 'both',
    description: 'base of every urls.app',
    parse: (value) => baseUrl('APP_URL', value),
  }),
  variable({
    name: 'DOCS_API_TOKEN',
    key: 'apiToken',
    default: 'random, printed once',
    engine: 'both',
    description: 'token of the demo admin, or of the first admin of the first organization of SEED_FILE',
    parse: (value) => value,
  }),
  variable({
    name: 'LOG_LEVEL',
    key: 'logLevel',
    default: 'info',
    engine: 'both',
    description: `pino level: ${LOG_LEVELS.join(', ')}`,
    parse: (value) => {
      const level = (value ?? 'info') as LogLevel;
      if (!LOG_LEVELS.includes(level)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${value}"`);
      return level;
    },
  }),
  variable({
    name: 'LOG_REQUESTS',
    key: 'logRequests',
    default: 'false',
    engine: 'both',
    description: 'one log line per request answered, at info; off, only a 5xx gets its line (at warn)',
    parse: (value) => bool('LOG_REQUESTS', value, false),
  }),
  variable({
    name: 'VALIDATE_RESPONSES',
    key: 'validateResponses',
    default: 'true',
    engine: 'both',
    description: 'validate every response against the contract (a violation is a 500 and a log line)',
    parse: (value) => bool('VALIDATE_RESPONSES', value, true),
  }),
  variable({
    name: 'ANSWER_FROM_CONTRACT',
    key: 'answerFromContract',
    default: 'false',
    engine: 'both',
    description:
      'answer the operations of the contract this server does not implement yet (no handler, or pending) from the contract: their example, with the header x-contract-answer; false refuses to start while there are any',
    parse: (value) => bool('ANSWER_FROM_CONTRACT', value, false),
  }),
  variable({
    name: 'SEED_FILE',
    key: 'seedFile',
    default: 'none',
    engine: 'both',
    description: 'JSON or YAML fixture of organizations, users, memberships and tokens applied at every start',
    parse: (value) => value,
  }),
  variable({
    name: 'BODY_LIMIT',
    key: 'bodyLimit',
    default: '5242880',
    engine: 'both',
    description: 'largest request body in bytes; larger ones get 413',
    parse: (value) => int('BODY_LIMIT', value, 5 * 1024 * 1024, 1024, 100 * 1024 * 1024),
  }),
  variable({
    name: 'MAX_CONNECTIONS',
    key: 'maxConnections',
    default: '1000',
    engine: 'both',
    description:
      'client connections held open at once; one more is closed as soon as it is accepted (behind a load balancer, at least its connections to this instance)',
    parse: (value) => int('MAX_CONNECTIONS', value, 1000, 1, 1_000_000),
  }),
  variable({
    name: 'DB_CACHE_MB',
    key: 'dbCacheMb',
    default: '2',
    engine: 'SQLite',
    description: "the database's page cache in MiB (the server's memory grows by up to this much as the database grows)",
    parse: (value) => int('DB_CACHE_MB', value, 2, 1, 1024),
  }),
  variable({
    name: 'CONTENT_CACHE_MB',
    key: 'contentCacheMb',
    default: '32',
    engine: 'both',
    description:
      "spaces' contents kept parsed in memory, in MiB of their JSON (about as much heap), and a quarter of it for answers made from a revision alone (whole contents, page trees, pages); a content above half of it is read from the database on every request",
    parse: (value) => int('CONTENT_CACHE_MB', value, 32, 0, 4096),
  }),
  variable({
    name: 'LIST_CACHE_MB',
    key: 'listCacheMb',
    default: '4',
    engine: 'both',
    description:
      'pages of lists kept in memory until the database next changes, in MiB of their JSON (a page read again by the same user is sent without being made again); 0 keeps none',
    parse: (value) => int('LIST_CACHE_MB', value, 4, 0, 1024),
  }),
  variable({
    name: 'ALLOW_PRIVATE_NETWORKS',
    key: 'allowPrivateNetworks',
    default: 'false',
    engine: 'both',
    description: 'allow outbound requests (imports, OpenAPI sources, Git, tunnels) to loopback and private addresses',
    parse: (value) => bool('ALLOW_PRIVATE_NETWORKS', value, false),
  }),
  variable({
    name: 'ALLOW_PRIVATE_ADDRESSES',
    key: 'allowedAddresses',
    default: 'none',
    engine: 'both',
    description: 'comma-separated addresses or CIDR ranges outbound requests may reach while ALLOW_PRIVATE_NETWORKS is false',
    parse: (value) => addressRanges('ALLOW_PRIVATE_ADDRESSES', value),
  }),
  variable({
    name: 'OUTBOUND_TIMEOUT_MS',
    key: 'outboundTimeoutMs',
    default: '10000',
    engine: 'both',
    description: 'timeout of every outbound request, in milliseconds',
    parse: (value) => int('OUTBOUND_TIMEOUT_MS', value, 10_000, 100, 600_000),
  }),
  variable({
    name: 'SHUTDOWN_TIMEOUT_MS',
    key: 'shutdownTimeoutMs',
    default: '8000',
    engine: 'both',
    description:
      'how long a shutdown (SIGTERM, SIGINT) may take, in milliseconds: requests in flight, background jobs and the log get until then, and past it the server exits anyway (exit code 1) with one line naming what it gave up on; below the grace period of docker stop (10 s) and Kubernetes (30 s). A second signal during a shutdown changes nothing',
    parse: (value) => int('SHUTDOWN_TIMEOUT_MS', value, 8000, 100, 600_000),
  }),
  variable({
    name: 'ALLOW_LOCAL_GIT',
    key: 'allowLocalGit',
    default: 'false',
    engine: 'both',
    description: 'allow Git import and export with local paths and file:// URLs, inside LOCAL_GIT_ROOT only',
    parse: (value) => bool('ALLOW_LOCAL_GIT', value, false),
  }),
  variable({
    name: 'LOCAL_GIT_ROOT',
    key: 'localGitRoot',
    default: 'none',
    engine: 'both',
    description: 'the folder local Git repositories must be in; required when ALLOW_LOCAL_GIT is true',
    parse: (value, env) => gitRoot(value, bool('ALLOW_LOCAL_GIT', env.ALLOW_LOCAL_GIT || undefined, false)),
  }),
  variable({
    name: 'CORS_ORIGINS',
    key: 'corsOrigins',
    default: 'none (CORS off)',
    engine: 'both',
    description: 'origins whose pages may call the API from a browser, comma-separated (https://app.example.com), or * for every origin',
    parse: (value) => corsOrigins('CORS_ORIGINS', value),
  }),
  variable({
    name: 'SPEEDUPS_OFF',
    key: 'speedupsOff',
    default: 'none',
    engine: 'both',
    description: `speed mechanisms to turn off, comma-separated, to measure what each buys (the bench's mechanisms part, docs/performance.md): ${SPEEDUPS.join(', ')}; or all`,
    parse: (value) => speedups('SPEEDUPS_OFF', value),
  }),
  variable({
    name: 'LOG_FORMAT',
    key: 'logFormat',
    default: 'pretty on a terminal, json otherwise',
    engine: 'both',
    description: 'json (pino JSON lines, for log collectors) or pretty (one readable line per entry); unset, pretty when standard output is a terminal',
    parse: (value) => {
      if (value === undefined) return 'auto';
      if (value !== 'json' && value !== 'pretty') throw new ConfigError(`LOG_FORMAT must be one of json, pretty, got "${value}"`);
      return value;
    },
  }),
  variable({
    name: 'ADDRESS_FILE',
    key: 'addressFile',
    default: 'none',
    engine: 'both',
    description: 'a file the server writes its address into (http://host:port and a newline) once it listens, for the process that started it; removed at a clean stop',
    parse: (value) => (value ? path.resolve(value) : undefined),
  }),
];

/** DATABASE_URL: a postgres:// or postgresql:// address. */
function databaseUrl(name: string, value: string | undefined): string | undefined {
  if (!value) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    // reported below
  }
  if (!url || !/^postgres(ql)?:$/.test(url.protocol)) {
    throw new ConfigError(`${name} must be a PostgreSQL address such as postgres://user:password@localhost:5432/docs, got "${value.replace(/:[^:@/]*@/, ':***@')}"`);
  }
  return value;
}

/** The speed mechanisms SPEEDUPS_OFF turns off in `env`. */
export function speedupsOff(env: NodeJS.ProcessEnv = process.env): Speedup[] {
  return speedups('SPEEDUPS_OFF', env.SPEEDUPS_OFF);
}

/** SPEEDUPS_OFF: names among `SPEEDUPS`, separated by commas. */
function speedups(name: string, value: string | undefined): Speedup[] {
  const values = (value ?? '').split(',').map((item) => item.trim()).filter(Boolean);
  if (values.includes('all')) {
    if (values.length > 1) throw new ConfigError(`${name}: all stands alone (it turns every mechanism off), got "${value}"`);
    return [...SPEEDUPS];
  }
  const unknown = values.filter((item) => !(SPEEDUPS as readonly string[]).includes(item));
  if (unknown.length > 0) throw new ConfigError(`${name} must name mechanisms among ${SPEEDUPS.join(', ')}, separated by commas, got "${value}"`);
  return [...new Set(values)] as Speedup[];
}

/** CORS_ORIGINS: `*`, or origins (`scheme://host[:port]`, nothing after) separated by commas, as browsers send them. */
function corsOrigins(name: string, value: string | undefined): string[] {
  const values = (value ?? '').split(',').map((item) => item.trim()).filter(Boolean);
  if (values.includes('*')) {
    if (values.length > 1) throw new ConfigError(`${name}: * stands alone (it allows every origin), got "${value}"`);
    return ['*'];
  }
  return values.map((item) => {
    let url: URL | undefined;
    try {
      url = new URL(item);
    } catch {
      // reported below
    }
    const origin = url && /^https?:$/.test(url.protocol) ? url.origin : undefined;
    if (!origin || item.replace(/\/$/, '').toLowerCase() !== origin.toLowerCase()) {
      throw new ConfigError(
        `${name} must be * or origins such as https://docs.example.com (scheme, host and port only) separated by commas, got "${item}"`,
      );
    }
    return origin;
  });
}

/** Reads the configuration from the environment, through `VARIABLES`; an unset or empty variable takes its default. */
export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const config: Record<string, unknown> = {};
  for (const entry of VARIABLES) {
    const value = entry.parse(env[entry.name] || undefined, env);
    if (value !== undefined) config[entry.key] = value;
  }
  return config as unknown as Config;
}

/** LOCAL_GIT_ROOT as an absolute path to an existing folder; required when local Git is on. */
function gitRoot(value: string | undefined, allowLocalGit: boolean): string | undefined {
  if (!allowLocalGit) return undefined;
  if (!value) throw new ConfigError('ALLOW_LOCAL_GIT=true needs LOCAL_GIT_ROOT, the folder that local Git repositories must be in');
  const root = path.resolve(value);
  if (!fs.statSync(root, { throwIfNoEntry: false })?.isDirectory()) {
    throw new ConfigError(`LOCAL_GIT_ROOT must be an existing folder, got "${value}"`);
  }
  return root;
}
