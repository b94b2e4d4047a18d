// The gate's side of consumers' usage records (`--consumers`, docs/contract-consumers.md): for each finding, the
// consumers it breaks or warns, by the one judgement can-i-deploy makes too (conformance/judgement/judgement.ts), the sentence
// each format adds to the finding; each consumer's verdict, that and its record judged against the revision alone
// (conformance/judgement/record-judgement.ts) merged; and `--fail-on consumers`.
import type { Finding } from '../compare/index.ts';
import type { Contract } from '../conformance/contract/contract.ts';
import { foundBy, judgeConsumer, mergeJudgements, type Effect } from '../conformance/judgement/judgement.ts';
import { judgeRecord } from '../conformance/judgement/record-judgement.ts';
import type { UsageRecord } from '../conformance/records/usage-format.ts';
import type { ConsumerOutcome, Verdict } from './gate.ts';
import { isRefusedRemoval } from '../compare/removals.ts';

/** One consumer a finding breaks or warns, and the use that shows it. */
export interface ConsumerHit {
  consumer: string;
  verdict: 'breaks' | 'warns';
  operationId: string;
  /** What of its use shows it: `response field /items/*\/title received (200 application/json)`, `sent "locked" at /editMode`. */
  evidence: string;
}

const hitOf = (record: UsageRecord, effect: Effect): ConsumerHit => ({
  consumer: record.consumer.name,
  verdict: effect.verdict as ConsumerHit['verdict'],
  operationId: effect.operationId!,
  evidence: effect.evidence,
});

/** The consumers each finding breaks or warns, by finding: the judgement of the whole change for each record (`revision`: the contract changed to). */
export function consumersOfFindings(findings: readonly Finding[], records: readonly UsageRecord[], revision?: Contract): Map<Finding, ConsumerHit[]> {
  const hits = new Map<Finding, ConsumerHit[]>(findings.map((finding) => [finding, []]));
  for (const record of records) {
    for (const effect of judgeConsumer(findings, record, revision).effects) hits.get(effect.finding)!.push(hitOf(record, effect));
  }
  return hits;
}

/** The sentence a report adds to a finding: the consumers it breaks (or that it breaks none), then those it warns. */
export function consumersSentence(hits: readonly ConsumerHit[], breaking: boolean): string {
  const named = (verdict: ConsumerHit['verdict']) =>
    hits
      .filter((hit) => hit.verdict === verdict)
      .map((hit) => `${hit.consumer} (${hit.operationId}: ${hit.evidence})`)
      .join(', ');
  const breaks = named('breaks');
  const warns = named('warns');
  return [breaking ? (breaks ? `It breaks ${breaks}.` : 'It breaks no known consumer.') : '', warns ? `Warning for consumers: ${warns}.` : ''].filter(Boolean).join(' ');
}

/**
 * Each consumer's verdict: the change judgement (`findings`) and its record judged against `revision` alone, merged;
 * a break only the record shows is told from the change's, and whether the record breaks against `base` too.
 */
export function consumerOutcomes(findings: readonly Finding[], records: readonly UsageRecord[], revision: Contract, base?: Contract, failOnConsumers = false): ConsumerOutcome[] {
  return records.map((record) => {
    const merged = mergeJudgements(judgeConsumer(findings, record, revision), judgeRecord(record, revision), base ? judgeRecord(record, base) : undefined);
    return {
      consumer: record.consumer.name,
      verdict: merged.verdict,
      // A break the record alone found says so, and whether the base already failed it.
      breaks: merged.breaks.map((use) => ({ ...use, line: `${use.line}${foundBy(use)}` })),
      warnings: merged.warnings,
      notes: merged.notes,
      fails: failOnConsumers && merged.breaks.some((use) => use.by === 'record'),
    };
  });
}

/**
 * Names the consumers each judged finding breaks or warns (with `revision`, the contract changed to, a tighter request
 * bound is judged by the types, lengths and ranges a record says were sent), in its message (every format shows it) and as its
 * `consumers` (the JSON report); with `revision`, each consumer's verdict by both judgements (`consumerOutcomes`), as
 * the verdict's `consumers`. With `failOnConsumers`, a failing finding that breaks no known consumer passes, a break
 * only a record shows fails, and the verdict is worked out again.
 */
export function judgeByConsumers(verdict: Verdict, records: readonly UsageRecord[], failOnConsumers: boolean, revision?: Contract, base?: Contract): void {
  const findings = verdict.judged.map((entry) => entry.finding);
  // Before the messages below name the consumers: each consumer's lines quote the findings' messages as compared.
  if (revision) verdict.consumers = consumerOutcomes(findings, records, revision, base, failOnConsumers);
  const hits = consumersOfFindings(findings, records, revision);
  for (const entry of verdict.judged) {
    const found = hits.get(entry.finding)!;
    const sentence = consumersSentence(found, entry.finding.severity.startsWith('breaking'));
    if (sentence) entry.finding.message = `${entry.finding.message} ${sentence}`;
    Object.assign(entry, { consumers: found });
    // --fail-on consumers: a breaking change that breaks no known consumer passes (it is still reported, and noted),
    // but for a removal before its sunset, which nothing lets pass (compare/removals.ts).
    if (failOnConsumers && entry.fails && !found.some((hit) => hit.verdict === 'breaks') && !isRefusedRemoval(entry.finding.rule)) entry.fails = false;
  }
  if (failOnConsumers) {
    verdict.undeclared = verdict.judged.filter((entry) => entry.fails).map((entry) => entry.finding);
    const consumerFails = (verdict.consumers ?? []).some((outcome) => outcome.fails);
    verdict.passed = verdict.undeclared.length === 0 && verdict.stale.length === 0 && verdict.problems.length === 0 && !consumerFails;
  }
}
