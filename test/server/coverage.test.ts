// Contract coverage of a consumer's suite (server/testing/coverage.ts, recorder.ts): servers started through the
// harness, as a child process and in process, record what they answered; the report merges them, writes its JSON and
// Markdown, prints one line, and fails below a threshold.
// @needs processes
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { type Coverage, reportCoverage, startCoverage, startDocsServer } from '../../server/testing/index.ts';
import { COVERAGE_VARIABLE, recordsFolder } from '../../server/start/harness-protocol.ts';
import { answerRecorder } from '../../server/http/coverage-recorder.ts';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'coverage-'));
const before = process.env[COVERAGE_VARIABLE];
afterAll(() => {
  if (before === undefined) delete process.env[COVERAGE_VARIABLE];
  else process.env[COVERAGE_VARIABLE] = before;
  rmSync(scratch, { recursive: true, force: true });
});

const seed = {
  users: [{ id: 'ann', displayName: 'Ann' }],
  organizations: [{ id: 'acme', title: 'Acme', members: [{ user: 'ann', role: 'admin' as const }], spaces: [{ id: 'guides', title: 'Guides' }] }],
};
const space = (spaceId: string) => ({ params: { path: { spaceId } } });

describe('contract coverage through the harness', () => {
  test('servers of both kinds record what they answered; the report merges them, prints one line and removes the records', async () => {
    const folder = path.join(scratch, 'run');
    expect(startCoverage({ folder })).toBe(folder);
    expect(process.env[COVERAGE_VARIABLE]).toBe(folder);
    const child = await startDocsServer({ seed });
    const inProcess = await startDocsServer({ seed, inProcess: true });
    try {
      expect((await child.client.GET('/v1/spaces/{spaceId}', space('guides'))).response.status).toBe(200);
      expect((await inProcess.client.GET('/v1/spaces/{spaceId}', space('missing'))).response.status).toBe(404);
      await inProcess.faults.add({ operation: 'listSpaces', status: 503, times: 1 });
      const once = inProcess.clientWith(inProcess.token, { retry: false });
      expect((await once.GET('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId: 'acme' } } })).response.status).toBe(503);
    } finally {
      await Promise.all([child.stop(), inProcess.stop()]);
    }
    expect(readdirSync(path.join(folder, 'records'))).toHaveLength(2);

    const lines: string[] = [];
    const report = reportCoverage({ folder, log: (line) => lines.push(line) });
    const written = JSON.parse(readFileSync(path.join(folder, 'coverage.json'), 'utf8')) as Coverage & { operations: object };
    expect(written.operations).toEqual(report.coverage.operations);
    expect(report.coverage.operations.getSpace).toEqual({ declared: ['200', '400', '401', '403', '404', '429', '500', '503'], seen: ['200', '404'] });
    expect(report.coverage.operations.listSpaces!.seen).toEqual(['503']);
    expect(report.coverage.operations.createSpace!.seen).toEqual([]);
    const operations = Object.keys(report.coverage.operations).length;
    const responses = Object.values(report.coverage.operations).reduce((sum, entry) => sum + entry.declared.length, 0);
    expect(report.operations).toEqual({ seen: 2, total: operations });
    expect(report.responses).toEqual({ seen: 3, total: responses });
    expect(lines).toEqual([
      `docs-platform-server coverage: 2/${operations} operations seen, 3/${responses} declared responses seen (${((300 / responses)).toFixed(1)} %): ${path.relative(process.cwd(), path.join(folder, 'coverage.md'))}`,
    ]);
    const markdown = readFileSync(path.join(folder, 'coverage.md'), 'utf8');
    expect(markdown).toContain('| `getSpace` | ✓ |  |  | · | · | · | ✓ |  |  |  | · | · | · |');
    expect(markdown.split('\n')[2]).toMatch(/^\| Operation \| 200 \| 201 \| 204 \| 400 \| 401 \| 403 \| 404 \| 409 \| 413 \| 415 \| 429 \| 500 \| 503 \|$/);
    expect(existsSync(path.join(folder, 'records'))).toBe(false);
  }, 60_000);

  test('below the threshold, the report prints its line and throws; a run with no record says nothing, unless a threshold fails it', async () => {
    const folder = path.join(scratch, 'threshold');
    startCoverage({ folder });
    const server = await startDocsServer({ seed, inProcess: true });
    await server.client.GET('/v1/spaces/{spaceId}', space('guides'));
    await server.stop();
    const lines: string[] = [];
    expect(() => reportCoverage({ folder, threshold: 50, log: (line) => lines.push(line) })).toThrow(
      /^docs-platform-server coverage: 0\.\d % of the declared responses seen, below the threshold of 50 %$/,
    );
    expect(lines).toHaveLength(1);
    expect(() => reportCoverage({ folder, log: (line) => lines.push(line) })).not.toThrow();
    expect(lines).toHaveLength(1);
    expect(() => reportCoverage({ folder, threshold: 50, log: (line) => lines.push(line) })).toThrow(/below the threshold of 50 %/);
    expect(lines[1]).toMatch(/^docs-platform-server coverage: no server recorded an answer/);
  }, 60_000);

  test('off unless asked: a server started with coverage: false, or without the variable, records nothing', async () => {
    const folder = path.join(scratch, 'off');
    startCoverage({ folder });
    const server = await startDocsServer({ seed, inProcess: true, coverage: false });
    await server.client.GET('/v1/spaces/{spaceId}', space('guides'));
    await server.stop();
    expect(existsSync(path.join(folder, 'records'))).toBe(false);
  });
});

test('a status that declares several media types is recorded per media type', () => {
  const contract = {
    paths: {
      '/x': {
        get: {
          operationId: 'getX',
          responses: { '200': { content: { 'application/json': {}, 'text/markdown': {} } }, '4XX': { content: { 'application/json': {} } } },
        },
      },
    },
  };
  const folder = path.join(scratch, 'media');
  const recorder = answerRecorder(contract, recordsFolder(folder));
  recorder.answered('getX', 200, 'text/markdown; charset=utf-8');
  recorder.answered('getX', 404, 'application/json');
  recorder.answered('getX', 500, 'application/json'); // not declared: not recorded
  recorder.write();
  const [file] = readdirSync(path.join(folder, 'records'));
  expect(JSON.parse(readFileSync(path.join(folder, 'records', file!), 'utf8'))).toEqual({
    operations: { getX: { declared: ['200 application/json', '200 text/markdown', '4XX'], seen: ['200 text/markdown', '4XX'] } },
  });
});
