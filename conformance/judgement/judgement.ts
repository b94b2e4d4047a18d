// One judgement of a contract change for a consumer: for the findings of comparing a base contract with a revision
// (compare/) and one consumer's usage record, whether it breaks the consumer, warns it or does not touch it, with the
// use of the record that shows it, by what the record holds. The gate's --consumers and --fail-on consumers and both
// forms of can-i-deploy call `judgeConsumer`. `FAMILIES` is the whole rule: every rule of the comparison in one family,
// whose rows give the verdict and its reason; docs/contract-consumers.md's table is written from it.
import { compareDocuments, type Finding } from '../../compare/index.ts';
import { directionOf, RULES, type Rule, type RuleId } from '../../compare/rules.ts';
import { type Contract, loadContract, type OpenApiDocument } from '../contract/contract.ts';
import { allows, fieldSchemas, parameterFor, refusal } from './record-judgement.ts';
import type { OperationUsage, ResponseUsage, UsageRecord } from '../records/usage-format.ts';

/** What a change does to a consumer. */
export type ConsumerVerdict = 'breaks' | 'warns' | 'untouched';

/** One row of a family: what the record shows, and what follows. */
export interface Row {
  shows: string;
  verdict: ConsumerVerdict;
  reason: string;
}

/** A finding's effect on one consumer: the family and row that decided it, and the use that shows it. */
export interface Effect {
  finding: Finding;
  verdict: ConsumerVerdict;
  family: string;
  row: string;
  /** The operation whose use decided it (none when the consumer calls none the finding affects). */
  operationId?: string;
  /** What of the record shows it: `sent "locked" at /editMode`, `response field /title read`. */
  evidence: string;
  /** What of the call its family judges (the side of the record judgement's break it may be). */
  side?: Side;
  /**
   * Where in the operation's record the finding is: the JSON pointers of the fields it names (in the body sent, or in
   * the answers received), the keys of its parameters (`query.limit`) or headers (`header.location`); none for a
   * finding of the whole request, answer or call.
   */
  places?: string[];
}

/** The judgement of a change for one consumer: the worst effect, and every effect that breaks or warns it. */
export interface ConsumerJudgement {
  consumer: UsageRecord['consumer'];
  verdict: ConsumerVerdict;
  /** The effects that break or warn it, breaks first. */
  effects: Effect[];
}

const RANK: Record<ConsumerVerdict, number> = { breaks: 2, warns: 1, untouched: 0 };

// ---- what a finding names, placed in what a consumer used -------------------------------------------------------

/**
 * A field as the comparison names it (`SpaceList.items[].title`, `request body.title`, `Space.labels.*`) as the
 * component it is in (undefined: the body itself) and a pointer below it (`/items/*\/title`). The expressions read
 * the grammar compare/ writes a field's name in (a name, `.`, `[]`, `.*`), not a finding's prose.
 */
export function fieldPlace(field: string): { component: string | undefined; pointer: string } {
  const owner = /^(request body|response body|[^.[]+)/.exec(field)![1]!;
  const rest = field.slice(owner.length);
  const pointer = rest
    .replace(/\[\]/g, '/*')
    .replace(/\.\*/g, '/*')
    .replace(/\.([^./[*]+)/g, '/$1');
  return { component: owner === 'request body' || owner === 'response body' ? undefined : owner, pointer };
}

/**
 * The pointers `field` names in what a consumer sent or received: below each place its component was found; a field
 * whose first name is no component met there is one of an inline body, named from the body (`editMode`,
 * `items[].title`).
 */
function pointersOf(field: string, schemas: Record<string, string[]> | undefined): string[] {
  const { component, pointer } = fieldPlace(field);
  if (!component) return [pointer];
  const places = Object.entries(schemas ?? {})
    .filter(([, names]) => names.includes(component))
    .map(([base]) => `${base}${pointer}`);
  return places.length > 0 ? places : [fieldPlace(`response body.${field}`).pointer];
}

/** Whether `pointer` (or a field below it) is among `used`; the body itself (`''`) is used when anything is. */
function usedAt(used: readonly string[], pointer: string, answered: boolean): boolean {
  if (pointer === '') return answered;
  return used.some((each) => each === pointer || each.startsWith(`${pointer}/`));
}

const parentOf = (pointer: string) => pointer.slice(0, Math.max(0, pointer.lastIndexOf('/')));

/** Whether a finding is of a request's parameters (its arguments name them), not of its body. */
const ofParameters = (finding: Finding) => (finding.args.parameters?.length ?? 0) > 0 || RULES.get(finding.rule)?.context === 'request-parameter';

/** Whether a finding is of a response header (its arguments name it, or its rule is a header's), not of a field. */
const ofHeaders = (finding: Finding) => (finding.args.headers?.length ?? 0) > 0 || RULES.get(finding.rule)?.context === 'response-header';

/** Whether a finding is of what a consumer receives, by its rule's context (a deprecation's). */
const ofResponse = (finding: Finding) => {
  const context = RULES.get(finding.rule)?.context;
  return context !== undefined && directionOf(context) === 'response';
};

/** Whether a received `status` falls under a declared one (`404` under `404`, `4XX` or `default`). */
function statusMatches(declared: string, status: string): boolean {
  const upper = declared.toUpperCase();
  return upper === status || upper === 'DEFAULT' || (upper.endsWith('XX') && upper[0] === status[0]);
}

/** The answers of `usage` a finding can be about: all, or those of the status (and media type) its path names. */
function answersFor(finding: Finding, usage: OperationUsage): [string, ResponseUsage][] {
  const scope = finding.args;
  return Object.entries(usage.responses).filter(([key]) => {
    const [status, mediaType] = key.split(' ') as [string, string | undefined];
    if (scope.status !== undefined && !statusMatches(scope.status, status)) return false;
    return scope.mediaType === undefined || mediaType === undefined || mediaType === scope.mediaType;
  });
}

const show = (values: readonly unknown[]) => values.map((value) => JSON.stringify(value)).join(', ');

// ---- the uses a family looks at --------------------------------------------------------------------------------

type Outcome = { row: string; evidence: string };

/** Where in an operation's record a finding is (see `Effect.places`), by its arguments and its fields. */
function placesOf(finding: Finding, side: Side, usage: OperationUsage): string[] {
  if (ofParameters(finding)) return (finding.args.parameters ?? []).map((parameter) => `${parameter.in}.${parameter.name}`);
  if (ofHeaders(finding)) return (finding.args.headers ?? []).map((header) => `header.${header.toLowerCase()}`);
  if (finding.fields.length === 0) return [];
  if (side === 'request') return finding.fields.flatMap((field) => pointersOf(field, usage.bodySchemas));
  if (side === 'response') return answersFor(finding, usage).flatMap(([, answer]) => finding.fields.flatMap((field) => pointersOf(field, answer.schemas)));
  return [];
}

/** The request fields a finding names that the consumer sent (with their values), and the places it sent their parents. */
function sentFields(finding: Finding, usage: OperationUsage): { sent: { pointer: string; values?: Used['values'] }[]; unsent: { pointer: string }[] } {
  const sent: { pointer: string; values?: Used['values'] }[] = [];
  const unsent: { pointer: string }[] = [];
  const bodySent = usage.mediaTypes.length > 0 || Object.keys(usage.body).length > 0;
  for (const field of finding.fields) {
    for (const pointer of pointersOf(field, usage.bodySchemas)) {
      if (pointer in usage.body || (pointer === '' && bodySent)) sent.push({ pointer, ...(usage.body[pointer]?.values ? { values: usage.body[pointer]!.values } : {}) });
      else {
        const parent = parentOf(pointer);
        if (parent === '' ? bodySent : parent in usage.body) unsent.push({ pointer });
      }
    }
  }
  return { sent, unsent };
}
type Used = OperationUsage['body'][string];

/**
 * The parameters a finding names (its arguments) that the consumer sent (`query.limit`), with their values: by name,
 * as a parameter moved to another place is still the one it sent.
 */
function sentParameters(finding: Finding, usage: OperationUsage): { sent: { key: string; values?: Used['values'] }[]; unsent: string[] } {
  const sent: { key: string; values?: Used['values'] }[] = [];
  const unsent: string[] = [];
  for (const { name } of finding.args.parameters ?? []) {
    const key = Object.keys(usage.parameters).find((each) => each.slice(each.indexOf('.') + 1).toLowerCase() === name.toLowerCase());
    if (key) sent.push({ key, ...(usage.parameters[key]!.values ? { values: usage.parameters[key]!.values } : {}) });
    else unsent.push(name);
  }
  return { sent, unsent };
}

/** What was sent for a request finding, parameters or body fields alike: its name, and the values recorded of it. */
function sentUses(finding: Finding, usage: OperationUsage): { sent: { name: string; values?: Used['values'] }[]; unsent: string[] } {
  if (ofParameters(finding)) {
    const { sent, unsent } = sentParameters(finding, usage);
    return { sent: sent.map(({ key, values }) => ({ name: key, ...(values ? { values } : {}) })), unsent };
  }
  const { sent, unsent } = sentFields(finding, usage);
  return { sent: sent.map(({ pointer, values }) => ({ name: pointer || 'the body', ...(values ? { values } : {}) })), unsent: unsent.map(({ pointer }) => pointer) };
}

/** Whether the consumer read (or, where reads are unknown, received) a response field the finding names. */
function responseUse(finding: Finding, usage: OperationUsage): { row: 'uses' | 'unread' | 'unreceived'; evidence: string } {
  let unread: string | undefined;
  for (const [key, answer] of answersFor(finding, usage)) {
    const answered = answer.present.length > 0 || answer.read !== undefined;
    for (const field of finding.fields.length > 0 ? finding.fields : ['response body']) {
      for (const pointer of pointersOf(field, answer.schemas)) {
        const shown = pointer || 'the body';
        if (answer.read !== undefined) {
          if (usedAt(answer.read, pointer, answer.read.length > 0)) {
            // Relied on only because calls whose reads were not recorded received it (a merged record's `assumedRead`): received, not read.
            const seen = answer.read.filter((each) => !answer.assumedRead?.includes(each));
            return { row: 'uses', evidence: `response field ${shown} ${usedAt(seen, pointer, seen.length > 0) ? 'read' : 'received'} (${key})` };
          }
          if (usedAt(answer.present, pointer, answered)) unread ??= `received ${shown} (${key}), its code read ${answer.read.length > 0 ? 'other fields' : 'none'}`;
        } else if (usedAt(answer.present, pointer, answered)) return { row: 'uses', evidence: `response field ${shown} received (${key})` };
      }
    }
  }
  return unread ? { row: 'unread', evidence: unread } : { row: 'unreceived', evidence: 'never received it' };
}

/**
 * A response finding's use: for a header, whether the consumer received the answer that carries it (a record does not
 * keep headers); for a field, `responseUse`.
 */
function answerUse(finding: Finding, usage: OperationUsage): { row: 'uses' | 'unread' | 'unreceived'; evidence: string } {
  if (!ofHeaders(finding)) return responseUse(finding, usage);
  const received = receivedAnswers(finding, usage);
  return received[0] ? { row: 'uses', evidence: `received ${received[0]}, which carries the header` } : { row: 'unreceived', evidence: 'never received the answer that carries it' };
}

/** The answers of the status (and media type) a finding's path names that the consumer received. */
function receivedAnswers(finding: Finding, usage: OperationUsage): string[] {
  return answersFor(finding, usage).map(([key]) => key);
}

/**
 * The values a request finding takes away from what is accepted: an enum's values; a discriminated union's tag (a
 * renamed one's old name), below the property that carries it.
 */
function refusedValues(finding: Finding): { values: unknown[]; below?: string } {
  const { property, was } = finding.args;
  if (property === undefined) return { values: finding.values ?? [] };
  if (RULES.get(finding.rule)?.kind === 'discriminator-tag-renamed') return { values: was ?? [], below: property };
  return { values: finding.value === undefined ? [] : [finding.value], below: property };
}

// ---- the families ----------------------------------------------------------------------------------------------

/** What of a call a family judges: what it sends, what it receives, the call itself, or nothing that breaks. */
export type Side = 'request' | 'response' | 'operation' | 'none';

interface Family {
  id: string;
  side: Side;
  /** What the rules of the family change, for the table. */
  title: string;
  /** Its rules. */
  has: (rule: Rule) => boolean;
  rows: Record<string, Row>;
  /** For one operation the consumer calls: which row, and the use that shows it (`revision`: the contract changed to, where known). */
  judge: (finding: Finding, usage: OperationUsage, revision?: RevisionOperation) => Outcome;
}

/** The revision's operation a finding is judged in, where the judgement has the revision. */
interface RevisionOperation {
  contract: Contract;
  operationId: string;
}

/**
 * The kinds of request change a record's facts (types, lengths, ranges, sizes sent) and values (of an enumeration)
 * tell whether it refuses what was sent: of an alternative removed, which alternative what it sent matched.
 */
const FACT_KINDS = ['type-changed', 'became-not-nullable', 'max-length-decreased', 'min-length-increased', 'max-decreased', 'min-increased', 'max-items-decreased', 'min-items-increased', 'variant-removed'];

/**
 * Whether the revision accepts what the record says was sent at `pointer` of the body and at every field below it:
 * each still a field there, its types, lengths, ranges and sizes (which it must have recorded) and its enumerated
 * values accepted.
 */
function bodyAccepted(contract: Contract, root: Parameters<typeof fieldSchemas>[1], usage: OperationUsage, pointer: string): boolean {
  const below = Object.keys(usage.body).filter((each) => each === pointer || each.startsWith(`${pointer}/`));
  return below.every((each) => {
    const used = usage.body[each]!;
    const schemas = used.types ? fieldSchemas(contract, root, each) : [];
    return schemas.length > 0 && refusal(contract, schemas, used) === undefined && (used.values ?? []).every((value) => allows(contract, schemas, value));
  });
}

/**
 * Whether the revision still accepts everything the record's facts say was sent where a finding tightened a request
 * field or parameter: its evidence, or undefined when that cannot be told (no facts, another kind of change).
 */
function stillAccepted(finding: Finding, usage: OperationUsage, revision: RevisionOperation | undefined): string | undefined {
  const rule = RULES.get(finding.rule);
  const kind = rule?.context === 'request-property' || rule?.context === 'request-parameter' ? rule.kind : undefined;
  if (!revision || kind === undefined || !FACT_KINDS.includes(kind)) return undefined;
  const operation = revision.contract.operations.get(revision.operationId);
  if (!operation) return undefined;
  const shown: string[] = [];
  if (ofParameters(finding)) {
    const { sent } = sentParameters(finding, usage);
    for (const { key } of sent) {
      const used = usage.parameters[key]!;
      const declared = parameterFor(operation, key, usage.path);
      if (!used.types || !declared?.schema || refusal(revision.contract, [declared.schema], used) !== undefined) return undefined;
      shown.push(key);
    }
  } else {
    const { sent } = sentFields(finding, usage);
    for (const { pointer } of sent) {
      if (!(pointer in usage.body) || !bodyAccepted(revision.contract, operation.body?.schema, usage, pointer)) return undefined;
      shown.push(pointer);
    }
  }
  if (shown.length === 0) return undefined;
  return kind === 'variant-removed'
    ? `sends ${shown.join(', ')}, and what it sent there matches an alternative still accepted`
    : `sends ${shown.join(', ')}, and the types, lengths and ranges it sent are still accepted`;
}

const BREAKS_IT = 'breaking-client';
/** The rules of an answer's header as a whole (the rules of its schema have the context `response-header`). */
const HEADER_RULES: readonly string[] = ['response-header-added', 'response-header-added-required', 'response-header-removed', 'response-header-became-optional', 'response-header-became-required'];

const REQUEST_SIDE = (rule: Rule) => rule.context === 'request-property' || rule.context === 'request-parameter';
const is = (...ids: string[]) => (rule: Rule) => ids.includes(rule.id);

/** The rows of a response field a consumer did not read, or never received. */
const UNREAD: Record<'unread' | 'unreceived', Row> = {
  unread: { shows: 'received it, its code read other fields', verdict: 'untouched', reason: 'its code never reads it' },
  unreceived: { shows: 'never received it', verdict: 'untouched', reason: 'no answer it handled held it' },
};

/** The row every family has: a consumer that calls none of the operations a finding affects is not touched. */
export const NOT_CALLED: Row = { shows: 'calls none of the operations it affects', verdict: 'untouched', reason: 'what a consumer does not call cannot break it' };

export const FAMILIES: readonly Family[] = [
  {
    id: 'implementation-only',
    side: 'none',
    title: 'a change that breaks implementations only: a request accepts more (a new value, field, parameter or alternative, a field made optional, a wider range), or an answer must hold more (a field or header made required, a tighter range)',
    has: (rule) => rule.severity === 'breaking-implementation' && !NARROWED.has(rule.id),
    rows: { any: { shows: 'any use', verdict: 'untouched', reason: 'what the consumer sends is still accepted, and what it may receive it could receive before' } },
    judge: () => ({ row: 'any', evidence: 'only implementations must change' }),
  },
  {
    id: 'no-one',
    side: 'none',
    title: 'a change that breaks no one: an operation, optional field, header or media type added, a scheme renamed',
    has: (rule) => rule.severity === 'non-breaking' && rule.kind !== 'deprecated' && rule.id !== 'operation-deprecated',
    rows: { any: { shows: 'any use', verdict: 'untouched', reason: 'nothing a consumer sends or receives changes meaning' } },
    judge: () => ({ row: 'any', evidence: 'breaks no one' }),
  },
  {
    id: 'deprecated',
    side: 'none',
    title: 'an operation, field, parameter or header deprecated',
    has: (rule) => rule.kind === 'deprecated' || rule.id === 'operation-deprecated',
    rows: {
      uses: { shows: 'calls it, sends it, or reads it', verdict: 'warns', reason: 'it still works, and may go in a later major version' },
      unused: { shows: 'does not use it', verdict: 'untouched', reason: 'nothing it uses goes' },
    },
    judge: (finding, usage) => {
      if (finding.rule === 'operation-deprecated') return { row: 'uses', evidence: `calls it (${usage.calls} calls)` };
      if (ofResponse(finding)) {
        const use = answerUse(finding, usage);
        return use.row === 'uses' ? { row: 'uses', evidence: use.evidence } : { row: 'unused', evidence: use.evidence };
      }
      const { sent } = sentUses(finding, usage);
      return sent[0] ? { row: 'uses', evidence: `sends ${sent[0].name}` } : { row: 'unused', evidence: 'does not send it' };
    },
  },
  {
    id: 'operation-gone',
    side: 'operation',
    title: 'an operation removed, or moved to another path or method',
    has: is('operation-removed', 'operation-removed-without-deprecation', 'operation-removed-before-sunset', 'operation-path-changed'),
    rows: { calls: { shows: 'calls it', verdict: 'breaks', reason: 'its requests go where the operation no longer is' } },
    judge: (_finding, usage) => ({ row: 'calls', evidence: `calls it (${usage.calls} calls)` }),
  },
  {
    id: 'security',
    side: 'operation',
    title: "an operation's security requirement, or a scheme it uses, changed so that credentials accepted before are refused",
    has: is('operation-security-changed', 'security-scheme-changed'),
    rows: { calls: { shows: 'calls it', verdict: 'breaks', reason: 'a record does not keep credentials: every caller authenticated the way now refused' } },
    judge: (_finding, usage) => ({ row: 'calls', evidence: `calls it (${usage.calls} calls), authenticating as the release required` }),
  },
  {
    id: 'names-in-source',
    side: 'none',
    title: 'a name typed source uses changed, the wire unchanged: an operation id, a path parameter, a schema renamed or removed',
    has: (rule) => rule.severity === 'breaking-source',
    rows: {
      uses: { shows: 'calls it (for a schema: sent or received it)', verdict: 'warns', reason: 'its requests and answers are the same; typed source that names the old name no longer compiles' },
      unused: { shows: 'did not send or receive the schema', verdict: 'untouched', reason: 'nothing it sends or receives is named by it' },
    },
    judge: (finding, usage) => {
      if (finding.rule !== 'schema-renamed' && finding.rule !== 'schema-removed') return { row: 'uses', evidence: `calls it (${usage.calls} calls)` };
      const name = finding.renamed?.from ?? finding.schema ?? '';
      const maps = [usage.bodySchemas ?? {}, ...Object.values(usage.responses).map((answer) => answer.schemas ?? {})];
      const place = maps.flatMap((map) => Object.entries(map)).find(([, names]) => names.includes(name));
      return place ? { row: 'uses', evidence: `${name} at ${place[0] || 'the body'}` } : { row: 'unused', evidence: `never sent or received ${name}` };
    },
  },
  {
    id: 'dialect',
    side: 'none',
    title: 'the schemas read in another JSON Schema dialect, or the dialect no longer declared',
    has: is('schema-dialect-changed', 'schema-dialect-undeclared'),
    rows: { calls: { shows: 'calls any operation', verdict: 'warns', reason: 'the requests and answers are the same; what validates or generates code from the schemas reads them otherwise' } },
    judge: (_finding, usage) => ({ row: 'calls', evidence: `calls operations (${usage.calls} calls)` }),
  },
  {
    id: 'must-send',
    side: 'request',
    title: 'something a request must now hold: a parameter, field or body made required or added as required',
    has: is(
      'request-parameter-added-required',
      'request-parameter-became-required',
      'request-property-added-required',
      'request-property-became-required',
      'request-body-added-required',
      'request-body-became-required',
    ),
    rows: {
      unsent: { shows: 'does not send it (a field: where it sends the object that holds it)', verdict: 'breaks', reason: 'its requests lack what is now required, and are refused' },
      sent: { shows: 'sends it already', verdict: 'untouched', reason: 'its requests already hold it' },
    },
    judge: (finding, usage) => {
      if (finding.rule === 'request-body-added-required' || finding.rule === 'request-body-became-required') {
        const bodySent = usage.mediaTypes.length > 0 || Object.keys(usage.body).length > 0;
        return bodySent ? { row: 'sent', evidence: `sends a body (${usage.mediaTypes.join(', ') || 'fields'})` } : { row: 'unsent', evidence: 'sends no body' };
      }
      if (ofParameters(finding)) {
        const { sent, unsent } = sentParameters(finding, usage);
        return unsent[0] ? { row: 'unsent', evidence: `does not send parameter ${unsent[0]}` } : { row: 'sent', evidence: `sends ${sent[0]?.key ?? 'it'}` };
      }
      const { sent, unsent } = sentFields(finding, usage);
      if (unsent[0]) return { row: 'unsent', evidence: `does not send ${unsent[0].pointer}` };
      return sent[0] ? { row: 'sent', evidence: `sends ${sent[0].pointer}` } : { row: 'sent', evidence: 'never sends the object that holds it' };
    },
  },
  {
    id: 'value-refused',
    side: 'request',
    title: 'a value a request field or parameter accepted no longer is: an enumeration value removed, a tag of a discriminated union removed, renamed or selecting another alternative',
    has: (rule) => REQUEST_SIDE(rule) && (rule.kind === 'enum-value-removed' || rule.kind === 'discriminator-tag-removed' || rule.kind === 'discriminator-tag-renamed' || rule.kind === 'discriminator-mapping-changed'),
    rows: {
      sentRefused: { shows: 'sent one of those values', verdict: 'breaks', reason: 'a request it sends is refused (or, for a tag, read as another alternative)' },
      sentOthers: { shows: 'sent the field, only other values', verdict: 'untouched', reason: 'every value it sends is still accepted' },
      sentUnknown: { shows: 'sent the field, its values not recorded', verdict: 'breaks', reason: 'it may send the value refused' },
      unsent: { shows: 'does not send it', verdict: 'untouched', reason: 'nothing it sends is refused' },
    },
    judge: (finding, usage) => {
      const { values, below } = refusedValues(finding);
      const places = below && !ofParameters(finding) ? { ...finding, fields: finding.fields.map((field) => `${field}.${below}`) } : finding;
      const { sent } = sentUses(places, usage);
      if (sent.length === 0) return { row: 'unsent', evidence: 'does not send it' };
      for (const use of sent) {
        const refused = (use.values ?? []).filter((value) => values.some((each) => each === value));
        if (refused.length > 0) return { row: 'sentRefused', evidence: `sent ${show(refused)} at ${use.name}` };
      }
      const known = sent.filter((use) => use.values !== undefined);
      if (known.length < sent.length || values.length === 0) return { row: 'sentUnknown', evidence: `sends ${sent[0]!.name}, its values not recorded` };
      return { row: 'sentOthers', evidence: `sent only ${show([...new Set(known.flatMap((use) => use.values ?? []))])} at ${known[0]!.name}` };
    },
  },
  {
    id: 'request-default',
    side: 'request',
    title: "a request field's or parameter's default removed or changed",
    has: (rule) => REQUEST_SIDE(rule) && (rule.kind === 'default-removed' || rule.kind === 'default-changed'),
    rows: {
      leftOut: { shows: 'leaves it out', verdict: 'breaks', reason: 'what leaving it out means changed under it' },
      sent: { shows: 'sends it', verdict: 'untouched', reason: 'it says the value itself' },
    },
    judge: (finding, usage) => {
      const { sent, unsent } = sentUses(finding, usage);
      if (sent[0]) return { row: 'sent', evidence: `sends ${sent[0].name}` };
      return { row: 'leftOut', evidence: `leaves ${unsent[0] ?? 'it'} out` };
    },
  },
  {
    id: 'request-sent',
    side: 'request',
    title: 'a request field or parameter that accepts less, or is gone: removed, read-only, another type, format or pattern, a tighter bound, an enumeration introduced, an alternative removed, the object sealed; a parameter moved or serialised otherwise',
    has: (rule) =>
      rule.severity === BREAKS_IT &&
      (REQUEST_SIDE(rule) || ['request-parameter-removed', 'request-parameter-removed-without-deprecation', 'request-parameter-removed-before-sunset', 'request-parameter-location-changed', 'request-parameter-style-changed', 'request-parameter-explode-changed'].includes(rule.id)) &&
      !['must-send', 'value-refused', 'request-default'].some((id) => familyHas(id, rule)),
    rows: {
      sent: { shows: 'sends it (its record does not tell that what it sent is still accepted)', verdict: 'breaks', reason: 'a record keeps no values of a field that is not an enumeration, only their types, lengths and ranges: a value it sends may be refused' },
      sentAccepted: {
        shows: 'sends it, and the types, lengths, ranges, sizes and enumerated values it recorded are accepted by the revision (a changed type, a tighter bound, an alternative removed that nothing it sent matched)',
        verdict: 'untouched',
        reason: 'everything it sent there is still accepted',
      },
      unsent: { shows: 'does not send it', verdict: 'untouched', reason: 'nothing it sends changes' },
    },
    judge: (finding, usage, revision) => {
      const { sent } = sentUses(finding, usage);
      if (!sent[0]) return { row: 'unsent', evidence: 'does not send it' };
      const accepted = stillAccepted(finding, usage, revision);
      return accepted ? { row: 'sentAccepted', evidence: accepted } : { row: 'sent', evidence: `sends ${sent[0].name}` };
    },
  },
  {
    id: 'request-body',
    side: 'request',
    title: 'the body no longer accepted, or one of its media types',
    has: is('request-body-removed', 'request-media-type-removed'),
    rows: {
      sent: { shows: 'sends it (that media type)', verdict: 'breaks', reason: 'its requests are refused' },
      unsent: { shows: 'does not', verdict: 'untouched', reason: 'nothing it sends changes' },
    },
    judge: (finding, usage) => {
      if (finding.rule === 'request-body-removed') return usage.mediaTypes.length > 0 || Object.keys(usage.body).length > 0 ? { row: 'sent', evidence: 'sends a body' } : { row: 'unsent', evidence: 'sends no body' };
      const mediaType = finding.args.mediaType ?? '';
      return usage.mediaTypes.includes(mediaType) ? { row: 'sent', evidence: `sends ${mediaType}` } : { row: 'unsent', evidence: `does not send ${mediaType}` };
    },
  },
  {
    id: 'response-read',
    side: 'response',
    title: 'a response field that may now hold what it could not: gone, optional, `null`, another type, format or pattern, a wider range, a new alternative or tag, write-only',
    has: (rule) => rule.severity === BREAKS_IT && rule.context === 'response-property',
    rows: {
      uses: { shows: 'reads it (where the record does not say what the code read: received it)', verdict: 'breaks', reason: 'what its code reads may now be missing or other than it handles' },
      ...UNREAD,
    },
    judge: (finding, usage) => responseUse(finding, usage),
  },
  {
    id: 'response-warning',
    side: 'response',
    title: 'a response field or header that may hold values its enumeration did not list (a value added, the enumeration dropped)',
    has: (rule) => rule.severity === 'warning' && (rule.context === 'response-property' || rule.context === 'response-header'),
    rows: {
      uses: { shows: 'reads it (or, without reads, received it; a header: received its answer)', verdict: 'warns', reason: 'code that switches over the values meets one it does not know' },
      ...UNREAD,
    },
    judge: (finding, usage) => answerUse(finding, usage),
  },
  {
    id: 'response-narrowed',
    side: 'response',
    title: 'what a consumer can receive narrowed: a response enumeration value, tag, alternative or type removed, a status no longer declared',
    has: (rule) => NARROWED.has(rule.id),
    rows: {
      uses: { shows: 'reads it, or received the status (a header: received its answer)', verdict: 'warns', reason: 'it can only receive less, which breaks nothing at run time; typed source that compares against what was removed no longer compiles' },
      unused: { shows: 'does not', verdict: 'untouched', reason: 'nothing it handles changes' },
    },
    judge: (finding, usage) => {
      if (finding.rule === 'response-status-removed') {
        const received = receivedAnswers(finding, usage);
        return received[0] ? { row: 'uses', evidence: `received ${received[0]}` } : { row: 'unused', evidence: 'never received the status' };
      }
      const use = answerUse(finding, usage);
      return use.row === 'uses' ? { row: 'uses', evidence: use.evidence } : { row: 'unused', evidence: use.evidence };
    },
  },
  {
    id: 'response-header',
    side: 'response',
    title: 'a response header gone, made optional, or holding what it could not',
    has: (rule) => rule.severity === BREAKS_IT && (rule.context === 'response-header' || HEADER_RULES.includes(rule.id)),
    rows: {
      received: { shows: 'received the answer that carries it', verdict: 'breaks', reason: 'a record does not keep which headers the code reads' },
      unreceived: { shows: 'never received that answer', verdict: 'untouched', reason: 'no answer it handled carried it' },
    },
    judge: (finding, usage) => {
      const received = receivedAnswers(finding, usage);
      return received[0] ? { row: 'received', evidence: `received ${received[0]}` } : { row: 'unreceived', evidence: 'never received the answer that carries it' };
    },
  },
  {
    id: 'success-status',
    side: 'response',
    title: 'the success status changed',
    has: is('response-success-status-changed'),
    rows: {
      receivedOld: { shows: 'received the old success status', verdict: 'breaks', reason: 'the answer it handles comes with another status' },
      unreceived: { shows: 'never received a success answer', verdict: 'untouched', reason: 'no answer it handled changes' },
    },
    judge: (finding, usage) => {
      const old = (finding.args.was ?? []).map(String);
      const received = Object.keys(usage.responses).find((key) => old.some((status) => statusMatches(status, key.split(' ')[0]!)));
      return received ? { row: 'receivedOld', evidence: `received ${received}` } : { row: 'unreceived', evidence: 'never received a success answer' };
    },
  },
  {
    id: 'status-added',
    side: 'response',
    title: 'a new error status declared',
    has: is('response-status-added'),
    rows: { calls: { shows: 'calls it', verdict: 'warns', reason: 'code that switches over the statuses meets one it does not know' } },
    judge: (_finding, usage) => ({ row: 'calls', evidence: `calls it (${usage.calls} calls)` }),
  },
  {
    id: 'response-media-type',
    side: 'response',
    title: 'an answer no longer given in a media type',
    has: is('response-media-type-removed'),
    rows: {
      received: { shows: 'received it in that media type', verdict: 'breaks', reason: 'the answer it reads comes in another media type' },
      unreceived: { shows: 'received it in other media types only', verdict: 'untouched', reason: 'what it receives is still given' },
    },
    judge: (finding, usage) => {
      const received = receivedAnswers(finding, usage).find((key) => key.includes(' '));
      return received ? { row: 'received', evidence: `received ${received}` } : { row: 'unreceived', evidence: 'never received that media type' };
    },
  },
];

/** Response-side findings that break implementations and only narrow what a consumer receives, that typed source may compare against. */
const NARROWED = new Set<string>([
  'response-property-enum-value-removed',
  'response-property-discriminator-tag-removed',
  'response-property-variant-removed',
  'response-property-type-narrowed',
  'response-header-enum-value-removed',
  'response-header-type-narrowed',
  'response-header-variant-removed',
  'response-status-removed',
]);

function familyHas(id: string, rule: Rule): boolean {
  return FAMILIES.find((family) => family.id === id)!.has(rule);
}

/** The family of each rule: exactly one (test/contract/consumer-corpus.test.ts checks it). */
export function familyOf(rule: RuleId | string): Family {
  const known = RULES.get(rule as RuleId);
  if (!known) throw new Error(`no rule ${rule}`);
  const family = FAMILIES.find((each) => each.has(known));
  if (!family) throw new Error(`rule ${rule} is in no family of conformance/judgement/judgement.ts`);
  return family;
}

// ---- the judgement ---------------------------------------------------------------------------------------------

/**
 * What one finding does to one consumer. `aliases`: operation ids the change renamed, new → old (the record's);
 * `revision`: the contract changed to, which tells of a tighter request bound whether what the record sent is still accepted.
 */
export function judgeFinding(finding: Finding, record: UsageRecord, aliases: ReadonlyMap<string, string> = new Map(), revision?: Contract): Effect {
  const family = familyOf(finding.rule);
  const called = Object.entries(record.operations);
  // A change of the whole document (its dialect) touches every operation.
  const whole = finding.operations.length === 0 && finding.operation === undefined && finding.schema === undefined;
  const operations = whole ? called.map(([operationId]) => ({ operationId, now: operationId })) : finding.operations.map((operation) => ({ operationId: aliases.get(operation.operationId) ?? operation.operationId, now: operation.operationId }));
  let best: Effect | undefined;
  for (const { operationId, now } of operations) {
    const usage = record.operations[operationId];
    if (!usage) continue;
    const outcome = family.judge(finding, usage, revision ? { contract: revision, operationId: now } : undefined);
    const row = family.rows[outcome.row]!;
    if (!best || RANK[row.verdict] > RANK[best.verdict]) best = { finding, verdict: row.verdict, family: family.id, row: outcome.row, operationId, evidence: outcome.evidence, side: family.side, places: placesOf(finding, family.side, usage) };
    if (row.verdict === 'breaks') break;
  }
  return best ?? { finding, verdict: 'untouched', family: family.id, row: 'notCalled', evidence: 'calls none of the operations it affects' };
}

/** The operation ids a change renamed, new → old: a record names its operations as the base did. */
export function renamedOperations(findings: readonly Finding[]): Map<string, string> {
  return new Map(findings.filter((finding) => finding.rule === 'operation-id-changed' && finding.renamed).map((finding) => [finding.renamed!.to, finding.renamed!.from]));
}

/**
 * THE judgement: what a change (the findings of comparing a base contract with a revision) does to one consumer, by
 * its usage record: `breaks` when a finding breaks it, else `warns` when one warns it, else `untouched`; with every
 * finding that breaks or warns it, and the use that shows it.
 */
export function judgeConsumer(findings: readonly Finding[], record: UsageRecord, revision?: Contract): ConsumerJudgement {
  const aliases = renamedOperations(findings);
  const effects = findings.map((finding) => judgeFinding(finding, record, aliases, revision)).filter((effect) => effect.verdict !== 'untouched');
  effects.sort((a, b) => RANK[b.verdict] - RANK[a.verdict]);
  return { consumer: record.consumer, verdict: effects[0]?.verdict ?? 'untouched', effects };
}

/** The judgement of the change from `base` to `revision` (two OpenAPI documents) for one consumer. */
export function judgeChange(base: unknown, revision: unknown, record: UsageRecord): ConsumerJudgement {
  return judgeConsumer(compareDocuments(base, revision), record, loadContract(revision as OpenApiDocument));
}

/** A row of a family, by ids: for the table and the corpus. */
export function rowOf(family: string, row: string): Row {
  if (row === 'notCalled') return NOT_CALLED;
  return FAMILIES.find((each) => each.id === family)!.rows[row]!;
}

/** The reason an effect has its verdict. */
export const reasonOf = (effect: Effect): string => rowOf(effect.family, effect.row).reason;
