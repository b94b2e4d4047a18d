// `npm start`: reads the environment, opens the database, seeds it, listens; SIGTERM/SIGINT close it cleanly.
import { pino } from 'pino';
import { ConfigError, readConfig } from './config.ts';
import { startServer } from './server.ts';

async function main() {
  const config = readConfig();
  const log = pino({ level: config.logLevel });
  const running = await startServer(config, { log });
  log.info(
    { url: running.url, publicUrl: running.ctx.config.publicUrl, dataDir: config.dataDir },
    `Documentation Platform API listening on ${running.url}`,
  );
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

main().catch((error) => {
  const message = error instanceof ConfigError ? `configuration: ${error.message}` : (error?.stack ?? String(error));
  process.stderr.write(`docs-platform server failed to start: ${message}\n`);
  process.exit(1);
});
