// The entry of the server package's bundle (scripts/build-server-package.ts): the command, which the package's
// launcher (launch.ts, as `docs-platform-server`) runs, and the in-process server of its test harness (testing/).
export { runCommand } from '../main.ts';
export { startInProcess } from './in-process.ts';
