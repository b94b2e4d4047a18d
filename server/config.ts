// The server's configuration, read from the environment once at start-up.
import fs from 'node:fs';
import path from 'node:path';
import { parseAddressRange } from './net/outbound.ts';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Config {
  /** Port to listen on; 0 picks a free one. */
  port: number;
  /** Interface to listen on. */
  host: string;
  /** Folder of the database file, or `:memory:` for a database that lives and dies with the process. */
  dataDir: string;
  /** Base of every `urls.location`: the address clients reach the API at, without `/v1`. Defaults to the address
   *  the server listens on (known once it listens, so port 0 works). */
  publicUrl?: string;
  /** Base of every `urls.app`; defaults to `<publicUrl>/app`. */
  appUrl?: string;
  /** Token of the demo admin seeded into an empty database; a random one is printed when unset. */
  apiToken?: string;
  logLevel: LogLevel;
  /** Validate every response against the contract (on by default; a failure is a 500 and a log line). */
  validateResponses: boolean;
  /** JSON or YAML fixture of organizations, users, memberships and tokens loaded at start-up. */
  seedFile?: string;
  /** Largest request body accepted, in bytes; larger ones get 413. */
  bodyLimit: number;
  /** Allow outbound requests (imports, OpenAPI sources, Git, tunnels) to loopback and private addresses. */
  allowPrivateNetworks: boolean;
  /** Addresses and CIDR ranges outbound requests may reach even when `allowPrivateNetworks` is off. */
  allowedAddresses: string[];
  /** Timeout of outbound requests, in milliseconds. */
  outboundTimeoutMs: number;
  /** Allow Git import and export with local paths and file:// URLs (repositories on the server's own disk). */
  allowLocalGit: boolean;
  /** The folder local repositories must be in (needed when `allowLocalGit` is on); absolute. */
  localGitRoot?: string;
}

export class ConfigError extends Error {}

const LOG_LEVELS: LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function bool(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const value = env[name];
  if (value === undefined || value === '') return fallback;
  if (/^(1|true|yes|on)$/i.test(value)) return true;
  if (/^(0|false|no|off)$/i.test(value)) return false;
  throw new ConfigError(`${name} must be true or false, got "${value}"`);
}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const value = env[name];
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < min || parsed > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${value}"`);
  }
  return parsed;
}

function baseUrl(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name];
  if (!value) return undefined;
  try {
    return new URL(value).href.replace(/\/+$/, '');
  } catch {
    throw new ConfigError(`${name} must be an absolute URL, got "${value}"`);
  }
}

function addressRanges(env: NodeJS.ProcessEnv, name: string): string[] {
  const ranges = (env[name] ?? '').split(',').map((range) => range.trim()).filter(Boolean);
  for (const range of ranges) {
    try {
      parseAddressRange(range);
    } catch {
      throw new ConfigError(`${name} must list IP addresses or CIDR ranges separated by commas, got "${range}"`);
    }
  }
  return ranges;
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = int(env, 'PORT', 3000, 0, 65535);
  const host = env.HOST || '127.0.0.1';
  const logLevel = (env.LOG_LEVEL || 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  const allowLocalGit = bool(env, 'ALLOW_LOCAL_GIT', false);
  const localGitRoot = gitRoot(env, allowLocalGit);
  const dataDir = env.DATA_DIR === ':memory:' ? ':memory:' : path.resolve(env.DATA_DIR || './data');
  return {
    port,
    host,
    dataDir,
    publicUrl: baseUrl(env, 'PUBLIC_URL'),
    appUrl: baseUrl(env, 'APP_URL'),
    apiToken: env.DOCS_API_TOKEN || undefined,
    logLevel,
    validateResponses: bool(env, 'VALIDATE_RESPONSES', true),
    seedFile: env.SEED_FILE || undefined,
    bodyLimit: int(env, 'BODY_LIMIT', 5 * 1024 * 1024, 1024, 100 * 1024 * 1024),
    allowPrivateNetworks: bool(env, 'ALLOW_PRIVATE_NETWORKS', false),
    allowedAddresses: addressRanges(env, 'ALLOW_PRIVATE_ADDRESSES'),
    outboundTimeoutMs: int(env, 'OUTBOUND_TIMEOUT_MS', 10_000, 100, 600_000),
    allowLocalGit,
    ...(localGitRoot ? { localGitRoot } : {}),
  };
}

/** LOCAL_GIT_ROOT as an absolute path to an existing folder; required when local Git is on. */
function gitRoot(env: NodeJS.ProcessEnv, allowLocalGit: boolean): string | undefined {
  const value = env.LOCAL_GIT_ROOT;
  if (!allowLocalGit) return undefined;
  if (!value) throw new ConfigError('ALLOW_LOCAL_GIT=true needs LOCAL_GIT_ROOT, the folder that local Git repositories must be in');
  const root = path.resolve(value);
  if (!fs.statSync(root, { throwIfNoEntry: false })?.isDirectory()) {
    throw new ConfigError(`LOCAL_GIT_ROOT must be an existing folder, got "${value}"`);
  }
  return root;
}
