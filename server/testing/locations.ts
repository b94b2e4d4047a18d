// Where the test harness (index.ts) finds the server and the client: in the repository, their sources (the server's
// command run with tsx). The server package's build (scripts/build-server-package.ts) puts locations.package.ts in
// this module's place, which finds the package's compiled server and the installed client package.
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ClientModule, InProcessModule, ServerCommand } from './modules.ts';

/** The server's command: the module to fork, with the node options it needs. */
export const serverCommand = (): ServerCommand => ({
  modulePath: fileURLToPath(new URL('../main.ts', import.meta.url)),
  execArgv: ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href],
});

/** The module of the in-process server (a specifier tsc does not follow: the harness's declarations stay its own). */
export const loadServer = async (): Promise<InProcessModule> => (await import(new URL('./in-process.ts', import.meta.url).href)) as InProcessModule;

/** The typed client. */
export const loadClient = async (): Promise<ClientModule> => import('../../client/index.ts');
