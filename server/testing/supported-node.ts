// The first module of the test harness (index.ts imports it before anything else): on a Node the packages do not
// support, importing `docs-platform-server/testing` fails here, with the one line the commands print
// (`docs-platform-server/testing: Node 20.20.2 is not supported; use Node 22 (22.12 or later), 24, or 26 or later`),
// before anything else of the test run fails on that Node in its own way. The line goes to stderr and the process
// exits (code 1), as the commands do: a thrown error would be the test runner's to show, and vitest 5 on Node 20 fails
// while it shows one (`Map.groupBy is not a function`), so that the reason would never be seen.
import { unsupportedNodeLine } from '../start/runtime-check.ts';

const unsupported = unsupportedNodeLine('docs-platform-server/testing', process.versions.node);
if (unsupported !== undefined) {
  process.stderr.write(`${unsupported}\n`);
  process.exit(1);
}
