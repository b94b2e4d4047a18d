// The first module of the test harness (index.ts imports it before anything else): on a Node the packages do not
// support, importing `docs-platform-server/testing` writes the commands' one line to stderr and exits (code 1), before
// anything else of the test run fails on that Node (server/docs/design.md, "Supported Node versions").
import { unsupportedNodeLine } from '../start/runtime-check.ts';

const unsupported = unsupportedNodeLine('docs-platform-server/testing', process.versions.node);
if (unsupported !== undefined) {
  process.stderr.write(`${unsupported}\n`);
  process.exit(1);
}
