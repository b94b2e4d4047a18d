// The versions the server reports: the package's (package.json) and the contract's (`info.version` of the served
// document).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadContract } from './contract.ts';

/** The repository the server runs from (the compiled bundle reads its files from the source tree too). */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The server package's name (scripts/build-server-package.ts makes it); a clone's package.json names the client's. */
export const SERVER_PACKAGE_NAME = 'docs-platform-server';

/**
 * Where the server runs from: the installed server package (`npx docs-platform-server`), whose package.json beside
 * the bundle names it, or a clone of the repository (`npm start`, tsx, `npm run dev`).
 */
export function installation(): 'package' | 'clone' {
  const { name } = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { name?: string };
  return name === SERVER_PACKAGE_NAME ? 'package' : 'clone';
}

export function packageVersion(): string {
  return (JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
}

export function contractVersion(): string {
  return String((loadContract().info as { version?: unknown } | undefined)?.version ?? 'unknown');
}
