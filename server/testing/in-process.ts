// The test harness's server in the test's own process (index.ts, `inProcess: true`): the configuration from the
// harness's variables alone (not the process's environment), a resettable database when it is in memory, and nothing
// that keeps the process alive by itself, so that a test run that forgot stop() still ends at once: not the listening
// socket, nor the connections it accepts (a client's kept-alive connection would hold it for node:http's
// keepAliveTimeout, seconds), nor the server's timers (the job runner's and the purge's are unref'd where they start).
import type { Socket } from 'node:net';
import { readConfig } from '../common/config.ts';
import { checkSeed } from '../start/seed.ts';
import { type RunningServer, type StartOptions, startServer } from '../start/server.ts';
import { SEED_OBJECT } from '../start/harness-protocol.ts';

export async function startInProcess(variables: Record<string, string>, options: StartOptions = {}): Promise<RunningServer> {
  const config = readConfig(variables);
  const seed = options.seed === undefined ? {} : { seed: checkSeed(options.seed, SEED_OBJECT) };
  const running = await startServer(config, { resettable: config.dataDir === ':memory:' && config.databaseUrl === undefined, faults: true, ...options, ...seed });
  running.server.unref();
  running.server.on('connection', (socket: Socket) => socket.unref());
  return running;
}
