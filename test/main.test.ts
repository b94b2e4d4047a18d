// `npm start` as a process: the compiled server (dist/server/main.js, rebuilt here from the sources so that the test
// sees them) listens, serves the demo organization to DOCS_API_TOKEN, and closes cleanly on SIGTERM and SIGINT,
// keeping what was written.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildServer } from '../scripts/build-server.ts';

const dataDir = mkdtempSync(path.join(tmpdir(), 'docs-main-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
beforeAll(() => buildServer(), 60_000);

/** The command of `npm start`, run without npm in between so that signals reach the server itself. */
const startCommand = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: { start: string } }).scripts.start.split(' ');

/** Starts the server as `npm start` does and resolves with its address once it listens. */
function start() {
  expect(startCommand[0]).toBe('node');
  const child = spawn(process.execPath, startCommand.slice(1), {
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

describe('npm start', () => {
  test('runs the compiled server', () => {
    expect(startCommand).toEqual(['node', 'dist/server/main.js']);
  });

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
    }, 60_000); // two starts of a process
  }
});
