// `npm run check` and `npm run lint:spec`: the format check names the files and the command that fixes them; the
// summary names what failed. (The drift and typecheck parts reuse test/support/drift.ts and tsc, checked by
// test/contract/contract.test.ts and by every run of `npm test`.)
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { checkSpecFormat, runChecks } from '../../scripts/check.ts';

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

describe('runChecks', () => {
  test('prints each check and one summary line naming what failed', async () => {
    let output = '';
    const ok = await runChecks(['format'], (text) => (output += text));
    expect(ok).toBe(true);
    expect(output).toMatch(/^check format  ok {4}\d+ spec files formatted\ncheck: all 1 passed \(\d+\.\d s\)\n$/);
  });
});
