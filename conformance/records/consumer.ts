// Who a usage record is of, and against which contract: the consumer's package (name and version in the working
// directory's package.json) and git commit, and the contract's info.version and digest (docs/consumers.md).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Contract } from '../contract/contract.ts';
import type { UsageRecord } from './usage-format.ts';

/** The consumer in `cwd`: `name` when given, else its package.json's; its version, and the commit of its git checkout. */
export function consumerIdentity(cwd: string, name?: string): UsageRecord['consumer'] {
  let manifest: { name?: string; version?: string } = {};
  try {
    manifest = JSON.parse(readFileSync(path.join(cwd, 'package.json'), 'utf8')) as typeof manifest;
  } catch {
    // No package.json: the name must be given.
  }
  const named = name ?? manifest.name;
  if (!named) throw new Error(`no consumer name: give one, or run where a package.json names the consumer (${cwd})`);
  let commit: string | undefined;
  try {
    commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() || undefined;
  } catch {
    // Not a git checkout.
  }
  return { name: named, ...(manifest.version && named === manifest.name ? { version: manifest.version } : {}), ...(commit ? { commit } : {}) };
}

/** The contract a record is made against: its info.version and the SHA-256 of its document as JSON. */
export function contractIdentity(contract: Contract): UsageRecord['contract'] {
  const version = (contract.document.info as { version?: string } | undefined)?.version ?? 'unknown';
  return { version, sha256: createHash('sha256').update(JSON.stringify(contract.document)).digest('hex') };
}
