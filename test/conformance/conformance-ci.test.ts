// The conformance runner as CI meets it: against a reference server that refuses private networks, with content from
// the Git import of the runner's repository; its JUnit report; SIGINT and SIGTERM deleting what the run created; an
// unreachable base URL or a wrong token stopped at the preflight in one line.
// The details: test/README.md, "The runner as CI meets it".
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createDocsClient } from '../../client/index.ts';
import { loadContract } from '../../conformance/contract/contract.ts';
import { junitXml } from '../../conformance/runner/junit.ts';
import type { Report } from '../../conformance/runner/runner.ts';
import type { SeedFixture } from '../../server/start/seed.ts';
import { repoRoot } from '../support/repo.ts';
import { LOCAL_GIT, RUNNER_TOKEN, runnerOrganizations, runnerUser } from '../support/runner.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const TOKEN = RUNNER_TOKEN;
/** Admin of `initech` only: the interrupted runs work there (transfers to the same organization), apart from the others. */
const SIGNAL_TOKEN = 'signal-token';

const fixture: SeedFixture = {
  users: [runnerUser, { id: 'stopper', displayName: 'Interrupted Runner', email: 'stopper@initech.test', tokens: [SIGNAL_TOKEN] }],
  organizations: [
    ...runnerOrganizations,
    { id: 'initech', title: 'Initech', emailDomains: ['initech.test'], members: [{ user: 'stopper', role: 'admin' }] },
  ],
};

const OPERATIONS = loadContract().operations.size;

/** What needs the implementation to reach the runner's own HTTP server: the website imports and the tunnel. */
const NEED_ADDRESS = ['enableIntegrationDevMode', 'importChangeRequestContent', 'importSpaceContent'];

let server: TestServer;
const scratch = mkdtempSync(path.join(os.tmpdir(), 'conformance-ci-test-'));

beforeAll(async () => {
  server = await startTestServer({
    fixture,
    recordCoverage: false,
    // The default: outbound requests to private addresses refused. Local Git stays on: it is not the network path.
    env: { VALIDATE_RESPONSES: 'false', ALLOW_PRIVATE_NETWORKS: 'false', ...LOCAL_GIT },
  });
});

afterAll(async () => {
  await server?.close();
  rmSync(scratch, { recursive: true, force: true });
});

/**
 * JUnit's `time` attributes as its schema has them (xs:decimal, seconds): on the report, on every suite and every test
 * case; a suite's is the sum of its test cases' (to rounding), the report's the run's duration when given.
 */
function expectJunitTimes(
  testsuites: { time: string; testsuite: { name: string; time: string; testcase: { name: string; time: string }[] }[] },
  durationMs?: number,
): void {
  const decimal = /^\d+(\.\d+)?$/;
  expect(testsuites.time).toMatch(decimal);
  if (durationMs !== undefined) expect(Number(testsuites.time)).toBeCloseTo(durationMs / 1000, 3);
  for (const suite of testsuites.testsuite) {
    expect(suite.time, suite.name).toMatch(decimal);
    for (const testcase of suite.testcase) expect(testcase.time, `${suite.name} ${testcase.name}`).toMatch(decimal);
    const sum = suite.testcase.reduce((total, testcase) => total + Number(testcase.time), 0);
    expect(Math.abs(Number(suite.time) - sum), suite.name).toBeLessThanOrEqual(0.0005 * (suite.testcase.length + 1));
  }
}

/** Runs the command and collects its output and exit code; `onStderr` sees stderr as it comes. */
function cli(args: string[], onStderr?: (text: string, child: ReturnType<typeof spawn>) => void) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'conformance/cli.ts', ...args], { cwd: repoRoot });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      onStderr?.(stderr, child);
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe.concurrent('the runner against a server that refuses private networks', () => {
  test('exercises everything but what needs its address, names those with the reason, and writes JUnit', { timeout: 180_000 }, async () => {
    const junit = path.join(scratch, 'junit.xml');
    const reportFile = path.join(scratch, 'report.json');
    // One generated request per operation in the property phase: its suites are in the JUnit report all the same.
    const run = await cli(['--base-url', server.url, '--token', TOKEN, '--seed', '11', '--examples', '1', '--junit', junit, '--report', reportFile]);
    const report = JSON.parse(readFileSync(reportFile, 'utf8')) as Report;
    expect(report.violations, run.stdout).toEqual([]);
    expect(report.notExercised.sort()).toEqual(NEED_ADDRESS);
    expect(Object.keys(report.notExercisedReasons).sort()).toEqual(NEED_ADDRESS);
    for (const id of NEED_ADDRESS) expect(report.notExercisedReasons[id]).toMatch(/^needs the implementation to reach the runner's address \(--serve-host\): answered 400/);
    // The pages and the image came from the runner's Git repository: the file operations were exercised.
    expect(report.contentSource).toBe('git');
    expect(report.operations.getSpaceFile!.exercised).toBe(true);
    expect(report.operations.getChangeRequestFile!.exercised).toBe(true);
    expect(report.notes).toEqual([expect.stringMatching(/^content: the website import did not succeed \(status 400\): the content comes from refs\/heads\/docs-conformance-content/)]);
    expect(report.summary).toMatchObject({ operations: OPERATIONS, exercised: OPERATIONS - 3, violations: 0 });

    // The command: exit 4 (no violation, operations skipped), one hint line, the reasons, a progress line per group on stderr.
    expect(report.skipped?.sort()).toEqual(NEED_ADDRESS);
    expect(run.code).toBe(4);
    expect(run.stdout).toContain(`skipped (not exercised, for the reason given): ${report.skipped!.join(', ')}`);
    expect(run.stdout).not.toMatch(/^not exercised: /m);
    const hints = run.stdout.split('\n').filter((line) => line.startsWith('hint: '));
    expect(hints).toHaveLength(1);
    expect(hints[0]).toContain('--serve-host');
    // The reference server's setting as the README gives it, with the runner's address.
    expect(hints[0]).toContain('ALLOW_PRIVATE_ADDRESSES=127.0.0.1)');
    expect(hints[0]).not.toContain('ALLOW_PRIVATE_NETWORKS');
    expect(run.stdout).toContain('  importSpaceContent: needs the implementation to reach the runner');
    expect(run.stdout.trimEnd().split('\n').at(-1)).toBe(`conformance: ${OPERATIONS - 3}/${OPERATIONS} operations exercised, 0 violations`);
    for (const group of ['setup', 'collections', 'content', 'change requests', 'sites', 'git', 'shared resources']) {
      expect(run.stderr).toMatch(new RegExp(`^docs-conformance: ${group}: \\d+ calls, 0 violations, \\d+/${OPERATIONS} operations exercised so far`, 'm'));
    }

    // JUnit: well-formed, one test case per operation and check, the unexercised ones failing with their reason.
    const xml = readFileSync(junit, 'utf8');
    expect(XMLValidator.validate(xml)).toBe(true);
    const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => ['testsuite', 'testcase'].includes(name) }).parse(xml) as {
      testsuites: { tests: string; failures: string; skipped: string; time: string; testsuite: { name: string; time: string; testcase: { name: string; time: string; failure?: { message: string; '#text': string }; skipped?: { message: string } }[] }[] };
    };
    // Times in seconds (xs:decimal, as JUnit's schema has them): each test case's from its requests' durations, each
    // suite's their sum, the whole report's the run's duration.
    expectJunitTimes(parsed.testsuites, report.durationMs);
    const timeOf = (suite: string, operationId: string) =>
      Number(parsed.testsuites.testsuite.find((candidate) => candidate.name === suite)!.testcase.find((testcase) => testcase.name === operationId)!.time);
    const msOf = (operationId: string, kinds: string[]) =>
      report.calls.filter((call) => call.operationId === operationId && kinds.includes(call.kind)).reduce((sum, call) => sum + call.ms, 0);
    expect(timeOf('scenario', 'createSpace')).toBeCloseTo(msOf('createSpace', ['scenario', 'poll', 'cleanup']) / 1000, 3);
    expect(timeOf('invalid-input', 'createSpace')).toBeCloseTo(msOf('createSpace', ['invalid']) / 1000, 3);
    expect(parsed.testsuites.testsuite.find((suite) => suite.name === 'scenario')!.testcase.some((testcase) => Number(testcase.time) > 0)).toBe(true);
    const scenario = parsed.testsuites.testsuite.find((suite) => suite.name === 'scenario')!;
    expect(scenario.testcase).toHaveLength(OPERATIONS);
    // The operations skipped are <skipped> test cases with their reason, not failures.
    expect(scenario.testcase.filter((testcase) => testcase.failure)).toEqual([]);
    const skippedCases = scenario.testcase.filter((testcase) => testcase.skipped);
    expect(skippedCases.map((testcase) => testcase.name).sort()).toEqual(report.notExercised.sort());
    expect(skippedCases.find((testcase) => testcase.name === 'importSpaceContent')!.skipped!.message).toMatch(/^not exercised: needs the implementation to reach the runner's address/);
    const invalid = parsed.testsuites.testsuite.find((suite) => suite.name === 'invalid-input')!;
    expect(invalid.testcase.length).toBeGreaterThan(50);
    expect(invalid.testcase.every((testcase) => !testcase.failure)).toBe(true);
    // The property phase's checks are suites of their own, one test case per operation checked.
    const noServerError = parsed.testsuites.testsuite.find((suite) => suite.name === 'no-5xx')!;
    expect(noServerError.testcase.length).toBe(report.property!.results.filter((result) => result.checkId === 'no-5xx').length);
    expect(noServerError.testcase.length).toBeGreaterThan(100);
    expect(Number(parsed.testsuites.failures)).toBe(0);
    expect(Number(parsed.testsuites.skipped)).toBe(3);
  });

  test('SIGINT and SIGTERM delete what the run created, then exit 130 and 143', { timeout: 300_000 }, async () => {
    const interrupted = (signal: NodeJS.Signals, afterGroup: string) =>
      cli(['--base-url', server.url, '--token', SIGNAL_TOKEN], (stderr, child) => {
        if (stderr.includes(`docs-conformance: ${afterGroup}: `) && child.signalCode === null && !stderr.includes(signal)) child.kill(signal);
      });
    const [int, term] = await Promise.all([interrupted('SIGINT', 'content'), interrupted('SIGTERM', 'spaces')]);
    expect(int.code, int.stdout + int.stderr).toBe(130);
    expect(term.code, term.stdout + term.stderr).toBe(143);
    expect(int.stdout).toContain('interrupted by SIGINT');
    expect(term.stdout).toContain('interrupted by SIGTERM');

    // Read back through the API: nothing named by the runner is left in its organization.
    const client = createDocsClient({ baseUrl: server.url, token: SIGNAL_TOKEN, throwOnError: true });
    const org = { params: { path: { organizationId: 'initech' } } };
    const spaces = (await client.GET('/v1/orgs/{organizationId}/spaces', org)).data.items;
    const collections = (await client.GET('/v1/orgs/{organizationId}/collections', org)).data.items;
    const sites = (await client.GET('/v1/orgs/{organizationId}/sites', org)).data.items;
    const teams = (await client.GET('/v1/orgs/{organizationId}/teams', org)).data.items;
    const saml = (await client.GET('/v1/orgs/{organizationId}/saml', org)).data.items;
    // Both runs got past creating the shared spaces and collections before their signal.
    expect(int.stderr).toMatch(/^docs-conformance: spaces: [1-9]/m);
    expect([...spaces, ...collections, ...sites, ...teams].map((item) => item.title).filter((title) => title.startsWith('Conformance'))).toEqual([]);
    expect(saml).toEqual([]);
  });

  test('preflight: a wrong token and an unreachable address stop at once, with exit 3 and the cause in one line', { timeout: 90_000 }, async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      });
    });
    const [wrongToken, unreachable, notTheApi] = await Promise.all([
      cli(['--base-url', server.url, '--token', 'not-a-token']),
      cli(['--base-url', `http://127.0.0.1:${closedPort}`, '--token', TOKEN]),
      cli(['--base-url', `${server.url}/v1`, '--token', TOKEN]),
    ]);
    for (const [run, cause] of [
      [wrongToken, /^docs-conformance: the token was refused: GET \/v1\/orgs\?limit=1000 answered 401 \(.+\): check --token$/],
      [unreachable, new RegExp(`^docs-conformance: cannot reach http://127\\.0\\.0\\.1:${closedPort} \\(ECONNREFUSED\\): check --base-url`)],
      [notTheApi, /^docs-conformance: .* does not answer like the API: .* answered 404.*check --base-url/],
    ] as const) {
      expect(run.code, run.stderr).toBe(3);
      expect(run.stdout).toBe('');
      expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(run.stderr.trimEnd()).toMatch(cause);
    }
  });
});

describe('the JUnit writer', () => {
  test('the JUnit writer escapes what XML cannot hold and gives the request and the answer of each failure', () => {
    const nasty = 'a <b> & "c" \'d\' \u0000\u0007 \ud800 ]]> 👍';
    const xml = junitXml([
      { operationId: 'getSpace', checkId: 'no-5xx', ok: false, message: `boom ${nasty}`, request: { method: 'GET', url: 'http://x/v1/spaces/a?b=1&c=2', body: { title: nasty } }, response: { status: 500, body: `<html>${nasty}</html>` } },
      { operationId: 'getSpace', checkId: 'no-5xx', ok: false, message: 'second', request: { method: 'GET', url: 'http://x/v1/spaces/b' } },
      { operationId: 'listSpaces', checkId: 'no-5xx', ok: true, message: 'fine' },
      { operationId: `op${nasty}`, checkId: `check${nasty}`, ok: true, message: '' },
    ]);
    expect(XMLValidator.validate(xml)).toBe(true);
    const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml) as {
      testsuites: { tests: string; failures: string; testsuite: { name: string; testcase: unknown }[] };
    };
    expect(parsed.testsuites).toMatchObject({ tests: '3', failures: '1' });
    const [suite] = parsed.testsuites.testsuite;
    const [failed, passedCase] = suite!.testcase as { name: string; failure?: { message: string; '#text': string } }[];
    expect(failed).toMatchObject({ name: 'getSpace' });
    expect(passedCase).toMatchObject({ name: 'listSpaces' });
    expect(passedCase!.failure).toBeUndefined();
    expect(failed!.failure!.message).toContain('(and 1 more)');
    const text = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', processEntities: true, htmlEntities: true }).parse(xml) as typeof parsed;
    const body = ((text.testsuites.testsuite[0]!.testcase as { failure: { '#text': string } }[])[0]!.failure['#text']);
    expect(body).toContain('request: GET http://x/v1/spaces/a?b=1&c=2');
    expect(body).toContain('response: 500');
    expect(body).toContain('<html>a <b> & "c"');
    expect(body).toContain('request: GET http://x/v1/spaces/b\nresponse: none');
  });

  test('the JUnit writer gives each test case, suite and the report a time in seconds, from the requests made', () => {
    const calls = [
      { operationId: 'getSpace', kind: 'scenario', ms: 120 },
      { operationId: 'getSpace', kind: 'poll', ms: 30 },
      { operationId: 'getSpace', kind: 'invalid', ms: 45 },
      { operationId: 'getSpace', kind: 'property', ms: 300 },
      { operationId: 'listSpaces', kind: 'cleanup', ms: 7 },
    ] as const;
    const results = [
      { operationId: 'getSpace', checkId: 'scenario', ok: true, message: '' },
      { operationId: 'listSpaces', checkId: 'scenario', ok: false, message: 'not exercised' },
      { operationId: 'getSpace', checkId: 'invalid-input', ok: true, message: '' },
      // The property phase's requests serve all the operation's property checks: shared evenly.
      { operationId: 'getSpace', checkId: 'no-5xx', ok: true, message: '' },
      { operationId: 'getSpace', checkId: 'status-declared', ok: true, message: '' },
    ];
    const parse = (xml: string) =>
      new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => ['testsuite', 'testcase'].includes(name) }).parse(xml) as {
        testsuites: { time: string; testsuite: { name: string; time: string; testcase: { name: string; time: string }[] }[] };
      };
    const xml = junitXml(results, { calls, durationMs: 2_500, skipped: ['deleteSpace'] });
    expect(XMLValidator.validate(xml)).toBe(true);
    const { testsuites } = parse(xml);
    expectJunitTimes(testsuites, 2_500);
    const times = Object.fromEntries(testsuites.testsuite.map((suite) => [suite.name, { suite: suite.time, cases: Object.fromEntries(suite.testcase.map((testcase) => [testcase.name, testcase.time])) }]));
    expect(times).toEqual({
      scenario: { suite: '0.157', cases: { getSpace: '0.150', listSpaces: '0.007', deleteSpace: '0.000' } },
      'invalid-input': { suite: '0.045', cases: { getSpace: '0.045', deleteSpace: '0.000' } },
      'no-5xx': { suite: '0.150', cases: { getSpace: '0.150', deleteSpace: '0.000' } },
      'status-declared': { suite: '0.150', cases: { getSpace: '0.150', deleteSpace: '0.000' } },
    });
    expect(testsuites.time).toBe('2.500');
    // Without the run's duration, the report's time is the sum of its suites'; without calls, every time is 0.
    expect(parse(junitXml(results, { calls })).testsuites.time).toBe('0.502');
    expect(parse(junitXml(results)).testsuites.testsuite.flatMap((suite) => [suite.time, ...suite.testcase.map((testcase) => testcase.time)])).toEqual(Array(9).fill('0.000'));
  });
});

// A server allowed to reach only the runner (ALLOW_PRIVATE_ADDRESSES=127.0.0.1, no private networks, no local Git):
// every operation exercised with no violation, the Git export and import over HTTP to the runner. That is the README's
// npx flow, which test/tooling/server-package.test.ts runs as written with the installed packages.

