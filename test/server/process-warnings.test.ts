// Node's process warnings in the log, but for the one a dependency causes that the server cannot act on: a clean
// start of the compiled server logs nothing at warn; the filter drops that warning alone (its code, from its
// function), and tells when it can go (the installed validator no longer calls url.parse).
// @needs processes
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';
import { KNOWN } from '../../server/start/process-warnings.ts';
import { ok } from '../support/expect.ts';
import { type LogLine, logLines, startInstance } from '../support/instances.ts';
import { repoRoot } from '../support/repo.ts';

const scratch = mkdtempSync(path.join(tmpdir(), 'process-warnings-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('a clean start', () => {
  test('the compiled server, started on an empty DATA_DIR, answering requests through the validator and stopped, logs nothing at warn or above', async () => {
    const server = await startInstance({ DATA_DIR: path.join(scratch, 'clean'), DOCS_API_TOKEN: 'warnings-admin', LOG_FORMAT: 'json' });
    try {
      const client = server.client('warnings-admin');
      // A query, a path parameter and a body: each request runs the validator's parameter mutator (its url.parse).
      ok(await client.GET('/v1/orgs', { params: { query: { limit: 5 } } }));
      const space = ok(await client.POST('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId: 'demo' } }, body: { title: 'Warned' } }), 201);
      ok(await client.GET('/v1/spaces/{spaceId}', { params: { path: { spaceId: space.id } } }));
    } finally {
      await server.stop();
    }
    expect(await server.exited).toBe(0);
    expect(logLines(server).filter((line) => line.level >= 40)).toEqual([]);
    expect(server.output()).not.toMatch(/Warning|DEP0/);
  }, 60_000);
});

/** The file of the installed express-openapi-validator that calls url.parse, and its source. */
const MUTATOR = 'express-openapi-validator/dist/middlewares/parsers/req.parameter.mutator.js';

describe('the warnings dropped (KNOWN in server/start/process-warnings.ts)', () => {
  test('are still caused: the installed express-openapi-validator still calls url.parse in RequestParameterMutator.modifyRequest', () => {
    expect(KNOWN.map(({ code, dependency, caller }) => ({ code, dependency, caller }))).toEqual([
      { code: 'DEP0169', dependency: 'express-openapi-validator', caller: 'RequestParameterMutator.modifyRequest' },
    ]);
    const source = readFileSync(createRequire(path.join(repoRoot, 'package.json')).resolve(MUTATOR), 'utf8');
    const modifyRequest = source.slice(source.indexOf('modifyRequest(req) {'));
    expect(modifyRequest.slice(0, 400), `${MUTATOR} no longer calls url.parse in modifyRequest: delete the entry of KNOWN (server/start/process-warnings.ts) and its paragraph in server/docs/own-pages-cors-logs.md`).toMatch(
      /url\.parse\(req\.originalUrl\)/,
    );
  });

  /**
   * Runs `code` in a Node process whose warnings go to a JSON log on stdout, as the server's do (`logWarnings`), and
   * returns the lines logged. Node warns of a deprecation once a process: each case is a process of its own.
   */
  const warningsOf = (name: string, code: string): LogLine[] => {
    const script = path.join(scratch, `${name}.ts`);
    const module = (file: string) => JSON.stringify(pathToFileURL(path.join(repoRoot, file)).href);
    writeFileSync(
      script,
      [
        `import url from 'node:url';`,
        `import { createLogger } from ${module('server/http/access-log.ts')};`,
        `import { logWarnings } from ${module('server/start/process-warnings.ts')};`,
        `logWarnings(createLogger({ logLevel: 'info', logFormat: 'json' }));`,
        code,
        // Warnings are emitted on the next turn: wait for them.
        `setTimeout(() => {}, 100);`,
      ].join('\n'),
    );
    const output = execFileSync(process.execPath, ['--import', 'tsx', script], { cwd: repoRoot, encoding: 'utf8' });
    return output
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as LogLine);
  };

  test("drop DEP0169 from the validator's function (numbered or not, as esbuild may name its class), and nothing else from it", () => {
    expect(
      warningsOf(
        'validator',
        `class RequestParameterMutator2 { modifyRequest(req: { originalUrl: string }) { return url.parse(req.originalUrl).query; } }
         new RequestParameterMutator2().modifyRequest({ originalUrl: '/v1/orgs?limit=5' });
         class RequestParameterMutator { modifyRequest() { process.emitWarning('another warning', { type: 'DeprecationWarning', code: 'DEP0999' }); } }
         new RequestParameterMutator().modifyRequest();`,
      ),
    ).toEqual([expect.objectContaining({ level: 40, warning: { name: 'DeprecationWarning', code: 'DEP0999' }, msg: 'DeprecationWarning: another warning' })]);
  });

  test('log DEP0169 from any other function, at warn', () => {
    expect(
      warningsOf(
        'elsewhere',
        `class RequestParameterMutatorX { modifyRequest() { return url.parse('/v1/orgs?limit=5').query; } }
         new RequestParameterMutatorX().modifyRequest();`,
      ),
    ).toEqual([expect.objectContaining({ level: 40, warning: { name: 'DeprecationWarning', code: 'DEP0169' }, msg: expect.stringMatching(/^DeprecationWarning: `url\.parse\(\)` behavior is not standardized/) })]);
  });
});
