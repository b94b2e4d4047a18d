// The gate's side of consumers' usage records (`--consumers`, docs/contract-consumers.md): for each finding, the
// consumers it breaks or warns, by the one judgement can-i-deploy makes too (conformance/judgement/judgement.ts), the sentence
// each format adds to the finding, and `--fail-on consumers`.
import type { Finding } from '../compare/index.ts';
import type { Contract } from '../conformance/contract/contract.ts';
import { judgeConsumer, type Effect } from '../conformance/judgement/judgement.ts';
import type { UsageRecord } from '../conformance/records/usage-format.ts';
import type { Verdict } from './gate.ts';

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
 * Names the consumers each judged finding breaks or warns (with `revision`, the contract changed to, a tighter request
 * bound is judged by the types, lengths and ranges a record says were sent), in its message (every format shows it) and as its
 * `consumers` (the JSON report); with `failOnConsumers`, a failing finding that breaks no known consumer passes, and
 * the verdict is worked out again.
 */
export function judgeByConsumers(verdict: Verdict, records: readonly UsageRecord[], failOnConsumers: boolean, revision?: Contract): void {
  const hits = consumersOfFindings(
    verdict.judged.map((entry) => entry.finding),
    records,
    revision,
  );
  for (const entry of verdict.judged) {
    const found = hits.get(entry.finding)!;
    const sentence = consumersSentence(found, entry.finding.severity.startsWith('breaking'));
    if (sentence) entry.finding.message = `${entry.finding.message} ${sentence}`;
    Object.assign(entry, { consumers: found });
    // --fail-on consumers: a breaking change that breaks no known consumer passes (it is still reported, and noted).
    if (failOnConsumers && entry.fails && !found.some((hit) => hit.verdict === 'breaks')) entry.fails = false;
  }
  if (failOnConsumers) {
    verdict.undeclared = verdict.judged.filter((entry) => entry.fails).map((entry) => entry.finding);
    verdict.passed = verdict.undeclared.length === 0 && verdict.stale.length === 0 && verdict.problems.length === 0;
  }
}
