// The entry of the compiled server: `npm start` runs dist/server/main.js, built from this file, which runs the bundle
// of the server (dist/server/server.cjs, built from main.ts: scripts/build-server.ts) with a V8 code cache beside it
// (code-cache.ts), and calls its `runCommand` with the arguments. The server package's command is this file too,
// beside that package's bundle (scripts/build-server-package.ts). A start without a usable cache compiles the bundle
// and, when the server ends cleanly (exit code 0, after SIGTERM or SIGINT), writes the cache of everything its run
// compiled: the start-up and the requests it served. A failed start, or `--help` and `--version`, write none, so that
// the cache is always that of a server's run.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileCommonJs } from './code-cache.ts';

const bundle = path.join(path.dirname(fileURLToPath(import.meta.url)), 'server.cjs');
const script = compileCommonJs(bundle);
const args = process.argv.slice(2);
if (script.status !== 'used') {
  const serverRun = !args.some((arg) => ['--help', '-h', '--version', '-v'].includes(arg));
  process.once('exit', (code) => {
    if (code === 0 && serverRun) script.save();
  });
}
(script.run() as { runCommand(args: string[]): void }).runCommand(args);
