// `npm run check` and `npm run lint:spec`: the format check names the files and the command that fixes them; the
// summary names what failed. (The drift and typecheck parts reuse test/support/drift.ts and tsc, checked by
// test/contract/contract.test.ts and by every run of `npm test`.)
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { checkSpecFormat, runChecks, typecheck } from '../../scripts/check.ts';

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

describe('runChecks', () => {
  test('prints each check and one summary line naming what failed', async () => {
    let output = '';
    const ok = await runChecks(['format'], (text) => (output += text));
    expect(ok).toBe(true);
    expect(output).toMatch(/^check format  ok {4}\d+ spec files formatted\ncheck: all 1 passed \(\d+\.\d s\)\n$/);
  });
});
