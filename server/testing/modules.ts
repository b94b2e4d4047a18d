// What the harness's locations (locations.ts in the repository, locations.package.ts in the server package) load: the
// shapes of the server's command, of the in-process server and of the client package. Beside index.ts rather than in
// it, so that the locations, which index.ts imports, do not import index.ts back.
import type { DocsClient, DocsClientOptions } from '../../client/index.ts';

/** The server's command: the module to fork, with the node options it needs. */
export interface ServerCommand {
  modulePath: string;
  execArgv: string[];
}

/** The in-process server (in-process.ts). */
export interface InProcessModule {
  startInProcess(
    variables: Record<string, string>,
    options?: object,
  ): Promise<{ url: string; reset(): Promise<void>; close(): Promise<void>; faults?: { add(fault: object): void; clear(): void } }>;
}

/** The client package. */
export type ClientModule = { createDocsClient(options: DocsClientOptions): DocsClient };
