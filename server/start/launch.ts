// The entry of the compiled server (dist/server/main.js, run by `npm start`, and the server package's command): checks
// the Node version, turns on Node's compile cache in the user's cache folder, then loads the server's bundle and calls
// its `runCommand` with the arguments (server/docs/running-and-configuration.md, "Running it").
import module from 'node:module';
import { homedir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { unsupportedNodeLine } from './runtime-check.ts';

// First of all (what is imported above is Node's own, and this module's helpers): an unsupported Node ends here.
const unsupported = unsupportedNodeLine('docs-platform-server', process.versions.node);
if (unsupported !== undefined) {
  process.stderr.write(`${unsupported}\n`);
  process.exit(1);
}

/** The compile cache's folder when NODE_COMPILE_CACHE does not name one; undefined when there is no home to put it in. */
function cacheFolder(): string | undefined {
  const xdg = process.env.XDG_CACHE_HOME;
  // The XDG base directory specification: a relative XDG_CACHE_HOME is invalid and ignored.
  if (xdg && path.isAbsolute(xdg)) return path.join(xdg, 'docs-platform-server');
  try {
    const home = homedir();
    return home ? path.join(home, '.cache', 'docs-platform-server') : undefined;
  } catch {
    return undefined;
  }
}

if (!process.env.NODE_COMPILE_CACHE) {
  const folder = cacheFolder();
  // Never fails the start: a folder that cannot be used is reported in the returned status, which is not needed.
  if (folder) {
    try {
      module.enableCompileCache(folder);
    } catch {
      // A Node that refuses the call: run without a cache.
    }
  }
}

const bundle = path.join(path.dirname(fileURLToPath(import.meta.url)), 'server.cjs');
(module.createRequire(bundle)(bundle) as { runCommand(args: string[]): void }).runCommand(process.argv.slice(2));
