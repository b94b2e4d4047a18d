// The services outside the server that the examples' world needs (world.ts, `WorldPart.outside`), served on
// 127.0.0.1: one HTTP server per origin the examples name.
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Outside {
  /** The local origin of each origin of the examples. */
  origins: Map<string, string>;
  close(): Promise<void>;
}

export async function startOutside(services: Record<string, RequestListener>): Promise<Outside> {
  const servers: Server[] = [];
  const origins = new Map<string, string>();
  for (const [origin, listener] of Object.entries(services)) {
    const server = createServer(listener);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origins.set(origin, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  }
  return {
    origins,
    close: async () => {
      await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    },
  };
}
