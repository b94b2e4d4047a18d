// `npm start`: reads the environment, opens the database, seeds it, listens; SIGTERM/SIGINT close it cleanly.
// `--help` prints the configuration variables (from the table in config.ts), `--version` the package and contract
// versions. A failure to start that the user can fix is one line on stderr naming what to change, and exit code 1.
import path from 'node:path';
import { readConfig, StartupError, VARIABLES } from './config.ts';
import { createLogger } from './http/access-log.ts';
import { startServer } from './server.ts';
import { contractVersion, packageVersion, REPO_ROOT } from './version.ts';

const NAME = 'docs-platform server';

/** The text of `--help`: usage, every configuration variable with its default, and where the docs are. */
export function helpText(): string {
  const width = Math.max(...VARIABLES.map((entry) => entry.name.length)) + 2;
  const variables = VARIABLES.map(
    (entry) => `  ${entry.name.padEnd(width)}${entry.description}\n  ${' '.repeat(width)}(default: ${entry.default})`,
  );
  return [
    `${NAME} ${packageVersion()} (contract ${contractVersion()}): the reference server of the Documentation Platform Management API.`,
    '',
    'Usage:',
    '  npm start [-- --help | --version]            the compiled server (dist/server/main.js)',
    '  npx tsx server/main.ts [--help | --version]  the same, from the sources',
    '  npm run dev                                  development mode: from the sources, restarted on changes (README)',
    '',
    'Configured by environment variables, e.g. PORT=8080 DATA_DIR=/var/lib/docs DOCS_API_TOKEN=secret npm start',
    '',
    ...variables,
    '',
    `Docs: ${path.join(REPO_ROOT, 'server/README.md')} (configuration, seed file, security, behaviour)`,
    `      ${path.join(REPO_ROOT, 'README.md')} (getting started)`,
    '',
  ].join('\n');
}

export function versionText(): string {
  return `${NAME} ${packageVersion()}\ncontract ${contractVersion()}\n`;
}

async function main(args: string[]) {
  if (args.includes('--help') || args.includes('-h')) return void process.stdout.write(helpText());
  if (args.includes('--version') || args.includes('-v')) return void process.stdout.write(versionText());
  if (args.length > 0) throw new StartupError(`unknown argument ${args[0]}: the server is configured by environment variables (see --help)`);

  const config = readConfig();
  const log = createLogger(config);
  const running = await startServer(config, { log });
  log.info(
    { url: running.url, publicUrl: running.ctx.config.publicUrl, engine: running.ctx.store.engine, ...(config.databaseUrl ? {} : { dataDir: config.dataDir }) },
    `Documentation Platform API listening on ${running.url}`,
  );
  if (running.tokenFor) {
    log.info(running.tokenFor, `DOCS_API_TOKEN is the token of ${running.tokenFor.user} (admin of ${running.tokenFor.organization})`);
  }
  if (running.createdToken) {
    // Printed once: the database keeps only its hash.
    process.stdout.write(
      `\nDemo organization created. Admin token (shown once; set DOCS_API_TOKEN to choose it):\n  ${running.createdToken}\n\n`,
    );
  }
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      log.info({ signal }, 'shutting down');
      running.close().then(
        () => process.exit(0),
        (error) => {
          log.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
    });
  }
}

main(process.argv.slice(2)).catch((error) => {
  // What a user can fix is one line; anything else is a bug, shown with its stack.
  const message = error instanceof StartupError ? error.message : (error?.stack ?? String(error));
  process.stderr.write(`${NAME} failed to start: ${message}\n`);
  process.exit(1);
});
