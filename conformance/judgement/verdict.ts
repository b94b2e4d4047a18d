// THE owner of a consumer's verdict: the change judgement (judgement.ts, the findings of base → revision placed in a
// consumer's record) and its record judged against the revision alone (record-judgement.ts, and against the base, to
// tell what the base already failed), merged into typed breaks and warnings. The gate's --consumers, the contract's
// `breaking-change` rule (breaking/live.ts) and can-i-deploy call `judgeConsumerVerdicts` and only render what it gives.
import type { Finding } from '../../compare/index.ts';
import type { RuleId } from '../../compare/rules.ts';
import type { Contract, Schema } from '../contract/contract.ts';
import { alternatives, responseSchema, schemasAt } from '../records/usage-fields.ts';
import type { UsageRecord } from '../records/usage-format.ts';
import { type ConsumerVerdict, type Effect, judgeConsumer, judgeFinding, renamedOperations, type Side } from './judgement.ts';
import { judgeRecord, type RecordBreak, type RecordBreakCode } from './record-judgement.ts';

/** Which judgement found a break: the change's, the record's against the revision alone, or both. */
export type FoundBy = 'change' | 'record' | 'both';

/** One break or warning of one consumer, typed. */
export interface ConsumerBreak {
  operationId: string;
  /** The rule of the finding (the change judgement), or the record judgement's code. */
  rule: RuleId | RecordBreakCode;
  /** Where, when known: a field's JSON pointer in what it sent or received, a parameter's or header's key. */
  pointer?: string;
  /** What changed, in words: the finding's message, or what the revision no longer accepts or guarantees. */
  what: string;
  /** The use of the record that shows it (the change judgement's; empty for the record's, whose `what` says it). */
  evidence: string;
  foundBy: FoundBy;
  /** For a break the record alone found, with the base known: whether the record breaks there against the base too. */
  baseAlreadyFailed?: boolean;
  /** The break in one line, as every output shows it. */
  line: string;
}

/** One consumer's verdict. */
export interface ConsumerOutcome {
  /** `billing-svc 2.3.0`: its name and version. */
  consumer: string;
  verdict: ConsumerVerdict;
  breaks: ConsumerBreak[];
  warnings: ConsumerBreak[];
  /** Where its record held too little to judge all of it (a version-1 record), or where a finding could not be placed in it. */
  notes: string[];
}

/** One consumer a finding breaks or warns, and the use that shows it (for the sentence at the finding). */
export interface FindingConsumer {
  consumer: string;
  verdict: 'breaks' | 'warns';
  operationId: string;
  evidence: string;
}

export interface ConsumerVerdicts {
  consumers: ConsumerOutcome[];
  /** The consumers each finding breaks or warns, by the change judgement. */
  byFinding: Map<Finding, FindingConsumer[]>;
}

export const consumerName = (record: UsageRecord): string => [record.consumer.name, record.consumer.version].filter(Boolean).join(' ');

/** The component schemas declared at each place of `pointers` (and every place above them) below `schema`. */
function componentsAt(contract: Contract, schema: Schema | undefined, pointers: readonly string[]): Record<string, string[]> | undefined {
  const places = new Set(['']);
  for (const pointer of pointers) {
    const segments = pointer.split('/');
    for (let end = 2; end <= segments.length; end += 1) places.add(segments.slice(0, end).join('/'));
  }
  const found: Record<string, string[]> = {};
  for (const place of places) {
    const names = new Set<string>();
    for (const each of schemasAt(contract, schema, place)) alternatives(contract, each, new Set(), names);
    if (names.size > 0) found[place] = [...names].sort();
  }
  return Object.keys(found).length > 0 ? found : undefined;
}

/**
 * A version-1 record, which keeps no `schemas`, with the components of what it sent and received placed through
 * `contract`'s own schemas (the base's, which it was made against, where known), so that a change of a component is
 * placed in its use; each operation that cannot be placed so (the contract has no such operation) named.
 */
export function placedThrough(record: UsageRecord, contract: Contract | undefined): { record: UsageRecord; unplaced: string[] } {
  if (record.version >= 2) return { record, unplaced: [] };
  if (!contract) return { record, unplaced: Object.keys(record.operations) };
  const placed = structuredClone(record);
  const unplaced: string[] = [];
  for (const [operationId, usage] of Object.entries(placed.operations)) {
    const operation = contract.operations.get(operationId);
    if (!operation) {
      unplaced.push(operationId);
      continue;
    }
    for (const [key, answer] of Object.entries(usage.responses)) {
      const [status, mediaType] = key.split(' ') as [string, string | undefined];
      if (answer.schemas || !mediaType) continue;
      const schemas = componentsAt(contract, responseSchema(contract, operation, Number(status), mediaType), [...answer.present, ...(answer.read ?? [])]);
      if (schemas) answer.schemas = schemas;
    }
    if (!usage.bodySchemas && operation.body?.schema) {
      const schemas = componentsAt(contract, operation.body.schema, Object.keys(usage.body));
      if (schemas) usage.bodySchemas = schemas;
    }
  }
  return { record: placed, unplaced };
}

/**
 * Whether `record` breaks nowhere against `contract` alone: a contract its consumer's tests could have been written
 * against. can-i-deploy asks it of the releases for a consumer known by Pact files only, which name none.
 */
export const holdsAgainst = (record: UsageRecord, contract: Contract): boolean => judgeRecord(record, contract).breaks.length === 0;

/** The change judgement's breaks of `record`: every operation it calls that a breaking finding breaks, not the first only. */
function changeEffects(findings: readonly Finding[], record: UsageRecord, revision: Contract | undefined): Effect[] {
  const judged = judgeConsumer(findings, record, revision).effects;
  const aliases = renamedOperations(findings);
  const effects: Effect[] = [];
  for (const effect of judged) {
    effects.push(effect);
    if (effect.verdict !== 'breaks') continue;
    for (const [operationId, usage] of Object.entries(record.operations)) {
      if (operationId === effect.operationId) continue;
      const other = judgeFinding(effect.finding, { ...record, operations: { [operationId]: usage } }, aliases, revision);
      if (other.verdict === 'breaks') effects.push(other);
    }
  }
  return effects;
}

/** What of a call each kind of the record judgement's break is about, as the change judgement's families say it. */
const RECORD_SIDE: Record<RecordBreakCode, Side> = {
  'operation-gone': 'operation',
  'security-changed': 'operation',
  'parameter-not-accepted': 'request',
  'parameter-value-refused': 'request',
  'parameter-refuses': 'request',
  'parameter-required': 'request',
  'default-changed': 'request',
  'body-required': 'request',
  'body-not-accepted': 'request',
  'media-type-not-accepted': 'request',
  'request-field-not-accepted': 'request',
  'request-value-refused': 'request',
  'request-field-refuses': 'request',
  'request-field-required': 'request',
  'status-gone': 'response',
  'header-gone': 'response',
  'header-optional': 'response',
  'response-media-type-gone': 'response',
  'alternative-added': 'response',
  'response-field-gone': 'response',
  'response-field-optional': 'response',
  'response-field-type': 'response',
  'response-field-format': 'response',
  'response-field-bound': 'response',
};

/** Whether two places of a record are one, or one holds the other: a field and a field below it; a parameter's or header's key. */
function related(a: string, b: string): boolean {
  const pointer = (place: string) => place === '' || place.startsWith('/');
  if (!pointer(a) || !pointer(b)) return a.toLowerCase() === b.toLowerCase();
  return a === '' || b === '' || a === b || b.startsWith(`${a}/`) || a.startsWith(`${b}/`);
}

/**
 * Whether a break the record judgement found is one a change's break already tells: the same operation and the same
 * side of it (what it sends, receives, or the call), at a place the finding names, or above or below one (an
 * alternative added to the answer is what makes its `/title` may be absent); a finding of the whole request, answer
 * or call tells every break on its side.
 */
function tellsBreak(effect: Effect, hit: RecordBreak): boolean {
  if (effect.verdict !== 'breaks' || effect.operationId !== hit.operationId || effect.side !== RECORD_SIDE[hit.code]) return false;
  const places = effect.places ?? [];
  return places.length === 0 || hit.pointer === undefined || places.some((place) => related(place, hit.pointer!));
}

const changeLine = (effect: Effect) => `${effect.operationId}: ${effect.finding.message} (${effect.finding.rule}); ${effect.evidence}`;

/** How a break the record alone found is told: which judgement found it, and why the change did not. */
function recordLine(hit: RecordBreak, against: string, atBase: boolean | undefined, withChange: boolean): string {
  if (!withChange) return `${hit.operationId}: ${hit.what} (judged against ${against} alone)`;
  const why = atBase === true ? 'the base already failed it' : 'the change judgement did not find it';
  return `${hit.operationId}: ${hit.what} (found by its record judged against ${against} alone; ${why})`;
}

/** A record judged against the base, once per record and base: can-i-deploy's table asks it for every contract. */
const judgedAtBase = new WeakMap<UsageRecord, WeakMap<Contract, RecordBreak[]>>();
function againstBase(record: UsageRecord, base: Contract): RecordBreak[] {
  let byBase = judgedAtBase.get(record);
  if (!byBase) judgedAtBase.set(record, (byBase = new WeakMap()));
  let breaks = byBase.get(base);
  if (!breaks) byBase.set(base, (breaks = judgeRecord(record, base).breaks));
  return breaks;
}

const sameBreak = (a: RecordBreak, b: RecordBreak) => a.operationId === b.operationId && a.code === b.code && a.pointer === b.pointer;

/** One consumer's verdict: the change's breaks and warnings, and the record's breaks that none of them is, each told once. */
function judgeOne(findings: readonly Finding[], recorded: UsageRecord, contracts: { revision?: Contract; base?: Contract; against?: string }): { outcome: ConsumerOutcome; effects: Effect[] } {
  const { record, unplaced } = placedThrough(recorded, contracts.base ?? contracts.revision);
  const unplacedNotes = unplaced.map(
    (operationId) => `${consumerName(record)}'s record is of version ${record.version} of the format, which keeps no schemas, and ${operationId} is no operation of the contract to place them by: whether a change of a component breaks its use of ${operationId} cannot be told`,
  );
  const effects = changeEffects(findings, record, contracts.revision);
  const direct = contracts.revision ? judgeRecord(record, contracts.revision) : { breaks: [], notes: [] };
  const atBase = contracts.base ? againstBase(record, contracts.base) : undefined;
  const matched = new Set<Effect>();
  const recordBreaks: ConsumerBreak[] = [];
  for (const hit of direct.breaks) {
    const baseAlreadyFailed = atBase ? atBase.some((each) => sameBreak(each, hit)) : undefined;
    const same = baseAlreadyFailed ? undefined : effects.find((effect) => tellsBreak(effect, hit));
    if (same) {
      matched.add(same);
      continue;
    }
    const line = recordLine(hit, contracts.against ?? 'the revision', baseAlreadyFailed, findings.length > 0 || contracts.base !== undefined);
    recordBreaks.push({ operationId: hit.operationId, rule: hit.code, ...(hit.pointer === undefined ? {} : { pointer: hit.pointer }), what: hit.what, evidence: '', foundBy: 'record', ...(baseAlreadyFailed === undefined ? {} : { baseAlreadyFailed }), line });
  }
  const typed = (effect: Effect): ConsumerBreak => ({ operationId: effect.operationId!, rule: effect.finding.rule, what: effect.finding.message, evidence: effect.evidence, foundBy: matched.has(effect) ? 'both' : 'change', line: changeLine(effect) });
  const breaks = [...effects.filter((effect) => effect.verdict === 'breaks').map(typed), ...recordBreaks];
  const warnings = effects.filter((effect) => effect.verdict === 'warns').map(typed);
  const verdict: ConsumerVerdict = breaks.length > 0 ? 'breaks' : warnings.length > 0 ? 'warns' : 'untouched';
  return { outcome: { consumer: consumerName(record), verdict, breaks, warnings, notes: [...direct.notes, ...(findings.length > 0 ? unplacedNotes : [])] }, effects };
}

/**
 * THE verdict of each consumer: the change (`findings`, of comparing `base` with `revision`) judged by its record, and
 * its record judged against `revision` alone (and against `base`, which tells a break the base already failed); a
 * break both find told once. Without findings (no base known), the record against `revision` alone (`against`: how
 * that contract is named).
 */
export function judgeConsumerVerdicts(findings: readonly Finding[], records: readonly UsageRecord[], contracts: { revision?: Contract; base?: Contract; against?: string }): ConsumerVerdicts {
  const byFinding = new Map<Finding, FindingConsumer[]>(findings.map((finding) => [finding, []]));
  const consumers = records.map((record) => {
    const { outcome, effects } = judgeOne(findings, record, contracts);
    const told = new Set<Finding>();
    for (const effect of effects) {
      if (told.has(effect.finding)) continue;
      told.add(effect.finding);
      byFinding.get(effect.finding)?.push({ consumer: outcome.consumer, verdict: effect.verdict as FindingConsumer['verdict'], operationId: effect.operationId!, evidence: effect.evidence });
    }
    return outcome;
  });
  return { consumers, byFinding };
}

/**
 * Each finding's effect on one consumer, untouched ones too, by the row of its family that decided it: for the table
 * of how a change is judged (docs/contract-consumers.md), which shows the rows no verdict names.
 */
export function findingEffects(findings: readonly Finding[], record: UsageRecord, revision?: Contract): Effect[] {
  const aliases = renamedOperations(findings);
  return findings.map((finding) => judgeFinding(finding, record, aliases, revision));
}

/** How many consumers a sentence names before it counts the rest. */
export const NAMED_CONSUMERS = 3;

/**
 * The sentence a finding carries, in every output: the first NAMED_CONSUMERS consumers it breaks, then those it warns,
 * each list ending `and N more` with `more` (where they are all listed); with `sayNone`, a finding that breaks none
 * says so, only when every source was read (`unread`: one was not, so it cannot be told).
 */
export function consumersSentence(hits: readonly FindingConsumer[], sayNone: boolean, options: { unread?: boolean; more?: string } = {}): string {
  const named = (verdict: FindingConsumer['verdict']) => {
    const list = hits.filter((hit) => hit.verdict === verdict);
    const shown = list.slice(0, NAMED_CONSUMERS).map((hit) => `${hit.consumer} (${hit.operationId}: ${hit.evidence})`);
    const rest = list.length - shown.length;
    return rest > 0 ? `${shown.join(', ')} and ${rest} more${options.more ? ` (${options.more})` : ''}` : shown.join(', ');
  };
  const breaks = named('breaks');
  const warns = named('warns');
  const none = options.unread ? 'Whether it breaks a consumer is not known: a source of consumers was not read.' : 'It breaks no known consumer.';
  return [breaks ? `It breaks ${breaks}.` : sayNone ? none : '', warns ? `Warning for consumers: ${warns}.` : ''].filter(Boolean).join(' ');
}
