// The conformance runner against a reference server that answers an operation from the contract (it has no handler
// for it: server/http/example-answers.ts): the runner reports that operation as answered from the contract, not as
// exercised, in its text, JSON and JUnit reports, and exits 1.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Report } from '../../conformance/runner/runner.ts';
import type { HandlerTable } from '../../server/handlers/types.ts';
import { repoRoot } from '../support/repo.ts';
import { LOCAL_GIT, RUNNER_TOKEN, runnerFixture } from '../support/runner.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/** The operation the server answers from the contract: one whose answer no later step of the scenario builds on. */
const ANSWERED = 'listSsoLoginInfo';

let server: TestServer;
const scratch = mkdtempSync(path.join(os.tmpdir(), 'conformance-contract-answers-'));

beforeAll(async () => {
  server = await startTestServer({
    fixture: runnerFixture,
    recordCoverage: false,
    env: { ...LOCAL_GIT, LOG_LEVEL: 'silent' },
    handlers: (_ctx, table) => Object.fromEntries(Object.entries(table).filter(([id]) => id !== ANSWERED)) as HandlerTable,
  });
});

afterAll(async () => {
  await server?.close();
  rmSync(scratch, { recursive: true, force: true });
});

function cli(args: string[]): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'conformance/cli.ts', ...args], { cwd: repoRoot });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.resume();
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout }));
  });
}

test('an operation answered from the contract is a violation of its own, not exercised: text, JSON and JUnit say so, exit 1', { timeout: 120_000 }, async () => {
  const reportFile = path.join(scratch, 'report.json');
  const junitFile = path.join(scratch, 'junit.xml');
  const run = await cli(['--base-url', server.url, '--token', RUNNER_TOKEN, '--report', reportFile, '--junit', junitFile, '--examples', '0']);
  expect(run.code, run.stdout).toBe(1);

  const message = /^answered from the contract \(x-contract-answer: (example|schema)\), not by an implementation: the operation is not implemented$/;
  const report = JSON.parse(readFileSync(reportFile, 'utf8')) as Report;
  expect(report.violations.map((violation) => [violation.operationId, violation.kind])).toEqual([[ANSWERED, 'answered-from-contract']]);
  expect(report.violations[0]!.message).toMatch(message);
  expect(report.violations[0]!.response?.status).toBe(200);
  expect(report.notExercised).toEqual([ANSWERED]);
  expect(report.operations[ANSWERED]).toMatchObject({ exercised: false, statuses: expect.arrayContaining([200]) });

  expect(run.stdout).toMatch(new RegExp(`^✗ ${ANSWERED}: answered from the contract \\(x-contract-answer: (example|schema)\\), not by an implementation: the operation is not implemented \\(${ANSWERED}: GET `, 'm'));
  expect(run.stdout).toContain(`not exercised: ${ANSWERED}`);
  expect(run.stdout.trimEnd().split('\n').at(-1)).toBe(`conformance: ${report.summary.operations - 1}/${report.summary.operations} operations exercised, 1 violations`);

  const junit = readFileSync(junitFile, 'utf8');
  const testCase = junit.slice(junit.indexOf(`<testcase name="${ANSWERED}" classname="docs-conformance.scenario"`));
  expect(testCase.slice(0, testCase.indexOf('</testcase>'))).toMatch(/<failure message="answered-from-contract: answered from the contract \(x-contract-answer: (example|schema)\), not by an implementation/);
});
