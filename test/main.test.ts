// `npm start`'s entry point as a process: it listens, serves the demo organization to DOCS_API_TOKEN, and closes
// cleanly on SIGTERM and SIGINT, keeping what was written.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';

const dataDir = mkdtempSync(path.join(tmpdir(), 'docs-main-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** Starts server/main.ts (as `npm start` does) and resolves with its address once it listens. */
function start() {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    env: { ...process.env, PORT: '0', DATA_DIR: dataDir, DOCS_API_TOKEN: 'main-token', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk;
      const match = output.match(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
      if (match) resolve(match[1]!);
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk));
    child.once('exit', (code) => reject(new Error(`exited with ${code} before listening:\n${output}`)));
  });
  const exit = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { child, url, exit, output: () => output };
}

describe('server/main.ts', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    test(`serves the API and exits cleanly on ${signal}, keeping the data`, async () => {
      const server = start();
      const base = await server.url;
      const headers = { authorization: 'Bearer main-token', 'content-type': 'application/json' };
      const created = await fetch(`${base}/v1/orgs/demo/spaces`, { method: 'POST', headers, body: JSON.stringify({ title: signal }) });
      expect(created.status).toBe(201);
      server.child.kill(signal);
      expect(await server.exit).toBe(0);
      expect(server.output()).toContain('shutting down');

      const again = start();
      const spaces = (await (await fetch(`${await again.url}/v1/orgs/demo/spaces`, { headers })).json()) as { items: { title: string }[] };
      expect(spaces.items.map((space) => space.title)).toContain(signal);
      again.child.kill('SIGTERM');
      expect(await again.exit).toBe(0);
    });
  }
});
