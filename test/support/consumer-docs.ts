// docs/contract-consumers.md's two generated sections, from the code and the consumer corpus: the table of how a
// change is judged for a consumer (conformance/judgement/judgement.ts's families, with the corpus cases that show each row), and
// the corpus's counts beside PactFlow's engine (@pactflow/swagger-mock-validator) on pacts of the same interactions,
// with the cases where the two differ. `npm run docs:consumers` writes them; consumer-corpus.test.ts fails when the
// committed page is not what this writes.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SwaggerMockValidatorFactory } from '@pactflow/swagger-mock-validator';
import { compareDocuments } from '../../compare/index.ts';
import { RULES } from '../../compare/rules.ts';
import { loadContract, type OpenApiDocument } from '../../conformance/contract/contract.ts';
import { FAMILIES, NOT_CALLED, familyOf, type ConsumerVerdict } from '../../conformance/judgement/judgement.ts';
import { pactRecord, readPact } from '../../conformance/records/pact-record.ts';
import type { UsageRecord } from '../../conformance/records/usage-format.ts';
import { judgeDeploy } from '../../conformance/judgement/can-i-deploy.ts';
import { findingEffects, holdsAgainst, judgeConsumerVerdicts } from '../../conformance/judgement/verdict.ts';
import { baseContract, CASES, CONSUMERS, type ConsumerName, type CorpusCase, pactOf, recordOf, revisionOf, WRONG_ANSWERS } from './consumer-corpus.ts';
import { repoRoot } from './repo.ts';

export const DOCS_PAGE = path.join(repoRoot, 'docs/contract-consumers.md');
const VALIDATOR_VERSION = (JSON.parse(readFileSync(path.join(repoRoot, 'node_modules/@pactflow/swagger-mock-validator/package.json'), 'utf8')) as { version: string }).version;

/** What PactFlow's engine answered for a case: its verdict (an error breaks, a warning warns) and the codes it gave. */
export interface PactflowAnswer {
  verdict: ConsumerVerdict;
  codes: string[];
}

/**
 * PactFlow's engine on each case: the consumer's pact against the revision (and, once per consumer, against the base,
 * where it must find nothing: the pact is a faithful consumer of the release).
 */
export async function pactflowAnswers(cases: readonly CorpusCase[] = CASES): Promise<{ answers: Map<string, PactflowAnswer>; baseProblems: string[] }> {
  const folder = mkdtempSync(path.join(os.tmpdir(), 'consumer-pacts-'));
  try {
    const validator = SwaggerMockValidatorFactory.create();
    const file = (name: string, value: unknown) => {
      const written = path.join(folder, name);
      writeFileSync(written, JSON.stringify(value));
      return written;
    };
    const base = file('base.json', baseContract());
    const pacts = new Map<ConsumerName, string>();
    const baseProblems: string[] = [];
    for (const consumer of new Set(cases.map((each) => each.consumer))) {
      const pact = file(`${consumer}.pact.json`, pactOf(consumer));
      pacts.set(consumer, pact);
      const outcome = await validator.validate({ specPathOrUrl: base, mockPathOrUrl: pact });
      if (outcome.errors.length > 0 || outcome.warnings.length > 0) baseProblems.push(`${consumer}: ${[...outcome.errors, ...outcome.warnings].map((each) => each.code).join(', ')}`);
    }
    const answers = new Map<string, PactflowAnswer>();
    for (const corpusCase of cases) {
      const outcome = await validator.validate({ specPathOrUrl: file(`${corpusCase.id}.json`, revisionOf(corpusCase)), mockPathOrUrl: pacts.get(corpusCase.consumer)! });
      const verdict: ConsumerVerdict = outcome.errors.length > 0 ? 'breaks' : outcome.warnings.length > 0 ? 'warns' : 'untouched';
      answers.set(corpusCase.id, { verdict, codes: [...new Set([...outcome.errors, ...outcome.warnings].map((each) => each.code))].sort() });
    }
    return { answers, baseProblems };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** A consumer's verdict as every tool gives it (verdict.ts): the change from `base` to `revision`, or `revision` alone. */
function verdictOf(record: UsageRecord, revision: unknown, base?: unknown) {
  const contract = loadContract(revision as OpenApiDocument);
  if (base === undefined) return judgeConsumerVerdicts([], [record], { revision: contract }).consumers[0]!;
  return judgeConsumerVerdicts(compareDocuments(base, revision), [record], { revision: contract, base: loadContract(base as OpenApiDocument) }).consumers[0]!;
}

/** Our verdict of each case (the one every tool gives). */
export function judgedCases(cases: readonly CorpusCase[] = CASES): Map<string, { verdict: ConsumerVerdict }> {
  return new Map(cases.map((corpusCase) => [corpusCase.id, { verdict: verdictOf(recordOf(corpusCase.consumer), revisionOf(corpusCase), baseContract()).verdict }]));
}

/** Our judgements of a case's pact. */
interface PactVerdict {
  withBase: ConsumerVerdict;
  breaksAlone: boolean;
  what: string[];
  /** can-i-deploy with the pact and no --base, the corpus's base the one release: read against it (it holds there) and judged as the change from it. */
  noBase: ConsumerVerdict;
}

/**
 * Our judgement of each case's pact (Pact 2): read as a record against the release it was written against, the
 * change's verdict; as PactFlow's engine reads it, against the revision alone (read as a record against the revision
 * and judged against it), whether it breaks, and what breaks it; and as can-i-deploy with the pact and no --base reads
 * it, against the newest release it holds against (the base, the corpus's one release), the verdict.
 */
export function pactVerdicts(cases: readonly CorpusCase[] = CASES): Map<string, PactVerdict> {
  const base = loadContract(baseContract() as OpenApiDocument);
  const judged = new Map<string, PactVerdict>();
  for (const corpusCase of cases) {
    const pact = readPact(pactOf(corpusCase.consumer), `${corpusCase.consumer}.pact.json`);
    const document = revisionOf(corpusCase);
    const revision = loadContract(document as OpenApiDocument);
    const atBase = pactRecord(pact, base).record;
    const withBase = verdictOf(atBase, document, baseContract()).verdict;
    const what = verdictOf(pactRecord(pact, revision).record, document).breaks.map((hit) => hit.what);
    if (!holdsAgainst(atBase, base)) throw new Error(`${corpusCase.id}: the pact of ${corpusCase.consumer} does not hold against the release it was written against`);
    const noBase = judgeDeploy(atBase, revision, { contract: base, label: 'release 1.0.0' }).verdict;
    judged.set(corpusCase.id, { withBase, breaksAlone: what.length > 0, what, noBase });
  }
  return judged;
}

/** The rows each case shows: those of its findings that decided its verdict (for an untouched case, every row its findings met but those no consumer could notice). */
function caseRows(): Map<string, string[]> {
  const RANK: Record<ConsumerVerdict, number> = { breaks: 2, warns: 1, untouched: 0 };
  const byRow = new Map<string, string[]>();
  for (const corpusCase of CASES) {
    const findings = compareDocuments(baseContract(), revisionOf(corpusCase));
    const revision = loadContract(revisionOf(corpusCase) as OpenApiDocument);
    const effects = findingEffects(findings, recordOf(corpusCase.consumer), revision).filter((effect) => effect.family !== 'no-one');
    const worst = Math.max(...effects.map((effect) => RANK[effect.verdict]));
    const rows = new Set(effects.filter((effect) => RANK[effect.verdict] === worst).map((effect) => (effect.row === 'notCalled' ? 'notCalled' : `${effect.family}/${effect.row}`)));
    for (const row of rows) byRow.set(row, [...(byRow.get(row) ?? []), corpusCase.id]);
  }
  return byRow;
}

const cell = (text: string) => text.replace(/\|/g, '\\|');

/** The rules table: each family's rows (what the record shows → verdict, why), with the corpus cases that show each. */
export function rulesSection(): string {
  const byRow = caseRows();
  const lines = [
    '| Change (rule family) | What the record shows | Verdict | Why | Corpus cases |',
    '|---|---|---|---|---|',
  ];
  for (const family of FAMILIES) {
    Object.entries(family.rows).forEach(([id, row], index) => {
      const cases = byRow.get(`${family.id}/${id}`) ?? [];
      lines.push(`| ${index === 0 ? `**${family.id}**: ${cell(family.title)}` : ''} | ${cell(row.shows)} | ${row.verdict} | ${cell(row.reason)} | ${cases.map((each) => `\`${each}\``).join(', ')} |`);
    });
  }
  lines.push(`| every family | ${NOT_CALLED.shows} | ${NOT_CALLED.verdict} | ${NOT_CALLED.reason} | ${(byRow.get('notCalled') ?? []).map((each) => `\`${each}\``).join(', ')} |`);
  lines.push('', 'The rules of each family (every rule of the gate is in exactly one):', '');
  for (const family of FAMILIES) {
    const rules = [...RULES.values()].filter((rule) => familyOf(rule.id).id === family.id).map((rule) => `\`${rule.id}\``);
    lines.push(`- **${family.id}** (${rules.length}): ${rules.join(', ')}`);
  }
  return lines.join('\n');
}

/** The corpus's counts, ours and PactFlow's, and the cases where they differ. */
export function corpusSection(answers: ReadonlyMap<string, PactflowAnswer>): string {
  const judged = judgedCases();
  const ours = CASES.filter((each) => judged.get(each.id)!.verdict === each.expected).length;
  const pactflowRight = (each: CorpusCase) => (answers.get(each.id)!.verdict === 'breaks') === (each.expected === 'breaks');
  const theirs = CASES.filter(pactflowRight).length;
  const pacts = pactVerdicts();
  const aloneRight = (each: CorpusCase) => pacts.get(each.id)!.breaksAlone === (each.expected === 'breaks');
  const differing = CASES.filter((each) => !pactflowRight(each) || !aloneRight(each) || judged.get(each.id)!.verdict !== each.expected);
  const lines = [
    `The corpus holds ${CASES.length} cases over ${Object.keys(CONSUMERS).length} consumers: **${ours} of ${CASES.length}** get their verdict from the judgement, and every tool gives it (the test runs each case through every format of the gate, each consumer's verdict there merging the change judgement and its record judged against the revision alone, \`--fail-on consumers\` and both forms of can-i-deploy, and each through can-i-deploy without its record's base, its record judged against the revision alone, which breaks exactly where the judgement with the base does). PactFlow's engine, \`@pactflow/swagger-mock-validator\` ${VALIDATOR_VERSION}, on pacts of the same interactions: **${theirs} of ${CASES.length}** right (a case is right when it reports an error exactly where the consumer breaks; its warnings count as no break). The same pacts read by this toolkit as records: with the release they were written against, **${CASES.filter((each) => pacts.get(each.id)!.withBase === each.expected).length} of ${CASES.length}** (each pact, in Pact 2, 3 and 4, gets its case's verdict: the test holds it); read against the revision alone, as PactFlow's engine reads them, **${CASES.filter(aloneRight).length} of ${CASES.length}** right (the column "Our pact alone" below); and as \`can-i-deploy\` with a pact and no \`--base\` reads them, against the newest release they hold against (here the base, the one release), **${CASES.filter((each) => (pacts.get(each.id)!.noBase === 'breaks') === (each.expected === 'breaks')).length} of ${CASES.length}** right.`,
    '',
    'Where they differ:',
    '',
    '| Case | Change | Consumer | Verdict, and why | PactFlow | Our pact alone |',
    '|---|---|---|---|---|---|',
    ...differing.map((each) => {
      const answer = answers.get(each.id)!;
      const ours = pacts.get(each.id)!;
      return `| \`${each.id}\` | ${cell(each.change)} | ${each.consumer} | ${each.expected}: ${cell(each.why)} | ${answer.verdict === 'breaks' ? 'error' : answer.verdict === 'warns' ? 'warning only' : 'nothing'}${answer.codes.length > 0 ? ` (${answer.codes.map((code) => `\`${code}\``).join(', ')})` : ''} | ${ours.breaksAlone ? `breaks (${cell(ours.what[0]!)})` : 'no break'} |`;
    }),
    '',
    'The wrong answers a judgement of its own in each tool gives, each held by cases of the corpus:',
    '',
    ...Object.entries(WRONG_ANSWERS).map(([kind, text]) => `${kind}. ${text}: ${CASES.filter((each) => String(each.wrongBefore) === kind).map((each) => `\`${each.id}\``).join(', ')}.`),
  ];
  return lines.join('\n');
}

/** `text` with the lines between `<!-- name -->` and `<!-- /name -->` replaced by `section`. */
export function withSection(text: string, name: string, section: string): string {
  const start = `<!-- ${name} -->`;
  const end = `<!-- /${name} -->`;
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from < 0 || to < from) throw new Error(`${path.relative(repoRoot, DOCS_PAGE)} has no ${start} … ${end}`);
  return `${text.slice(0, from + start.length)}\n${section}\n${text.slice(to)}`;
}

/** The page as this writes it, from the page as it is. */
export function consumerPage(current: string, answers: ReadonlyMap<string, PactflowAnswer>): string {
  return withSection(withSection(current, 'consumer-rules', rulesSection()), 'consumer-corpus', corpusSection(answers));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { answers, baseProblems } = await pactflowAnswers();
  if (baseProblems.length > 0) throw new Error(`a pact does not pass against the base contract: ${baseProblems.join('; ')}`);
  writeFileSync(DOCS_PAGE, consumerPage(readFileSync(DOCS_PAGE, 'utf8'), answers));
  console.log(`docs:consumers: ${path.relative(repoRoot, DOCS_PAGE)}`);
}
