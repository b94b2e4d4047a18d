// The server processes of `npm run dev`: the running server, and a standby (scripts/dev-server.ts) that has loaded the
// server's modules and waits to take over, so that a contract change restarts the server in the time of its start-up
// proper. A server's output is printed while it is the running one; a standby's is held, and dropped if it exits
// before it runs.
import { type ChildProcess, spawn } from 'node:child_process';

export interface ServerProcessesOptions {
  /** The repository: where the server runs from its sources. */
  root: string;
  /** The server's environment; its PORT is set to the first start's port, so that restarts keep the address. */
  env: NodeJS.ProcessEnv;
  /** Prints a server's output. */
  print: (text: string) => void;
  /** Prints a `[dev]` line. */
  say: (line: string) => void;
  /** Whether dev is closing: a server that stops then is not reported, and none is started. */
  isClosed: () => boolean;
  /** Called with each address a server listens on. */
  onListening: (url: string) => void;
}

interface Launched {
  process: ChildProcess;
  /** The server's address once it listens; undefined once it has exited without. */
  listening: Promise<string | undefined>;
  /** Standby only: whether its modules loaded (false: it exited first). */
  ready: Promise<boolean>;
  /** Makes it the running server: its output is printed from then on. */
  activate(): void;
}

export class ServerProcesses {
  private child: ChildProcess | undefined;
  /** A server process with its modules loaded, waiting to be told to start (scripts/dev-server.ts). */
  private standby: Launched | undefined;
  /** Servers told to stop: their exit is no news. */
  private readonly stopping = new Set<ChildProcess>();

  constructor(private readonly options: ServerProcessesOptions) {}

  /** Whether a server is running (one whose start failed is not). */
  get running(): boolean {
    return this.child !== undefined;
  }

  /**
   * Stops the running server and starts the next: the standby when the server's code is what it loaded, else a fresh
   * process. Resolves with the new server's address, or undefined when it did not start.
   */
  async startNext(serverChanged: boolean): Promise<string | undefined> {
    if (serverChanged) this.dropStandby();
    await this.stopServer();
    if (this.options.isClosed()) return undefined;
    let next = this.standby;
    this.standby = undefined;
    if (!next || !(await next.ready)) next = this.launch('now');
    else next.process.send('start');
    next.activate();
    const address = await next.listening;
    // The next standby loads while this server serves.
    if (address && !this.options.isClosed()) this.standby = this.launch('standby');
    return address;
  }

  /** Stops the running server: SIGTERM, then SIGKILL after 10 s; resolves once its output has all come. */
  async stopServer(): Promise<void> {
    const server = this.child;
    if (!server || server.exitCode !== null || server.signalCode !== null) return;
    this.stopping.add(server);
    // 'close', not 'exit': its last lines ("shutting down") may still be in the pipe when it has exited.
    const exited = new Promise<void>((resolve) => server.once('close', () => resolve()));
    server.kill('SIGTERM');
    const timer = setTimeout(() => server.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }

  dropStandby(): void {
    this.standby?.process.kill('SIGKILL');
    this.standby = undefined;
  }

  /**
   * Starts a server process from the sources: `server/main.ts` at once, or scripts/dev-server.ts, which loads the
   * server's modules and waits (a standby). Until it is the running server its output is held, and dropped if it
   * exits before: a standby that fails to load is replaced by a fresh start, which prints the error.
   */
  private launch(kind: 'now' | 'standby'): Launched {
    const { root, env, print, say } = this.options;
    const entry = kind === 'now' ? 'server/main.ts' : 'scripts/dev-server.ts';
    const server = spawn(process.execPath, ['--import', 'tsx', entry], {
      cwd: root,
      env: { ...env },
      // The server tells its address over the IPC channel (server/main.ts), whatever its log level hides.
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    let active = false;
    let held = '';
    let listening = false;
    let resolveListening!: (address: string | undefined) => void;
    const listeningPromise = new Promise<string | undefined>((resolve) => (resolveListening = resolve));
    const onData = (chunk: Buffer) => {
      if (active) print(chunk.toString());
      else held += chunk;
    };
    server.stdout!.on('data', onData);
    server.stderr!.on('data', onData);
    server.on('message', (message: { type?: string; url?: string } | string) => {
      if (listening || typeof message !== 'object' || message.type !== 'listening' || typeof message.url !== 'string') return;
      listening = true;
      // Restarts keep the address, even when PORT=0 let the first start pick it.
      env.PORT = new URL(message.url).port;
      this.options.onListening(message.url);
      resolveListening(message.url);
    });
    // A standby that died just before it was told to start: `send` fails, and the exit below tells the rest.
    server.on('error', (error) => {
      if (active) say(`the server process failed: ${error.message}`);
    });
    const ready =
      kind === 'standby'
        ? new Promise<boolean>((resolve) => {
            server.on('message', (message) => message === 'ready' && resolve(true));
            server.once('exit', () => resolve(false));
          })
        : Promise.resolve(true);
    server.once('exit', (code, signal) => {
      if (this.standby?.process === server) this.standby = undefined;
      if (!active) return;
      if (this.child === server) this.child = undefined;
      if (!listening) {
        say(`the server did not start (exit code ${code ?? signal}): fix the error above; waiting for the next change`);
        resolveListening(undefined);
      } else if (!this.options.isClosed() && !this.stopping.has(server)) {
        say(`the server stopped (exit code ${code ?? signal}); waiting for the next change`);
      }
    });
    return {
      process: server,
      listening: listeningPromise,
      ready,
      activate: () => {
        active = true;
        this.child = server;
        if (held) print(held);
        held = '';
        if (server.exitCode !== null || server.signalCode !== null) {
          this.child = undefined;
          resolveListening(undefined);
        }
      },
    };
  }
}
