// The versions the server reports: the package's (package.json) and the contract's (`info.version` of the served
// document).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadContract } from './http/contract.ts';

/** The repository the server runs from (the compiled bundle reads its files from the source tree too). */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export function packageVersion(): string {
  return (JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
}

export function contractVersion(): string {
  return String((loadContract().info as { version?: unknown } | undefined)?.version ?? 'unknown');
}
