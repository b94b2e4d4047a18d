// The server's side of the test harness (index.ts), when the harness runs the server's command as a child process:
// the command (main.ts), once it listens, tells the harness its address over the IPC channel, resets its database
// and adds or clears faults (http/faults.ts) when asked, and stops when asked or when the channel closes. The channel closes when the harness's process ends,
// however it ends (its tests finished, a signal, a crash, SIGKILL: the operating system closes the socket), so the
// server never outlives the test run that started it.
import type { RunningServer } from './server.ts';
import { type FromServer, HARNESS_CONFIG_VARIABLE, HARNESS_USAGE_VARIABLE, HARNESS_VARIABLE, type HarnessUsage, type ToServer } from './harness-protocol.ts';

/** Whether this process is a server the harness started (its variable, and an IPC channel to it). */
export const underHarness = (): boolean => process.env[HARNESS_VARIABLE] === 'ipc' && typeof process.send === 'function';

/** The configuration variables the harness gave (protocol.ts), instead of the environment's. */
export const harnessVariables = (): Record<string, string> => JSON.parse(process.env[HARNESS_CONFIG_VARIABLE] ?? '{}') as Record<string, string>;

/** The usage record the harness asked for (its folder and consumer), or undefined when it asked for none. */
export const harnessUsage = (): HarnessUsage | undefined => (process.env[HARNESS_USAGE_VARIABLE] ? (JSON.parse(process.env[HARNESS_USAGE_VARIABLE]) as HarnessUsage) : undefined);

/** Answers the harness for `running`; `shutdown` closes the server and ends the process (main.ts). */
export function controlledByHarness(running: RunningServer, shutdown: (why: Record<string, string>) => void): void {
  const send = (message: FromServer) => {
    if (process.connected) process.send!(message);
  };
  const answer = (id: number, work: () => Promise<void> | void) => {
    Promise.resolve()
      .then(work)
      .then(
        () => send({ type: 'done', id }),
        (error: unknown) => send({ type: 'done', id, error: error instanceof Error ? error.message : String(error) }),
      );
  };
  process.on('message', (message: ToServer) => {
    if (message.type === 'stop') shutdown({ harness: 'stop' });
    if (message.type === 'reset') answer(message.id, () => running.reset());
    if (message.type === 'fault') answer(message.id, () => running.faults!.add(message.fault as never));
    if (message.type === 'clear-faults') answer(message.id, () => running.faults!.clear());
  });
  process.once('disconnect', () => shutdown({ harness: 'gone' }));
  // The harness may have ended while the server started: the channel is already closed.
  if (!process.connected) return shutdown({ harness: 'gone' });
  send({ type: 'listening', url: running.url });
}
