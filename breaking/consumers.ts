// The gate's side of consumers' records (`--consumers`, docs/contract-consumers.md): each consumer's verdict and the
// consumers each finding breaks or warns, as conformance/judgement/verdict.ts gives them (the one owner of a consumer's
// verdict, which can-i-deploy and the contract's rule call too); the sentence each format adds to a finding; and
// `--fail-on consumers`.
import type { Contract } from '../conformance/contract/contract.ts';
import { consumersSentence, judgeConsumerVerdicts } from '../conformance/judgement/verdict.ts';
import type { UsageRecord } from '../conformance/records/usage-format.ts';
import type { Verdict } from './gate.ts';
import { isRefusedRemoval } from '../compare/removals.ts';

/**
 * Names the consumers each judged finding breaks or warns in its message (every format shows it) and as its
 * `consumers` (the JSON report), and each consumer's verdict as the verdict's `consumers`. With `failOnConsumers`, a
 * failing finding that breaks no known consumer passes, a break only a record shows fails, and the verdict is worked
 * out again.
 */
export function judgeByConsumers(verdict: Verdict, records: readonly UsageRecord[], failOnConsumers: boolean, revision?: Contract, base?: Contract): void {
  const findings = verdict.judged.map((entry) => entry.finding);
  // Before the messages below name the consumers: each consumer's lines quote the findings' messages as compared.
  const judged = judgeConsumerVerdicts(findings, records, { ...(revision ? { revision } : {}), ...(base ? { base } : {}) });
  if (revision) verdict.consumers = judged.consumers.map((outcome) => ({ ...outcome, fails: failOnConsumers && outcome.breaks.some((use) => use.foundBy === 'record') }));
  for (const entry of verdict.judged) {
    const found = judged.byFinding.get(entry.finding)!;
    const sentence = consumersSentence(found, entry.finding.severity.startsWith('breaking'), { more: 'every one is in the consumers’ verdicts below' });
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
