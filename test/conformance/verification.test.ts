// The provider's can-i-deploy with its implementation (`--verification`, conformance/runner/verification.ts): the runner's
// reports name the contract they checked (version and SHA-256, in the JSON and in each JUnit suite's properties); a
// report, JSON or JUnit, adds the implementation's row to the table; a contract can be deployed only where it conforms
// (every operation checked, none failing); a report of another contract, of an older runner, or that is no report is
// exit 2 naming it, and nothing is printed or written.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { canIDeployMain } from '../../conformance/judgement/can-i-deploy-command.ts';
import { contractIdentity } from '../../conformance/records/consumer.ts';
import { DEFAULT_CONTRACT, loadContract } from '../../conformance/contract/contract.ts';
import { CONTRACT_PROPERTIES, reportJunit } from '../../conformance/runner/junit.ts';
import { type Report, runConformance } from '../../conformance/runner/runner.ts';
import { emptyUsage } from '../../conformance/records/usage-format.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'verification-'));
const consumers = path.join(scratch, 'consumers');
const identity = contractIdentity(loadContract());
const KEPT = ['listOrganizations', 'getOrganization'];
let server: TestServer | undefined;
/** A real run of the runner against the reference server, every operation but KEPT excluded. */
let report: Report;

beforeAll(async () => {
  server = await startTestServer({ recordCoverage: false });
  const exclude = [...loadContract().operations.keys()].filter((id) => !KEPT.includes(id));
  report = await runConformance({ baseUrl: server.url, token: 'admin', exclude, property: false, progress: () => undefined });
  mkdirSync(consumers);
  // A consumer that uses nothing: it can deploy against any contract, so the table's verdict is the implementation's.
  writeFileSync(path.join(consumers, 'quiet.json'), JSON.stringify(emptyUsage({ name: 'quiet' }, identity, 'client')));
}, 120_000);

afterAll(async () => {
  await server?.close();
  rmSync(scratch, { recursive: true, force: true });
});

let written = 0;
/** `report` (or a report made from it) written as the runner writes it: `--report`'s JSON, or `--junit`'s XML. */
function reportFile(value: Report, form: 'json' | 'junit'): string {
  const file = path.join(scratch, `report-${++written}.${form === 'json' ? 'json' : 'xml'}`);
  writeFileSync(file, form === 'json' ? `${JSON.stringify(value, null, 2)}\n` : reportJunit(value));
  return file;
}
/** The run as if every operation had been checked: the excluded ones left out of the report. */
const complete = (): Report => ({ ...report, operations: Object.fromEntries(Object.entries(report.operations).filter(([, operation]) => !operation.excluded)) });

async function deploy(...argv: string[]) {
  let out = '';
  let err = '';
  const code = await canIDeployMain(argv, (text) => void (out += text), (text) => void (err += text));
  return { code, out, err };
}
const implementationRow = (out: string) => out.split('\n').find((line) => line.startsWith('| (implementation) |'));

describe("the runner's reports name the contract they checked", () => {
  test('the JSON report: contractVersion and contractSha256, as a usage record names its contract', () => {
    expect(report.summary).toMatchObject({ exercised: KEPT.length, violations: 0 });
    expect({ version: report.contractVersion, sha256: report.contractSha256 }).toEqual(identity);
  });

  test("the JUnit report: each suite's properties, before its test cases (JUnit's schema)", () => {
    const xml = reportJunit(report);
    expect(XMLValidator.validate(xml)).toBe(true);
    const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => ['testsuite', 'testcase', 'property'].includes(name) }).parse(xml) as {
      testsuites: { testsuite: { properties: { property: { name: string; value: string }[] } }[] };
    };
    for (const suite of parsed.testsuites.testsuite) {
      expect(suite.properties.property).toEqual([
        { name: CONTRACT_PROPERTIES.version, value: identity.version },
        { name: CONTRACT_PROPERTIES.sha256, value: identity.sha256 },
      ]);
    }
    expect(xml).toMatch(/<testsuite [^>]*>\n {4}<properties>/);
  });
});

describe('can-i-deploy --verification', () => {
  test('the run with operations excluded: the implementation is not verified in full, in JSON and JUnit alike (exit 1)', async () => {
    const excluded = Object.values(report.operations).filter((operation) => operation.excluded).length;
    const json = path.join(scratch, 'deploy.json');
    for (const form of ['json', 'junit'] as const) {
      const table = await deploy('--consumers', consumers, '--contract', DEFAULT_CONTRACT, '--base', DEFAULT_CONTRACT, '--verification', reportFile(report, form), '--json', json);
      expect(table.code, form).toBe(1);
      expect(table.out.split('\n'), form).toEqual([`| Consumer | ${DEFAULT_CONTRACT} |`, '|---|---|', '| quiet | ✓ |', `| (implementation) | ✗ ${excluded} not checked |`, '']);
      const cells = JSON.parse(readFileSync(json, 'utf8')) as Record<string, Record<string, unknown>>;
      expect(cells.quiet).toEqual({ [DEFAULT_CONTRACT]: { verdict: 'untouched', judgedBy: { change: DEFAULT_CONTRACT }, breaks: [], warnings: [], notes: [] } });
      expect(cells['(implementation)']![DEFAULT_CONTRACT]).toHaveLength(excluded);
      expect(cells['(implementation)']![DEFAULT_CONTRACT]).toContain('not checked: createSpace: excluded');
    }
  });

  test('every operation checked, none failing: it conforms, and the provider can deploy (exit 0); a violation fails it, named', async () => {
    for (const form of ['json', 'junit'] as const) {
      const table = await deploy('--consumers', consumers, '--contract', DEFAULT_CONTRACT, '--verification', reportFile(complete(), form));
      expect(table, form).toMatchObject({ code: 0, err: '' });
      expect(implementationRow(table.out), form).toBe(`| (implementation) | ✓ conforms (${KEPT.length} operations) |`);
    }
    const violation = { operationId: 'getOrganization', kind: 'body-schema', message: "body must have required property 'id'", step: 'getOrganization', request: { method: 'GET', url: `${server!.url}/v1/orgs/acme` } };
    const checked = complete();
    const violated = {
      ...checked,
      operations: { ...checked.operations, getOrganization: { ...checked.operations.getOrganization!, violations: [violation] } },
      violations: [violation],
      summary: { ...report.summary, violations: 1 },
    };
    const json = path.join(scratch, 'violated.json');
    for (const form of ['json', 'junit'] as const) {
      const table = await deploy('--consumers', consumers, '--contract', DEFAULT_CONTRACT, '--verification', reportFile(violated as Report, form), '--json', json);
      expect(table.code, form).toBe(1);
      expect(implementationRow(table.out), form).toBe('| (implementation) | ✗ 1 failing |');
      expect((JSON.parse(readFileSync(json, 'utf8')) as Record<string, Record<string, string[]>>)['(implementation)']![DEFAULT_CONTRACT]![0]).toMatch(/^getOrganization: (scenario: )?body-schema: body must have required property 'id'/);
    }
  });

  test('a contract no report checked is not verified: it cannot be deployed (exit 1)', async () => {
    const other = path.join(scratch, 'other-contract.json');
    writeFileSync(other, JSON.stringify({ ...loadContract().document, info: { ...loadContract().document.info, version: '9.0.0' } }));
    const table = await deploy('--consumers', consumers, '--contract', DEFAULT_CONTRACT, '--contract', other, '--verification', reportFile(complete(), 'json'));
    expect(table.code).toBe(1);
    expect(implementationRow(table.out)).toBe(`| (implementation) | ✓ conforms (${KEPT.length} operations) | ✗ not verified |`);
  });

  test('a report of another contract, of an older runner, or no report at all: exit 2 naming the file; nothing printed or written', async () => {
    const json = path.join(scratch, 'never.json');
    const another = reportFile({ ...complete(), contractVersion: '0.9.0' }, 'junit');
    const older = path.join(scratch, 'older.json');
    const { contractVersion: _version, contractSha256: _sha256, ...withoutContract } = complete();
    writeFileSync(older, JSON.stringify(withoutContract));
    const record = path.join(consumers, 'quiet.json');
    const cases: [string, string][] = [
      [another, `a report of contract 0.9.0 (SHA-256 ${identity.sha256!.slice(0, 12)}…), not of a contract asked about: ${DEFAULT_CONTRACT} is ${identity.version} (SHA-256 ${identity.sha256!.slice(0, 12)}…)`],
      [older, 'the report does not name the contract it checked (its version and SHA-256): write it again with this docs-conformance'],
      [record, 'not a report of the conformance runner (docs-conformance --report or --junit)'],
      [path.join(scratch, 'missing.json'), 'no such file'],
    ];
    for (const [file, problem] of cases) {
      const refused = await deploy('--consumers', consumers, '--contract', DEFAULT_CONTRACT, '--verification', file, '--json', json);
      expect(refused, file).toEqual({ code: 2, out: '', err: `can-i-deploy: ${file}: ${problem}\n` });
      expect(existsSync(json)).toBe(false);
    }
    const consumerForm = await deploy('--usage', record, '--contract', DEFAULT_CONTRACT, '--verification', reportFile(complete(), 'json'));
    expect(consumerForm).toMatchObject({ code: 2, out: '', err: expect.stringMatching(/^can-i-deploy: --verification goes with --consumers/) });
  });
});
