// The test harness's server in the test's own process (index.ts, `inProcess: true`): the configuration from the
// harness's variables alone (not the process's environment), a resettable database when it is in memory, and a
// listening socket that does not keep the process alive by itself (a test run that forgot stop() still ends).
import { readConfig } from '../config.ts';
import { type RunningServer, type StartOptions, startServer } from '../server.ts';

export async function startInProcess(variables: Record<string, string>, options: StartOptions = {}): Promise<RunningServer> {
  const config = readConfig(variables);
  const running = await startServer(config, { resettable: config.dataDir === ':memory:' && config.databaseUrl === undefined, ...options });
  running.server.unref();
  return running;
}
