// `npm start`, and the `docs-platform-server` command of the server package: reads the environment and the flags
// (command-line.ts), opens the database, seeds it, listens; SIGTERM/SIGINT close it within SHUTDOWN_TIMEOUT_MS.
// `--help` prints the flags and the configuration variables (from the table in config.ts), `--version` the package
// and contract versions. A failure to start that the user can fix is one line on stderr naming what to change, exit
// code 1. Started by the test harness (server/testing/), it answers it over IPC (server/start/harness-control.ts).
import { readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { asTyped, FLAGS, parseCommandLine, SWITCHES } from './start/command-line.ts';
import { type Config, readConfig, StartupError, type Variable, VARIABLES } from './common/config.ts';
import type { Logger } from 'pino';
import { createLogger } from './http/access-log.ts';
import { standardErrorLog, standardOutputLog } from './http/log-output.ts';
import { logWarnings } from './start/process-warnings.ts';
import { checkSeed, readSeedFile, type SeedFixture } from './start/seed.ts';
import { logTokenFor, type RunningServer, startServer } from './start/server.ts';
import { controlledByHarness, harnessUsage, harnessVariables, underHarness } from './start/harness-control.ts';
import { coverageFolder, HARNESS_SEED_VARIABLE, SEED_OBJECT, START_FAILURE } from './start/harness-protocol.ts';
import { contractVersion, installation, packageVersion, REPO_ROOT } from './http/version.ts';

const NAME = 'docs-platform server';

/** The usage lines of `--help`, for where the server runs from: the commands that start it there. */
const USAGE = {
  package: [
    '  npx docs-platform-server [options]           in a project that installed the server package (node_modules/.bin)',
  ],
  clone: [
    '  npm start [-- options]                       the compiled server (dist/server/main.js)',
    '  npx tsx server/main.ts [options]             the same, from the sources',
    '  npm run dev                                  development mode: from the sources, restarted on changes (README)',
  ],
} as const;

/** How `--help`'s example of environment variables ends, for where the server runs from. */
const EXAMPLE_COMMAND = { package: 'npx docs-platform-server', clone: 'npm start' } as const;

/** `SQLite only; ` before the default of a variable read on one engine alone; nothing for one read on both. */
export const engineNote = (entry: Variable): string => (entry.engine === 'both' ? '' : `${entry.engine} only; `);

/**
 * The text of `--help`: usage, every configuration variable with its default, and where the docs are. The usage is
 * that of where the server runs from (`installation()`): the package's command, or a clone's scripts.
 */
export function helpText(where: 'package' | 'clone' = installation()): string {
  const width = Math.max(...VARIABLES.map((entry) => entry.name.length)) + 2;
  const variables = VARIABLES.map(
    (entry) => `  ${entry.name.padEnd(width)}${entry.description}\n  ${' '.repeat(width)}(${engineNote(entry)}default: ${entry.default})`,
  );
  const flagWidth = Math.max(...FLAGS.map((entry) => `${entry.flag} ${entry.value}`.length), ...SWITCHES.map((entry) => entry.flag.length)) + 2;
  const flags = [
    ...FLAGS.map((entry) => `  ${`${entry.flag} ${entry.value}`.padEnd(flagWidth)}sets ${entry.variable}`),
    ...SWITCHES.map((entry) => `  ${entry.flag.padEnd(flagWidth)}sets ${entry.variable}=true`),
  ];
  return [
    `${NAME} ${packageVersion()} (contract ${contractVersion()}): the reference server of the Documentation Platform Management API.`,
    '',
    'Usage:',
    ...USAGE[where],
    '',
    'Options (each wins over its variable; a token given as a flag is visible to this machine\'s other users in its list of processes):',
    ...flags,
    `  ${'--help'.padEnd(flagWidth)}this text`,
    `  ${'--version'.padEnd(flagWidth)}the package and contract versions`,
    '',
    `Configured by environment variables, e.g. PORT=8080 DATA_DIR=/var/lib/docs DOCS_API_TOKEN=secret ${EXAMPLE_COMMAND[where]}`,
    '',
    ...variables,
    '',
    `Docs: ${path.join(REPO_ROOT, 'server/README.md')} (the reference, with its pages in server/docs/: configuration, seed file, security, behaviour)`,
    `      ${path.join(REPO_ROOT, 'README.md')} (${where === 'package' ? 'the package: install, command, test harness' : 'getting started'})`,
    '',
  ].join('\n');
}

export function versionText(): string {
  return `${NAME} ${packageVersion()}\ncontract ${contractVersion()}\n`;
}

/**
 * Tells the process that started the server where it listens, without its log (whose level or format may hide the
 * line): with an IPC channel (`spawn(…, { stdio: [..., 'ipc'] })` or `fork`), one message `{ type: 'listening',
 * url }` (the message the test harness gets too, server/start/harness-protocol.ts); with ADDRESS_FILE, the address and a newline, written to a temporary file renamed into place, so a reader
 * never sees half of it. The file is removed when the process exits.
 */
async function tellParent(url: string, addressFile: string | undefined, ipc: boolean): Promise<void> {
  if (addressFile) {
    const temporary = `${addressFile}.${process.pid}.tmp`;
    try {
      writeFileSync(temporary, `${url}\n`);
      renameSync(temporary, addressFile);
    } catch (error) {
      throw new StartupError(`ADDRESS_FILE ${addressFile} cannot be written: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
    process.once('exit', () => rmSync(addressFile, { force: true }));
  }
  if (ipc && process.send && process.connected) {
    await new Promise<void>((resolve) => process.send!({ type: 'listening', url }, undefined, {}, () => resolve()));
  }
}

/**
 * The seed, read and checked before anything else is done (the database opened, migrated), named in its errors as it
 * was given: SEED_FILE (`--seed` when the flag set it: asTyped), or the harness's seed file or seed object.
 */
function readSeed(config: Config, harness: boolean): SeedFixture | undefined {
  const object = harness ? process.env[HARNESS_SEED_VARIABLE] : undefined;
  if (object) return checkSeed(JSON.parse(readFileSync(object, 'utf8')), SEED_OBJECT);
  if (config.seedFile === undefined) return undefined;
  return harness ? readSeedFile(config.seedFile, `the seed file ${config.seedFile}`) : readSeedFile(config.seedFile);
}

async function main(args: string[]) {
  const command = parseCommandLine(args);
  if (command.action === 'help') return void process.stdout.write(helpText());
  if (command.action === 'version') return void process.stdout.write(versionText());
  try {
    await serve(command.variables);
  } catch (error) {
    throw error instanceof StartupError ? new StartupError(asTyped(error.message, command.variables), { cause: error }) : error;
  }
}

/** Starts the server with the variables the flags set over the environment's (or the harness's). */
async function serve(flags: Record<string, string>) {
  const harness = underHarness();
  const config = readConfig({ ...(harness ? harnessVariables() : process.env), ...flags });
  const log = createLogger(config);
  logWarnings(log);
  const seed = readSeed(config, harness);
  // Under the harness, a server in memory keeps the image of its seeded database, for the harness's reset().
  const running = await startServer(config, {
    log,
    ...(seed ? { seed } : {}),
    resettable: harness && config.dataDir === ':memory:' && config.databaseUrl === undefined,
    faults: harness,
    // Contract coverage of the harness's test run (testing/coverage.ts): the folder the harness gave.
    coverage: harness ? coverageFolder() : undefined,
    // The consumer's usage record (testing/usage.ts): the folder and consumer the harness gave.
    usage: harness ? harnessUsage() : undefined,
  });
  // Before anything says that it listens: a signal from then on stops it cleanly.
  const shutdown = shutdownOnce(running, log, config);
  // The listeners stay installed, so a second signal does not kill the process half-way through closing.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => shutdown({ signal }));
  log.info(
    { url: running.url, publicUrl: running.ctx.config.publicUrl, engine: running.ctx.store.engine, ...(config.databaseUrl ? {} : { dataDir: config.dataDir }) },
    // The address stays the last word before a space: scripts and tests read it from this line.
    `Documentation Platform API listening on ${running.url} (API reference: ${running.ctx.config.publicUrl}/docs)`,
  );
  // The harness is sent the same message by controlledByHarness, once it answers the harness's messages.
  await tellParent(running.url, config.addressFile, !harness);
  if (running.tokenFor) logTokenFor(log, running.tokenFor);
  if (running.createdToken) {
    // Printed once: the database keeps only its hash. Beside the log's lines, in their order.
    standardOutputLog().write(
      `\nDemo organization created. Admin token (shown once; set DOCS_API_TOKEN to choose it):\n  ${running.createdToken}\n\n`,
    );
  }
  if (harness) controlledByHarness(running, shutdown);
  else if (process.env.npm_command) stopWithParent(shutdown);
}

/**
 * The shutdown of the process, for SIGTERM, SIGINT, the harness or a parent gone: `running.close()` (no new
 * connection, the requests in flight answered, the background jobs ended, the database closed), then the log lines
 * written, then exit 0; a failure of the close is an error line and exit 1. SHUTDOWN_TIMEOUT_MS bounds it all: past
 * it the process exits with code 1 and one `error` line naming what it gave up on (requests in flight, jobs running,
 * log lines not written). Nothing acknowledged is lost then: an answered write was committed before its answer left,
 * and a job cut short is taken up again at the next start (or by another instance). The line goes to the log, or to
 * stderr when the log's output holds lines it has not written (it would wait behind them).
 *
 * One shutdown, whatever signals arrive: Ctrl-C in a terminal sends SIGINT to the whole process group, and npm
 * forwards the SIGINT it gets too, so the server often receives two for one keypress. A signal during a shutdown is
 * logged and changes nothing: the deadline already bounds the wait (undo: call `process.exit(1)` for it instead).
 */
function shutdownOnce(running: RunningServer, log: Logger, config: Config): (why: Record<string, string>) => void {
  let stopping = false;
  const output = standardOutputLog();
  return (why) => {
    if (stopping) {
      log.info(why, 'already shutting down: this changes nothing');
      return;
    }
    stopping = true;
    log.info({ ...why, shutdownTimeoutMs: config.shutdownTimeoutMs }, 'shutting down');
    const deadline = setTimeout(() => {
      const { requests, jobs } = running.unfinished();
      const { waiting, dropped, failed } = output.unwritten();
      const lines = waiting + dropped;
      const gaveUp = [
        ...(requests > 0 ? [plural(requests, 'request') + ' in flight'] : []),
        ...(jobs > 0 ? [`${plural(jobs, 'background job')} (taken up by the next start or another instance)`] : []),
        ...(lines > 0 ? [`${plural(lines, 'log line')} not written${failed ? ` (${failed})` : ''}`] : []),
      ];
      // Through the log when it has nothing waiting; else on stderr, where the line does not wait behind the rest.
      const to = waiting > 0 || failed ? createLogger(config, standardErrorLog()) : log;
      to.error(
        { shutdownTimeoutMs: config.shutdownTimeoutMs, requests, jobs, logLines: lines },
        `shutdown did not finish within SHUTDOWN_TIMEOUT_MS (${config.shutdownTimeoutMs} ms): exiting anyway, giving up on ${gaveUp.length > 0 ? gaveUp.join(', ') : 'closing the database'}`,
      );
      process.exit(1);
    }, config.shutdownTimeoutMs);
    const exit = (code: number) =>
      output.drained().then(() => {
        clearTimeout(deadline);
        const { dropped, failed } = output.unwritten();
        // Lines the log's output could not take (it failed: a closed pipe): their count, on stderr.
        if (dropped > 0) createLogger(config, standardErrorLog()).warn({ droppedLogLines: dropped }, `${plural(dropped, 'log line')} not written${failed ? ` (${failed})` : ''}`);
        process.exit(code);
      });
    running.close().then(
      () => exit(0),
      (error) => {
        log.error({ err: error }, 'shutdown failed');
        return exit(1);
      },
    );
  };
}

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

/**
 * Under npm (`npx docs-platform-server`, `npm exec`, a script that does not `exec` the server), npm runs the command
 * through `sh -c`, and a SIGTERM to npm's pid ends npm and its shell but not the server, which lives on with another
 * parent, holding its port and DATA_DIR. Such a server stops as if signalled once the process that started it is
 * gone. Outside npm a server may outlive its parent on purpose (a shell that starts it in the background and exits).
 */
function stopWithParent(shutdown: (why: Record<string, string>) => void): void {
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) shutdown({ reason: `the process that started it (${parent}) ended` });
  }, 500).unref();
}

/** Runs the command with `args`: launch.ts (the compiled entry) calls it; run directly (tsx), this module does. */
export function runCommand(args: string[]): void {
  main(args).catch((error) => {
    // What a user can fix is one line; anything else is a bug, shown with its stack.
    const message = error instanceof StartupError ? error.message : (error?.stack ?? String(error));
    process.stderr.write(`${START_FAILURE}${message}\n`);
    process.exit(1);
  });
}

/** Whether this module is the process's entry (`tsx server/main.ts`), not a module of a bundle or of a test. */
function isEntry(): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isEntry()) runCommand(process.argv.slice(2));
