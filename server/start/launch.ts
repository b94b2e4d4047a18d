// The entry of the compiled server: `npm start` runs dist/server/main.js, built from this file, which loads the bundle
// of the server (dist/server/server.cjs, built from main.ts: scripts/build-server.ts) and calls its `runCommand` with
// the arguments. The server package's command is this file too, beside that package's bundle
// (scripts/build-server-package.ts).
//
// Before it loads the bundle, it turns on Node's compile cache (`module.enableCompileCache`): V8 then reads the code it
// compiled for the bundle on an earlier start instead of compiling the whole file again. The cache is kept in a folder
// of the user's, never beside the bundle (an install may be read-only): NODE_COMPILE_CACHE when it is set (Node then
// turns the cache on itself, before this file runs), else `$XDG_CACHE_HOME/docs-platform-server`, else
// `~/.cache/docs-platform-server`. NODE_DISABLE_COMPILE_CACHE=1 turns it off. Node writes the cache when the process
// exits, one folder for each Node version and set of V8 options, and checks each entry against the file it was made
// from, so a rebuilt bundle is compiled afresh once. It is best effort: a folder that cannot be created or written
// only leaves the bundle uncached, and deleting the folder is always safe.
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
