// The conformance runner (conformance/): against the reference server it exercises every operation of the contract
// with no violation; against a server broken on purpose it names each fault; as a command it prints its last line
// and exits 0 only when everything conforms.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadContract } from '../../conformance/contract/contract.ts';
import { passed, type Report, runConformance, summaryLine } from '../../conformance/runner/runner.ts';
import { bodySchemaPointer, validatorOf } from '../../conformance/contract/validate.ts';
import { notFound } from '../../server/common/errors.ts';
import { type Connection, SqliteStore } from '../../server/store/sqlite/store.ts';
import { repoRoot } from '../support/repo.ts';
import { LOCAL_GIT, RUNNER_TOKEN, runnerFixture } from '../support/runner.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const TOKEN = RUNNER_TOKEN;

const fixture = runnerFixture;

const OPERATIONS = loadContract().operations.size;

/** The operations the broken server breaks: a wrong shape, a 500, and one answered as if it had no route. */
const BROKEN = ['getOrganization', 'listSsoLoginInfo', 'listTeams'];

// Both servers answer every operation here, so they do not count in the suite's operation coverage (the group
// tests must exercise each operation themselves). The runner validates every response against the contract, so
// the reference server's own response validation is off: it would only double the cost of each operation's
// first request (its validator compiles per route).
// The runner's Git steps use a bare repository it creates in the system's temporary folder (LOCAL_GIT).

let reference: TestServer;
let broken: TestServer;
/** Every SQL text the reference server prepared while the runner exercised it (see "the reference server's queries"). */
const preparedSql = new Set<string>();
const scratch = mkdtempSync(path.join(os.tmpdir(), 'conformance-test-'));

beforeAll(async () => {
  [reference, broken] = await Promise.all([
    startTestServer({ fixture, recordCoverage: false, env: { VALIDATE_RESPONSES: 'false', ...LOCAL_GIT } }),
    startTestServer({
      fixture,
      recordCoverage: false,
      // Response validation off, so that the wrong shape goes out as it is; the crash is expected: not logged.
      env: { VALIDATE_RESPONSES: 'false', LOG_LEVEL: 'silent', ...LOCAL_GIT },
      handlers: (_ctx, table) => ({
        ...table,
        getOrganization: async () => ({ status: 200, body: { object: 'organization' } }) as never,
        listTeams: async () => {
          throw new Error('boom');
        },
        // What the app's fallback answers for a path it does not route: the operation is missing.
        listSsoLoginInfo: async ({ params }) => {
          throw notFound(`route GET /v1/orgs/${params.organizationId}/sso`);
        },
      }),
    }),
  ]);
});

beforeAll(() => {
  // Every SQL text the store runs goes through its statement cache.
  const store = reference.running.ctx.store as SqliteStore;
  const statement = store.statement.bind(store);
  store.statement = (source: string) => {
    preparedSql.add(source);
    return statement(source);
  };
});

afterAll(async () => {
  await Promise.all([reference?.close(), broken?.close()]);
  rmSync(scratch, { recursive: true, force: true });
});

describe('runConformance', () => {
  test('against the reference server: every operation exercised, no violation', { timeout: 180_000 }, async () => {
    // A fixed seed: the suite must not depend on luck (test/conformance/conformance-property.test.ts explores other seeds' checks).
    const report = await runConformance({ baseUrl: reference.url, token: TOKEN, property: { seed: 7 } });
    expect(report.violations).toEqual([]);
    expect(report.notes).toEqual([]);
    expect(report.notExercised).toEqual([]);
    expect(report.summary).toEqual({ operations: OPERATIONS, exercised: OPERATIONS, violations: 0, excluded: 0 });
    expect(summaryLine(report)).toBe(`conformance: ${OPERATIONS}/${OPERATIONS} operations exercised, 0 violations`);
    expect(passed(report)).toBe(true);
    expect(report).toMatchObject({ baseUrl: reference.url, organization: 'acme', targetOrganization: 'globex' });
    expect(report.operations.transferSpace).toMatchObject({ method: 'POST', path: '/v1/spaces/{spaceId}/transfer', exercised: true });
    expect(report.operations.transferSpace!.statuses).toContain(200);
    // Invalid inputs were sent and rejected: sealed bodies, required properties, limits, maxLength.
    expect(report.operations.createSpace!.invalidInputs).toBeGreaterThanOrEqual(2);
    expect(report.operations.listMembers!.statuses).toEqual(expect.arrayContaining([200, 400]));
    expect(report.calls.filter((call) => call.kind === 'invalid').every((call) => call.status === 400)).toBe(true);
  });

  // Each query finds its rows through an index: a full scan of a table costs more as the data grows, on every call
  // (removing a space from the full-text index read the whole index on every content change). SQLite's plan for
  // each SQL text the server prepared for the run above names every table it reads from start to end.
  test("the reference server's queries scan no table whole", () => {
    expect(preparedSql.size).toBeGreaterThan(100);
    const scans = fullScans((reference.running.ctx.store as SqliteStore).connection, preparedSql);
    // Read whole by design: the catalog of integrations, global, is counted whole, and its pages, filtered on its
    // rows' JSON fields, read it in the order of the names (integrationsPage in server/domain/integration-lists.ts).
    const byDesign = /^SCAN integrations\b.*from "integrations" where \("visibility" = \?/;
    expect(scans.filter((scan) => byDesign.test(scan)).length).toBeGreaterThan(0);
    expect(scans.filter((scan) => !byDesign.test(scan))).toEqual([]);
  });

  // A page of a list is read in the order of an index, so it costs the same however long the list: a plan that sorts
  // the rows of a page query (one with `LIMIT ?`, the keyset queries of server/http/pagination.ts) reads and sorts
  // every row of the list that passes its filters, on every page.
  test("the reference server's pages of lists sort no list", () => {
    const sorts = pageSorts((reference.running.ctx.store as SqliteStore).connection, preparedSql);
    expect(preparedSql.size).toBeGreaterThan(100);
    // Sorted by design, each a list of rows found by something other than the list's order: the organizations of a
    // user (through the user's memberships, a few), the results of a full-text search (by relevance, which only the
    // search gives) and the commenters of a discussion (grouped from its comments). Not lists either, the job
    // runner's claims: the running jobs whose lease ran out, and the first queued job of each resource (one row per
    // resource, found by walking the queue's index), each set ordered to take the oldest first.
    const byDesign = [
      /from "jobs" where "status" = \? and \("lease_until" is null or "lease_until" < /,
      /: WITH RECURSIVE waiting \(resource\) AS \( SELECT lowest\.resource FROM \(SELECT resource FROM jobs WHERE status = 'queued'/,
      /from "organizations" inner join "members" on "members"\."organization_id" = "organizations"\."id" and "members"\."user_id" = \?/,
      /FROM content_search (CROSS JOIN spaces .* )?WHERE content_search MATCH \?.* ORDER BY content_search\.rank,/,
      /from \(select "comments"\."posted_by", min\("comments"\."posted_at"\) as "first_posted_at" from "comments" .* group by "comments"\."posted_by"\) as "commenters"/,
    ];
    for (const reason of byDesign) expect(sorts.filter((sort) => reason.test(sort)).length).toBeGreaterThan(0);
    expect(sorts.filter((sort) => !byDesign.some((reason) => reason.test(sort)))).toEqual([]);
  });

  test('against a broken server: names the wrong shape, the 500 and the missing operation', { timeout: 60_000 }, async () => {
    // The scenario's findings alone (the property phase finds more on this server: test/conformance/conformance-property.test.ts).
    const report = await runConformance({ baseUrl: broken.url, token: TOKEN, property: false });
    expect(passed(report)).toBe(false);
    expect(report.notExercised.sort()).toEqual(BROKEN);
    expect(report.violations.map((violation) => violation.operationId).sort()).toEqual(BROKEN);
    expect(summaryLine(report)).toBe(`conformance: ${OPERATIONS - 3}/${OPERATIONS} operations exercised, 3 violations`);

    const [shape] = report.operations.getOrganization!.violations;
    expect(shape).toMatchObject({
      kind: 'body-schema',
      request: { method: 'GET', url: `${broken.url}/v1/orgs/acme` },
      response: { status: 200 },
    });
    expect(shape!.message).toContain("body must have required property 'id'");

    // The contract declares 500 on every operation (a generic failure): a request the scenario expects to succeed
    // answered with it is the violation.
    const [crash] = report.operations.listTeams!.violations;
    expect(crash).toMatchObject({ kind: 'unexpected-status', response: { status: 500 } });
    expect(crash!.message).toMatch(/^expected 200, got 500/);
    expect(crash!.request.url).toMatch(new RegExp(`^${broken.url}/v1/orgs/acme/teams`));

    const [missing] = report.operations.listSsoLoginInfo!.violations;
    expect(missing).toMatchObject({ kind: 'unexpected-status', response: { status: 404 } });
    expect(missing!.message).toMatch(/^expected 200, got 404/);
    expect(report.operations.listSsoLoginInfo).toMatchObject({ exercised: false, statuses: [404] });
  });

  test('an excluded operation is neither called nor required', { timeout: 60_000 }, async () => {
    const report = await runConformance({ baseUrl: broken.url, token: TOKEN, exclude: BROKEN, property: false });
    expect(report.violations).toEqual([]);
    expect(report.notExercised).toEqual([]);
    expect(report.summary).toEqual({ operations: OPERATIONS, exercised: OPERATIONS - 3, violations: 0, excluded: 3 });
    expect(summaryLine(report)).toBe(`conformance: ${OPERATIONS - 3}/${OPERATIONS - 3} operations exercised, 0 violations`);
    expect(passed(report)).toBe(true);
    for (const id of BROKEN) expect(report.operations[id]).toMatchObject({ excluded: true, exercised: false, calls: 0 });
  });
});

/** Runs the command (`node --import tsx conformance/cli.ts …`) and collects its output and exit code. */
function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'conformance/cli.ts', ...args], { cwd: repoRoot });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const lastLine = (text: string) => text.trimEnd().split('\n').at(-1);

// The commands are processes of their own: they run at the same time (runs do not disturb each other: each names
// what it creates after a random run id).
describe.concurrent('the command', () => {
  test('prints the summary as its last line, writes the report, and exits 0 or 1', { timeout: 60_000 }, async () => {
    const goodReport = path.join(scratch, 'reference.json');
    const badReport = path.join(scratch, 'broken.json');
    // The servers already ran the scenario once: a second run must pass as well (the first cleaned up after itself).
    const [good, bad] = await Promise.all([
      // --examples 0: the scenario alone (the property phase has its own tests).
      cli(['--base-url', reference.url, '--token', TOKEN, '--report', goodReport, '--examples', '0']),
      cli(['--base-url', broken.url, '--token', TOKEN, '--report', badReport, '--examples', '0']),
    ]);
    expect(lastLine(good.stdout), good.stdout + good.stderr).toBe(`conformance: ${OPERATIONS}/${OPERATIONS} operations exercised, 0 violations`);
    expect(good.code).toBe(0);
    const written = JSON.parse(readFileSync(goodReport, 'utf8')) as Report;
    expect(written.summary).toEqual({ operations: OPERATIONS, exercised: OPERATIONS, violations: 0, excluded: 0 });
    expect(Object.keys(written.operations)).toHaveLength(OPERATIONS);

    expect(lastLine(bad.stdout)).toBe(`conformance: ${OPERATIONS - 3}/${OPERATIONS} operations exercised, 3 violations`);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain('✗ listTeams: expected 200, got 500');
    expect(bad.stdout).toContain('not exercised: getOrganization, listSsoLoginInfo, listTeams');
    expect((JSON.parse(readFileSync(badReport, 'utf8')) as Report).summary.violations).toBe(3);
  });

  test('missing arguments are a usage error: exit 2 with the usage', async () => {
    const [noBase, noToken, unknownOption] = await Promise.all([
      cli(['--token', TOKEN]),
      cli(['--base-url', reference.url]),
      cli(['--base-url', reference.url, '--token', TOKEN, '--exclude', 'noSuchOperation']),
    ]);
    for (const [run, message] of [
      [noBase, '--base-url is required'],
      [noToken, '--token is required'],
      [unknownOption, '--exclude names no operation of the contract: noSuchOperation'],
    ] as const) {
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(message);
      expect(run.stderr).toContain('Usage: docs-conformance --base-url URL --token TOKEN');
      expect(run.stdout).toBe('');
    }
  });
});

describe('the response validator', () => {
  test("a schema that is only a local $ref is judged by its target's one compiled function; one with siblings by its own", () => {
    const contract = loadContract();
    const validator = validatorOf(contract);
    const errorSchemas = [...contract.operations.values()].flatMap((operation) =>
      Object.values(operation.responses)
        .filter((response) => response.contentTypes.includes('application/json'))
        .map((response) => bodySchemaPointer(response, 'application/json'))
        .filter((pointer) => pointer.includes('/responses/404/')),
    );
    expect(errorSchemas.length).toBeGreaterThan(100);
    const target = validator.schemaAt('#/components/schemas/ErrorEnvelope');
    for (const pointer of errorSchemas) expect(validator.schemaAt(pointer)).toBe(target);

    // The verdicts are the target's: an envelope passes, a body without one is named.
    const getSpace = contract.operations.get('getSpace')!;
    const json = new Headers({ 'content-type': 'application/json' });
    const envelope = { error: { code: 404, message: 'No space x' } };
    expect(validator.validate(getSpace, { status: 404, headers: json, text: JSON.stringify(envelope) })).toEqual([]);
    const [problem] = validator.validate(getSpace, { status: 404, headers: json, text: '{"message":"gone"}' });
    expect(problem).toMatchObject({ kind: 'body-schema' });
    expect(problem!.message).toContain("body must have required property 'error'");

    // A $ref with a sibling keyword is a schema of its own: compiled as it is, not as its target.
    const document = structuredClone(contract.document) as unknown as { components: { schemas: Record<string, object> } };
    document.components.schemas.ShortEnvelope = { $ref: '#/components/schemas/ErrorEnvelope', maxProperties: 0 };
    document.components.schemas.SameEnvelope = { $ref: '#/components/schemas/ErrorEnvelope' };
    const other = validatorOf(loadContract(document as never));
    const short = other.schemaAt('#/components/schemas/ShortEnvelope');
    expect(short).not.toBe(other.schemaAt('#/components/schemas/ErrorEnvelope'));
    expect(short(envelope)).toBe(false);
    expect(other.schemaAt('#/components/schemas/SameEnvelope')).toBe(other.schemaAt('#/components/schemas/ErrorEnvelope'));
  });
});

/** The sorts in SQLite's plans of the page queries (`LIMIT ?`) among `texts`, as "<plan line>: <SQL>". */
function pageSorts(db: Connection, texts: Iterable<string>): string[] {
  const sorts: string[] = [];
  for (const sql of texts) {
    if (!/^\s*(SELECT|WITH)\b[\s\S]*\bLIMIT \?\s*$/i.test(sql)) continue;
    const parameters = Array.from({ length: (sql.match(/\?/g) ?? []).length }, () => null);
    const plan = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...parameters) as { detail: string }[];
    for (const { detail } of plan) {
      if (/^USE TEMP B-TREE FOR .*ORDER BY/.test(detail)) sorts.push(`${detail}: ${sql.replace(/\s+/g, ' ').trim()}`);
    }
  }
  return sorts;
}

/**
 * The full scans of a table in SQLite's plans of `texts` (EXPLAIN QUERY PLAN, parameters bound to null), as
 * "<plan line>: <SQL>". A scan of a subquery, a CTE or a virtual table through a constraint (an FTS5 MATCH or rowid)
 * is not one; a scan of a table through an index without a constraint is (it reads the whole index).
 */
function fullScans(db: Connection, texts: Iterable<string>): string[] {
  const tables = new Set((db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as { name: string }[]).map((row) => row.name));
  const scans: string[] = [];
  for (const sql of texts) {
    // An INSERT's plan lists scans of the tables referring to the new row, which SQLite runs only while a foreign key
    // is violated (to count it as resolved): never, as constraints here are checked at once.
    if (!/^\s*(SELECT|WITH|UPDATE|DELETE)\b/i.test(sql)) continue;
    const parameters = Array.from({ length: (sql.match(/\?/g) ?? []).length }, () => null);
    const plan = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...parameters) as { detail: string }[];
    for (const { detail } of plan) {
      const scan = /^SCAN (\S+)(.*)$/.exec(detail);
      if (!scan || !tables.has(scan[1]!) || /VIRTUAL TABLE INDEX \d+:\S/.test(scan[2]!)) continue;
      scans.push(`${detail}: ${sql.replace(/\s+/g, ' ').trim()}`);
    }
  }
  return scans;
}
