// Where the test harness finds the server and the client in the server package (scripts/build-server-package.ts
// builds the harness with this module in place of locations.ts): the package's compiled server beside the harness
// (dist/server/), and the client package `docs-platform-contract`, an optional peer dependency installed beside it.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { ClientModule, InProcessModule, ServerCommand } from './modules.ts';

/** The package's `docs-platform-server` command, as npx runs it. */
export const serverCommand = (): ServerCommand => ({ modulePath: fileURLToPath(new URL('../server/main.js', import.meta.url)), execArgv: [] });

/** The package's bundle of the server, whose exports include `startInProcess` (server/testing/package-entry.ts). */
export const loadServer = async (): Promise<InProcessModule> => createRequire(import.meta.url)('../server/server.cjs') as InProcessModule;

const CLIENT_PACKAGE = 'docs-platform-contract';

/** The client package, when it is installed. */
export const loadClient = async (): Promise<ClientModule> => (await import(CLIENT_PACKAGE)) as ClientModule;
