// The consumer corpus (support/consumer-corpus.ts): each case through every tool that judges a consumer: the gate's
// --consumers (every format, each consumer's verdict by both judgements), --fail-on consumers, can-i-deploy with the
// record's base and without it (the record judged against the revision alone, conformance/judgement/record-judgement.ts) and the
// provider's table; each case both ways, never disagreeing on a break; then PactFlow's engine on pacts of the same
// interactions, and docs/contract-consumers.md's generated sections as `npm run docs:consumers` writes them.
// @needs processes slow
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, test } from 'vitest';
import { judgeByConsumers } from '../../breaking/consumers.ts';
import { formatGithub, formatJson, formatJunit, formatMarkdown, formatSarif } from '../../breaking/formats.ts';
import { evaluateGate } from '../../breaking/gate.ts';
import { formatReport } from '../../breaking/report.ts';
import { compareDocuments } from '../../compare/index.ts';
import { RULES } from '../../compare/rules.ts';
import { canIDeployMain } from '../../conformance/judgement/can-i-deploy-command.ts';
import { loadContract, type OpenApiDocument } from '../../conformance/contract/contract.ts';
import { FAMILIES, judgeChange, type ConsumerVerdict } from '../../conformance/judgement/judgement.ts';
import { judgeRecord } from '../../conformance/judgement/record-judgement.ts';
import { consumerName } from '../../conformance/judgement/verdict.ts';
import { pactRecord, readPact } from '../../conformance/records/pact-record.ts';
import { consumerPage, DOCS_PAGE, pactflowAnswers } from '../support/consumer-docs.ts';
import { baseContract, CASES, type CorpusCase, PACT_SPECIFICATIONS, pactOf, recordOf, revisionOf, WRONG_ANSWERS } from '../support/consumer-corpus.ts';
import { repoRoot } from '../support/repo.ts';

const run = promisify(execFile);
const scratch = mkdtempSync(path.join(os.tmpdir(), 'consumer-corpus-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

// The files the commands read: the base contract as release 1.0.0 of a folder of releases, each case's revision, and
// each case's record (its consumer named by the case, so that one folder holds them all for the provider's table).
const releases = path.join(scratch, 'releases');
mkdirSync(path.join(releases, '1.0.0'), { recursive: true });
const baseFile = path.join(releases, '1.0.0', 'openapi.yaml');
writeFileSync(baseFile, JSON.stringify(baseContract()));
const records = path.join(scratch, 'records');
mkdirSync(records);
// Each record again, made against a contract that is no release (a build of a branch): can-i-deploy cannot find its
// base, and judges it against the revision alone.
const unreleased = path.join(scratch, 'unreleased');
mkdirSync(unreleased);
const files = new Map(
  CASES.map((corpusCase) => {
    const revision = path.join(scratch, `${corpusCase.id}.json`);
    writeFileSync(revision, JSON.stringify(revisionOf(corpusCase)));
    const record = path.join(records, `${corpusCase.id}.json`);
    const made = recordOf(corpusCase.consumer, corpusCase.id);
    writeFileSync(record, JSON.stringify(made));
    const alone = path.join(unreleased, `${corpusCase.id}.json`);
    writeFileSync(alone, JSON.stringify({ ...made, contract: { version: 'main', sha256: made.contract.sha256 } }));
    return [corpusCase.id, { revision, record, alone }];
  }),
);

/** The verdict a report gives the consumer `name`: named in "It breaks …", in "Warning for consumers: …", or neither. */
function named(report: string, name: string): ConsumerVerdict {
  if (report.includes(`It breaks ${name} (`)) return 'breaks';
  return report.includes(`Warning for consumers: ${name} (`) ? 'warns' : 'untouched';
}

/** The verdict of the JSON report: the worst of the consumer's entries, which must be the consumer's own verdict (both judgements). */
function fromJson(report: string, name: string): ConsumerVerdict {
  const parsed = JSON.parse(report) as { judged: { consumers?: { consumer: string; verdict: ConsumerVerdict }[] }[]; consumers: { consumer: string; verdict: ConsumerVerdict }[] };
  const hits = parsed.judged.flatMap((entry) => entry.consumers ?? []).filter((hit) => hit.consumer === name);
  const worst = hits.some((hit) => hit.verdict === 'breaks') ? 'breaks' : hits.length > 0 ? 'warns' : 'untouched';
  const own = parsed.consumers.find((outcome) => outcome.consumer === name)?.verdict;
  return own === worst ? worst : (`${worst}, its own verdict ${own}` as ConsumerVerdict);
}

/** The consumer's own verdict in a report (text, Markdown, JUnit, SARIF, GitHub): `name: breaks` under the consumers' heading. */
function consumerVerdict(report: string, name: string): ConsumerVerdict | undefined {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![\\w-])${escaped}: (breaks|warns|untouched)\\b`).exec(report)?.[1] as ConsumerVerdict | undefined;
}

/** A report's verdict for the consumer: the findings' sentences and its own verdict, which must agree. */
function fromReport(report: string, name: string): ConsumerVerdict {
  const sentences = named(report, name);
  const own = consumerVerdict(report, name);
  return own === sentences ? own : (`${sentences}, its own verdict ${own}` as ConsumerVerdict);
}

/** can-i-deploy's consumer form: exit 1 breaks, a `!` line warns; and it must have judged the change. */
function fromDeploy(code: number, out: string): ConsumerVerdict {
  expect(out).toContain('(the change from release 1.0.0, which its record was made against)');
  if (code === 1) return 'breaks';
  expect(code).toBe(0);
  return /^! /m.test(out) ? 'warns' : 'untouched';
}

/** can-i-deploy's consumer form without the record's base: exit 1 breaks; it must have judged the record alone, saying why. */
function fromDeployAlone(code: number, out: string): 'breaks' | 'not' {
  expect(out).toMatch(/the contract its record was made against \(version main\) is not a release: its record judged against the contract alone/);
  if (code === 1) return 'breaks';
  expect(code).toBe(0);
  return 'not';
}

const failOnVerdict = (exitCode: number): 'breaks' | 'not' => (exitCode === 1 ? 'breaks' : 'not');
const breaksOrNot = (verdict: ConsumerVerdict) => (verdict === 'breaks' ? 'breaks' : 'not');

const baseLoaded = loadContract(baseContract() as OpenApiDocument);

/** The gate on a case, in process: the comparison, the verdict, the consumers judged (both judgements), each format; and --fail-on consumers. */
function gateInProcess(corpusCase: CorpusCase): Record<'text' | 'json' | 'github' | 'markdown' | 'junit' | 'sarif', ConsumerVerdict> & { failOn: number } {
  const findings = compareDocuments(baseContract(), revisionOf(corpusCase));
  const record = recordOf(corpusCase.consumer, corpusCase.id);
  const revision = loadContract(revisionOf(corpusCase) as OpenApiDocument);
  const judge = (failOnConsumers: boolean) => {
    const verdict = evaluateGate(structuredClone(findings), { baseVersion: '1.0.0', revisionVersion: '1.0.0', failOn: 'implementation' });
    judgeByConsumers(verdict, [record], failOnConsumers, revision, baseLoaded);
    return verdict;
  };
  const verdict = judge(false);
  const options = { subject: `${corpusCase.id} against release 1.0.0`, declarationsFile: 'a declarations file (--declarations)', versionAt: "the revision's info.version" };
  // As every output names a consumer: its name and version.
  const name = consumerName(record);
  return {
    text: fromReport(formatReport(verdict, options), name),
    json: fromJson(formatJson(verdict, options), name),
    github: fromReport(formatGithub(verdict, options), name),
    markdown: consumerVerdict(formatMarkdown(verdict, options), name)!,
    junit: consumerVerdict(formatJunit(verdict, options), name)!,
    sarif: consumerVerdict(formatSarif(verdict, options), name)!,
    failOn: judge(true).passed ? 0 : 1,
  };
}

async function deploy(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await canIDeployMain(argv, (text) => void (out += text), (text) => void (err += text));
  return { code, out, err };
}

describe('the judgement', () => {
  test('every rule of the gate is in exactly one family, and only rules that break clients can break a consumer', () => {
    for (const rule of RULES.values()) expect(FAMILIES.filter((family) => family.has(rule)).map((family) => family.id), rule.id).toHaveLength(1);
    for (const family of FAMILIES) {
      if (!Object.values(family.rows).some((row) => row.verdict === 'breaks')) continue;
      const rules = [...RULES.values()].filter((rule) => family.has(rule));
      expect(rules.filter((rule) => rule.severity !== 'breaking-client').map((rule) => rule.id), family.id).toEqual([]);
    }
  });

  test('the corpus: at least 60 cases, a case for every family a consumer can notice, each kind of wrong answer the tools gave before', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(60);
    expect(new Set(CASES.map((each) => each.id)).size).toBe(CASES.length);
    for (const kind of Object.keys(WRONG_ANSWERS)) expect(CASES.filter((each) => String(each.wrongBefore) === kind).length, `wrong answer ${kind}`).toBeGreaterThan(0);
    const verdicts = new Set(CASES.map((each) => each.expected));
    expect([...verdicts].sort()).toEqual(['breaks', 'untouched', 'warns']);
  });
});

describe('each case gets its verdict from every tool', () => {
  test.each(CASES.map((corpusCase) => [corpusCase.id, corpusCase] as const))('%s', async (_id, corpusCase) => {
    const gate = gateInProcess(corpusCase);
    const expected = corpusCase.expected;
    const every = { text: expected, json: expected, github: expected, markdown: expected, junit: expected, sarif: expected };
    expect({ ...gate, failOn: failOnVerdict(gate.failOn) }, corpusCase.why).toEqual({ ...every, failOn: breaksOrNot(expected) });
    const { revision, record } = files.get(corpusCase.id)!;
    const consumer = await deploy('--usage', record, '--contract', revision, '--releases', releases);
    expect(fromDeploy(consumer.code, consumer.out), consumer.out).toBe(expected);
    const alone = await deploy('--usage', files.get(corpusCase.id)!.alone, '--contract', revision, '--releases', releases);
    expect(fromDeployAlone(alone.code, alone.out), alone.out).toBe(breaksOrNot(expected));
  });

  test('both ways: the change judgement and the record judged against the revision alone never disagree on a break; against the base, no record breaks', () => {
    const base = loadContract(baseContract() as OpenApiDocument);
    const disagreements: string[] = [];
    for (const corpusCase of CASES) {
      const record = recordOf(corpusCase.consumer, corpusCase.id);
      const change = judgeChange(baseContract(), revisionOf(corpusCase), record);
      const direct = judgeRecord(record, loadContract(revisionOf(corpusCase) as OpenApiDocument));
      if ((change.verdict === 'breaks') !== direct.breaks.length > 0) {
        disagreements.push(`${corpusCase.id}: with the base ${change.verdict}, alone ${direct.breaks.map((hit) => hit.what).join('; ') || 'no break'}`);
      }
      expect(judgeRecord(record, base).breaks, `${corpusCase.id}: its record against the contract it was made against`).toEqual([]);
    }
    expect(disagreements).toEqual([]);
  });

  test("the provider's table: every consumer against every case's revision at once, each case's cell its verdict", async () => {
    const json = path.join(scratch, 'table.json');
    const table = await deploy('--consumers', records, ...CASES.flatMap((corpusCase) => ['--contract', files.get(corpusCase.id)!.revision]), '--releases', releases, '--json', json);
    expect(table.code).toBe(1);
    const cells = JSON.parse(readFileSync(json, 'utf8')) as Record<string, Record<string, { verdict: ConsumerVerdict; judgedBy: unknown }>>;
    for (const corpusCase of CASES) {
      const cell = cells[corpusCase.id]![files.get(corpusCase.id)!.revision]!;
      expect(cell, corpusCase.id).toMatchObject({ verdict: corpusCase.expected, judgedBy: { change: 'release 1.0.0' } });
    }
    // The records of a contract that is no release, all at once: each cell breaks exactly where its case breaks.
    const alone = path.join(scratch, 'alone.json');
    await deploy('--consumers', unreleased, ...CASES.flatMap((corpusCase) => ['--contract', files.get(corpusCase.id)!.revision]), '--releases', releases, '--json', alone);
    const aloneCells = JSON.parse(readFileSync(alone, 'utf8')) as Record<string, Record<string, { verdict: ConsumerVerdict; judgedBy: unknown }>>;
    for (const corpusCase of CASES) {
      const cell = aloneCells[corpusCase.id]![files.get(corpusCase.id)!.revision]!;
      expect([breaksOrNot(cell.verdict), cell.judgedBy], corpusCase.id).toEqual([breaksOrNot(corpusCase.expected), { record: expect.stringContaining('is not a release') as unknown }]);
    }
  });
});

describe('as pacts', () => {
  // Each case's consumer as a Pact file in each specification, read as a record against the release its tests were
  // written against (the base), as a record is made against it: the change judgement and the record judged against
  // the revision alone give the native record's verdict. A pact holds values, and only the fields its test asserted:
  // its answers are cut to what the code reads (a proxy consumer's whole), which it reads all of; that changes which
  // row shows a verdict (a field never received rather than received and unread), never the verdict. Every case as
  // Pact 2; Pact 3 and 4 take every other case each (their reading differs in the query, headers and bodies only).
  const rotation = (specification: number) => CASES.filter((_, index) => specification === 2 || index % 2 === specification % 2);
  test.each(PACT_SPECIFICATIONS.map((specification) => [specification] as const))('Pact %i: its cases get their verdict, with the base and against the revision alone', (specification) => {
    const base = loadContract(baseContract() as OpenApiDocument);
    const wrong: string[] = [];
    for (const corpusCase of rotation(specification)) {
      const pact = readPact(pactOf(corpusCase.consumer, specification), `${corpusCase.consumer}.pact.json`);
      expect(pact.specification).toBe(specification);
      const { record, unmatched } = pactRecord(pact, base);
      expect(unmatched, corpusCase.id).toEqual([]);
      const native = recordOf(corpusCase.consumer);
      // The operations, statuses and fields read are the native record's.
      expect(Object.keys(record.operations)).toEqual(Object.keys(native.operations));
      const revision = revisionOf(corpusCase);
      const change = judgeChange(baseContract(), revision, record).verdict;
      const alone = judgeRecord(record, loadContract(revision as OpenApiDocument)).breaks.map((hit) => hit.what);
      if (change !== corpusCase.expected || (alone.length > 0) !== (corpusCase.expected === 'breaks')) wrong.push(`${corpusCase.id}: expected ${corpusCase.expected}, with the base ${change}, alone ${alone.join('; ') || 'no break'}`);
      expect(judgeRecord(record, base).breaks, `${corpusCase.id}: its pact against the contract its tests were written against`).toEqual([]);
    }
    expect(wrong).toEqual([]);
  });
});

describe('the real commands, on a case of each verdict', () => {
  const chosen = ['response-read-made-optional', 'response-enum-value-removed', 'request-enum-value-added'].map((id) => CASES.find((each) => each.id === id)!);

  test('node breaking/check.mjs --consumers: text, JSON, GitHub annotations, and --fail-on consumers', async () => {
    const check = (corpusCase: CorpusCase, ...args: string[]) =>
      run(process.execPath, [path.join(repoRoot, 'breaking/check.mjs'), '--base', baseFile, '--revision', files.get(corpusCase.id)!.revision, '--consumers', files.get(corpusCase.id)!.record, ...args], { cwd: repoRoot, timeout: 60_000 }).then(
        (done) => ({ code: 0, stdout: done.stdout }),
        (failed: { code: number; stdout: string }) => ({ code: failed.code, stdout: failed.stdout }),
      );
    for (const corpusCase of chosen) {
      const [text, json, github, failOn] = await Promise.all([check(corpusCase), check(corpusCase, '--format', 'json'), check(corpusCase, '--format', 'github'), check(corpusCase, '--fail-on', 'consumers')]);
      const name = consumerName(recordOf(corpusCase.consumer, corpusCase.id));
      expect({ text: fromReport(text.stdout, name), json: fromJson(json.stdout, name), github: fromReport(github.stdout, name), failOn: failOnVerdict(failOn.code) }, corpusCase.id).toEqual({
        text: corpusCase.expected,
        json: corpusCase.expected,
        github: corpusCase.expected,
        failOn: breaksOrNot(corpusCase.expected),
      });
    }
  }, 120_000);

  test('docs-conformance can-i-deploy: the consumer form and the table', async () => {
    const cli = (...args: string[]) =>
      run(process.execPath, ['--import', 'tsx', 'conformance/cli.ts', 'can-i-deploy', ...args], { cwd: repoRoot, timeout: 60_000 }).then(
        (done) => ({ code: 0, out: done.stdout }),
        (failed: { code: number; stdout: string }) => ({ code: failed.code, out: failed.stdout }),
      );
    const [first] = chosen;
    const consumer = await cli('--usage', files.get(first!.id)!.record, '--contract', files.get(first!.id)!.revision, '--releases', releases);
    expect(fromDeploy(consumer.code, consumer.out)).toBe(first!.expected);
    const folder = path.join(scratch, 'chosen');
    mkdirSync(folder);
    for (const corpusCase of chosen) writeFileSync(path.join(folder, `${corpusCase.id}.json`), readFileSync(files.get(corpusCase.id)!.record));
    const table = await cli('--consumers', folder, ...chosen.flatMap((corpusCase) => ['--contract', files.get(corpusCase.id)!.revision]), '--releases', releases);
    expect(table.code).toBe(1);
    // The diagonal: each case's consumer against its own revision.
    const rows = table.out.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| Consumer'));
    const diagonal = chosen.map((corpusCase, index) => rows.find((row) => row.startsWith(`| ${corpusCase.id} `))!.split(' | ')[index + 1]!.replace(/ \|$/, ''));
    expect(diagonal).toEqual(['✗ 1 break', '✓ 1 warning', '✓']);
  }, 120_000);
});

test("PactFlow's engine on pacts of the same interactions; docs/contract-consumers.md's generated sections are what `npm run docs:consumers` writes", async () => {
  const { answers, baseProblems } = await pactflowAnswers();
  // Each pact is a faithful consumer of the release: PactFlow finds nothing against the base contract.
  expect(baseProblems).toEqual([]);
  const page = readFileSync(DOCS_PAGE, 'utf8');
  expect(page, 'run `npm run docs:consumers` and commit docs/contract-consumers.md').toBe(consumerPage(page, answers));
}, 240_000);
