// `npm run check` and `npm run lint:spec`: the format check names the files and the command that fixes them; the
// summary names what failed. (The drift and typecheck parts reuse scripts/generated-drift.ts and tsc, checked by
// test/contract/contract.test.ts and by every run of `npm test`.)
// @needs processes
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { checkOpenApiLint, checkOperations, checkSpecFormat, operationsInventory, operationsProblems, runChecks, typecheck } from '../../scripts/check.ts';

const scratch = mkdtempSync(path.join(tmpdir(), 'check-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the spec format check', () => {
  test('passes on the committed spec/', async () => {
    expect(await checkSpecFormat()).toMatchObject({ ok: true, summary: expect.stringMatching(/^\d+ spec files formatted$/) });
  });

  test('names each file that needs formatting and the command that fixes it', async () => {
    cpSync('spec', path.join(scratch, 'spec'), { recursive: true });
    const file = path.join(scratch, 'spec/common.tsp');
    writeFileSync(file, `${readFileSync(file, 'utf8')}\nmodel   Untidy {   name: string }\n`);
    const result = await checkSpecFormat(scratch);
    expect(result.ok).toBe(false);
    expect(result.summary).toMatch(/^1 of \d+ spec files need formatting: run `npm run format:spec`$/);
    expect(result.details).toBe('spec/common.tsp');
  });
});

describe('the type-check (TypeScript 7)', () => {
  test('counts the errors of a project, with each under it; the project type-checks once they are fixed', async () => {
    const project = path.join(scratch, 'typed');
    mkdirSync(project, { recursive: true });
    writeFileSync(path.join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, target: 'es2022', module: 'nodenext', types: [] }, include: ['*.ts'] }));
    writeFileSync(path.join(project, 'wrong.ts'), "export const count: number = 'one';\nexport const name: string = 2;\n");
    const failed = await typecheck(project);
    expect(failed).toMatchObject({ ok: false, summary: '2 type error(s)' });
    expect(failed.details).toMatch(/wrong\.ts\(1,14\): error TS2322/);
    writeFileSync(path.join(project, 'wrong.ts'), "export const count: number = 1;\n");
    expect(await typecheck(project)).toEqual({ ok: true, summary: 'the project type-checks' });
  }, 60_000);
});

describe('the OpenAPI lint (Redocly\'s recommended rules)', () => {
  test('names each problem, warnings included, unless the ignore file gives its reason; and a stale ignore entry', async () => {
    const repo = path.join(scratch, 'openapi-lint');
    mkdirSync(path.join(repo, 'generated'), { recursive: true });
    for (const file of ['redocly.yaml', '.redocly.lint-ignore.yaml', 'generated/openapi.yaml']) cpSync(file, path.join(repo, file));
    expect(await checkOpenApiLint(repo)).toEqual({ ok: true, summary: "generated/openapi.yaml passes Redocly's recommended rules (1 problem(s) ignored with their reasons)" });

    const document = path.join(repo, 'generated/openapi.yaml');
    const text = readFileSync(document, 'utf8');
    const line = text.slice(0, text.indexOf('      summary: Get a team\n')).split('\n').length;
    writeFileSync(document, text.replace('      summary: Get a team\n', ''));
    const ignoreFile = path.join(repo, '.redocly.lint-ignore.yaml');
    const ignored = readFileSync(ignoreFile, 'utf8');
    rmSync(ignoreFile);
    const failed = await checkOpenApiLint(repo);
    expect(failed).toMatchObject({
      ok: false,
      summary: 'Redocly reports 2 problem(s) in generated/openapi.yaml: fix them in spec/, or ignore one with its reason in .redocly.lint-ignore.yaml',
    });
    expect(failed.details?.split('\n')).toEqual([
      `error [operation-summary] generated/openapi.yaml:${line - 2}:5 #/paths/~1v1~1orgs~1{organizationId}~1teams~1{teamId}/get/summary: Operation object should contain \`summary\` field.`,
      expect.stringMatching(/^warn \[no-unused-components\] generated\/openapi\.yaml:\d+:\d+ #\/components\/schemas\/Subdomain: /),
    ]);

    writeFileSync(document, text);
    writeFileSync(ignoreFile, `${ignored}  operation-summary:\n    - '#/paths/~1v1~1orgs/get'\n`);
    expect(await checkOpenApiLint(repo)).toEqual({
      ok: false,
      summary: '1 entry(ies) of .redocly.lint-ignore.yaml match no problem: remove them',
      details: '[operation-summary] generated/openapi.yaml #/paths/~1v1~1orgs/get',
    });
  }, 60_000);
});

describe('the operations check', () => {
  test("passes on the repository: every operation of the contract is a handler's or pending", async () => {
    const inventory = await operationsInventory();
    expect([...inventory.handlers.keys()]).toContain('server/handlers/teams.ts');
    expect(inventory.handlers.get('server/handlers/teams.ts')).toContain('getTeam');
    expect((await checkOperations()).ok).toBe(true);
  });

  test('names an operation with neither handler nor pending entry, a pending entry and a handler of no operation, each with its fix', () => {
    const operations = [
      { operationId: 'getTeam', method: 'get', path: '/v1/orgs/{organizationId}/teams/{teamId}' },
      { operationId: 'getTeamStats', method: 'get', path: '/v1/orgs/{organizationId}/teams/{teamId}/stats' },
      { operationId: 'listTeams', method: 'get', path: '/v1/orgs/{organizationId}/teams' },
    ];
    const result = operationsProblems({
      operations,
      handlers: new Map([['server/handlers/teams.ts', ['getTeam', 'renameTeamTwice']]]),
      pending: { listTeams: 'the filters are not written yet', gone: 'removed from the contract' },
    });
    expect(result).toEqual({
      problems: [
        'getTeamStats (GET /v1/orgs/{organizationId}/teams/{teamId}/stats) has no handler: implement it (`npm run scaffold -- getTeamStats` writes a start), or list it in server/handlers/pending.ts with a reason',
        'server/handlers/pending.ts lists gone, which is no operation of the contract: remove its entry',
        'server/handlers/teams.ts has a handler for renameTeamTwice, which is no operation of the contract: remove it (and its domain function, if nothing else uses it)',
      ],
      pending: ['listTeams'],
    });
    // Pending with a handler (a scaffolded one) is pending all the same: not a problem.
    expect(operationsProblems({ operations, handlers: new Map([['server/handlers/teams.ts', ['getTeam', 'getTeamStats', 'listTeams']]]), pending: { getTeamStats: 'scaffolded' } })).toEqual({
      problems: [],
      pending: ['getTeamStats'],
    });
  });
});

describe('runChecks', () => {
  test('prints each check and one summary line naming what failed', async () => {
    let output = '';
    const ok = await runChecks(['format'], (text) => (output += text));
    expect(ok).toBe(true);
    expect(output).toMatch(/^check format  ok {4}\d+ spec files formatted\ncheck: all 1 passed \(\d+\.\d s\)\n$/);
  });
});
