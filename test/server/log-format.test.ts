// The log's format: LOG_FORMAT when set; unset, one readable line per entry when stdout is a terminal and JSON lines
// otherwise. The decision and the readable lines directly, then the server started under a pseudo-terminal (util-linux's
// `script`) and through a pipe, on an empty DATA_DIR (so its first start logs the migrations it applied); a line per
// request answered only with LOG_REQUESTS.
// @needs processes
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test, vi } from 'vitest';
import { readConfig } from '../../server/common/config.ts';
import { createLogger, logFormatFor, prettyLine } from '../../server/http/access-log.ts';
import { serverArguments } from '../support/built-server.ts';

const time = Date.UTC(2026, 0, 2, 3, 4, 5, 6);

describe('the format chosen', () => {
  test('LOG_FORMAT unset is auto: pretty on a terminal, JSON otherwise; set, it wins', () => {
    expect(readConfig({}).logFormat).toBe('auto');
    expect(logFormatFor('auto', { isTTY: true })).toBe('pretty');
    expect(logFormatFor('auto', { isTTY: false })).toBe('json');
    expect(logFormatFor('auto', {})).toBe('json');
    expect(logFormatFor(readConfig({ LOG_FORMAT: 'json' }).logFormat, { isTTY: true })).toBe('json');
    expect(logFormatFor(readConfig({ LOG_FORMAT: 'pretty' }).logFormat, { isTTY: false })).toBe('pretty');
  });

  test('createLogger asks its destination whether it is a terminal', async () => {
    const written: Record<'terminal' | 'pipe', string[]> = { terminal: [], pipe: [] };
    for (const [kind, isTTY] of [['terminal', true], ['pipe', false]] as const) {
      const log = createLogger({ logLevel: 'info', logFormat: 'auto' }, { isTTY, write: (text: string) => written[kind].push(text) });
      log.info({ spaceId: 's1' }, 'hello');
      log.flush();
    }
    expect(written.terminal).toHaveLength(1);
    expect(written.terminal[0]).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO  hello spaceId=s1\n$/);
    expect(JSON.parse(written.pipe[0]!)).toMatchObject({ level: 30, msg: 'hello', spaceId: 's1' });
  });
});

describe('pretty lines', () => {
  test('a long list is its length, first and last items, on one line', () => {
    const migrations = Array.from({ length: 29 }, (_, index) => `${String((index + 1) * 10).padStart(3, '0')}_m.sql`);
    expect(prettyLine(JSON.stringify({ level: 30, time, msg: 'database migrated', migrations, engine: 'sqlite' }))).toBe(
      '03:04:05.006 INFO  database migrated migrations=29 (010_m.sql … 290_m.sql) engine=sqlite\n',
    );
    expect(prettyLine(JSON.stringify({ level: 30, time, msg: 'few', ids: ['a', 'b', 'c'] }))).toBe('03:04:05.006 INFO  few ids=["a","b","c"]\n');
  });

  test('a field the message already shows is left out', () => {
    const url = 'http://127.0.0.1:3000';
    const line = prettyLine(JSON.stringify({ level: 30, time, msg: `listening on ${url} (API reference: ${url}/docs)`, url, publicUrl: url, engine: 'sqlite', dataDir: 'data' }));
    expect(line).toBe(`03:04:05.006 INFO  listening on ${url} (API reference: ${url}/docs) engine=sqlite dataDir=data\n`);
    // Short values are kept even when the message happens to contain them.
    expect(prettyLine(JSON.stringify({ level: 30, time, msg: 'space s1 imported', spaceId: 's1' }))).toBe('03:04:05.006 INFO  space s1 imported spaceId=s1\n');
  });
});

describe('the server started', () => {
  const folder = mkdtempSync(path.join(tmpdir(), 'docs-log-format-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));
  let runs = 0;

  /**
   * Starts the server as `npm start` does (built from the sources at the start of the run) on a fresh DATA_DIR, under a pseudo-terminal (`script`) or with stdout a pipe,
   * and stops it (its process group) once it has said where it listens and whose its token is, and `meanwhile` has
   * run with its address: its stdout and stderr, whole (a clean stop writes every line first).
   */
  async function firstStart(terminal: boolean, env: Record<string, string> = {}, meanwhile?: (url: string) => Promise<void>): Promise<string> {
    const { LOG_FORMAT: _format, LOG_REQUESTS: _requests, ...inherited } = process.env;
    const command = `exec ${[process.execPath, ...serverArguments()].join(' ')}`;
    const child = spawn(terminal ? 'script' : 'sh', terminal ? ['-qfec', command, '/dev/null'] : ['-c', command], {
      env: { ...inherited, PORT: '0', HOST: '127.0.0.1', DATA_DIR: path.join(folder, `data-${++runs}`), DOCS_API_TOKEN: 'log-token', LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    try {
      await vi.waitFor(() => expect(output).toMatch(/DOCS_API_TOKEN is the token/), { timeout: 30_000, interval: 100 });
      await meanwhile?.(/listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)![1]!);
    } finally {
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        // already gone
      }
      await exited;
    }
    return output.replaceAll('\r\n', '\n');
  }

  test.runIf(spawnSync('script', ['--version']).status === 0)('under a terminal: one readable line per entry, the migrations on one', async () => {
    const output = await firstStart(true);
    const lines = output.trim().split('\n');
    expect(lines.some((line) => line.startsWith('{')), output).toBe(false);
    expect(lines.filter((line) => line.includes('database migrated')), output).toEqual([
      expect.stringMatching(/^\d\d:\d\d:\d\d\.\d{3} INFO  database migrated migrations=\d+ \(001_core\.sql … \S+\.sql\) engine=sqlite$/),
    ]);
    expect(output).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO  Documentation Platform API listening on http:\/\/127\.0\.0\.1:\d+ \(API reference: \S+\) engine=sqlite dataDir=\S+$/m);
    expect(lines.length, output).toBeLessThanOrEqual(6);

    // LOG_FORMAT wins over the terminal.
    const json = await firstStart(true, { LOG_FORMAT: 'json' });
    expect(JSON.parse(json.split('\n').find((line) => line.includes('database migrated'))!)).toMatchObject({ msg: 'database migrated', engine: 'sqlite' });
  }, 90_000);

  /** Four requests answered 200, 200, 400 and 404, to the server at `url`. */
  async function fourRequests(url: string): Promise<void> {
    const statuses = [];
    for (const [address, headers] of [
      [`${url}/health`, {}],
      [`${url}/v1/orgs`, { authorization: 'Bearer log-token' }],
      [`${url}/v1/orgs?limit=0`, { authorization: 'Bearer log-token' }],
      [`${url}/no-such-page`, {}],
    ] as const) {
      const response = await fetch(address, { headers });
      await response.arrayBuffer();
      statuses.push(response.status);
    }
    expect(statuses).toEqual([200, 200, 400, 404]);
  }

  test('answering requests: no line per request by default, one per request with LOG_REQUESTS', async () => {
    const quiet = await firstStart(false, {}, fourRequests);
    expect(quiet).toMatch(/"msg":"Documentation Platform API listening on/);
    expect(quiet.split('\n').filter((line) => line.includes('"msg":"request"')), quiet).toEqual([]);

    const logged = await firstStart(false, { LOG_REQUESTS: '1' }, fourRequests);
    const requests = logged.split('\n').filter((line) => line.includes('"msg":"request"')).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(requests.map((line) => [line.path, line.status]), logged).toEqual([['/health', 200], ['/v1/orgs', 200], ['/v1/orgs', 400], ['/no-such-page', 404]]);
  }, 90_000);

  test('through a pipe: JSON lines', async () => {
    const output = await firstStart(false);
    const migrated = JSON.parse(output.split('\n').find((line) => line.includes('database migrated'))!) as { migrations: string[] };
    expect(migrated.migrations[0]).toBe('001_core.sql');
    expect(output).toMatch(/^\{.*"msg":"Documentation Platform API listening on http:\/\/127\.0\.0\.1:\d+/m);
  }, 60_000);
});
