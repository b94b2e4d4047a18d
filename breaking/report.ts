// The gate's text output: what fails the gate first, one line per finding grouped by the operation or component it
// belongs to, with who it breaks, what to do and where it was made; then the other differences; then the declared ones
// grouped and counted; a summary line; the declarations that would accept what fails. The helpers here (labels,
// operation lists, tallies, the grouping of one change over many operations) serve the other formats and the compile's rule too.
import { stringify } from 'yaml';
import type { Finding, OperationRef } from '../compare/index.ts';
import { declarationFor, type Judged, type Verdict } from './gate.ts';
import type { Locator, SourceLocation } from './locate.ts';
import { RULES, WHO, type Severity } from '../compare/rules.ts';
import { isRefusedRemoval } from '../compare/removals.ts';

const LABELS: Record<Severity, string> = {
  'breaking-client': 'BREAKING (client)',
  'breaking-source': 'BREAKING (source)',
  'breaking-implementation': 'BREAKING (implementation)',
  warning: 'WARNING',
  'non-breaking': 'non-breaking',
};

export function severityLabel(entry: Judged): string {
  const label = LABELS[entry.finding.severity];
  if (entry.allowedBy === 'declaration') return `${label}, declared`;
  if (entry.allowedBy === 'major-version') return `${label}, major version`;
  return label;
}

export function showOperation(operation: OperationRef): string {
  return `${operation.operationId}  ${operation.method} ${operation.path}`;
}

/** The most operation ids listed in one line; more are counted by tag. */
const LISTED = 3;

/** `getSpace, listSpaces` for a few operations; `26 operations: Spaces (10), Collections (3), …` for many. */
export function summarizeOperations(operations: readonly OperationRef[], listed = LISTED): string {
  if (operations.length <= listed) return operations.map((operation) => operation.operationId).join(', ');
  const byTag = new Map<string, number>();
  for (const operation of operations) {
    const tag = operation.tag ?? operation.path.split('/').filter((part) => part && !/^v\d+$/.test(part))[0] ?? 'other';
    byTag.set(tag, (byTag.get(tag) ?? 0) + 1);
  }
  const tags = [...byTag].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const shown = tags.slice(0, 5).map(([tag, count]) => `${tag} (${count})`);
  if (tags.length > 5) shown.push(plural(tags.length - 5, 'more group'));
  return `${operations.length} operations: ${shown.join(', ')}`;
}

/** `createSpace  POST /v1/…` for one operation, the ids (or their groups) for several. */
export function showOperations(finding: Finding): string {
  if (finding.operations.length === 0) return '(no operation)';
  if (finding.operations.length === 1) return showOperation(finding.operations[0]!);
  return summarizeOperations(finding.operations);
}

/** Who it breaks, what changed for them, and what to do: `breaks clients in use: … To do: …`. */
export function consequence(finding: Finding): string {
  const rule = RULES.get(finding.rule)!;
  const who = `${WHO[finding.severity]}: ${rule.summary}.`;
  return finding.action && finding.severity !== 'non-breaking' ? `${who} To do: ${finding.action}` : who;
}

export function showLocation(location: SourceLocation | undefined): string {
  return location ? `${location.file}:${location.line}` : '';
}

/** The group a finding is shown in: its operation, or its component. */
export function groupOf(finding: Finding): { key: string; title: string } {
  if (finding.schema !== undefined) return { key: `schema ${finding.schema}`, title: `${finding.schema} (component)` };
  const operation = finding.operation;
  return operation ? { key: `operation ${operation.operationId}`, title: showOperation(operation) } : { key: 'document', title: 'document' };
}

export function groupJudged(judged: readonly Judged[]): { title: string; entries: Judged[] }[] {
  const groups = new Map<string, { title: string; entries: Judged[] }>();
  for (const entry of judged) {
    const { key, title } = groupOf(entry.finding);
    if (!groups.has(key)) groups.set(key, { title, entries: [] });
    groups.get(key)!.entries.push(entry);
  }
  return [...groups.values()];
}

export interface ReportOptions {
  /** What was compared, for the first line: `generated/openapi.yaml (1.0.0) against release 1.0.0`. */
  subject: string;
  /** Where declarations go, for the advice on failing findings. */
  declarationsFile: string;
  /** Where each finding was made (a TypeSpec line, a document line), when known. */
  locate?: Locator;
  /** Where the major version is raised (default: the contract's `spec/main.tsp`). */
  versionAt?: string;
}

/** The counts of the summary line: `0 breaking declared, 1 warning, 2 non-breaking`. */
export function tally(verdict: Verdict): string {
  const { judged } = verdict;
  const count = (predicate: (entry: Judged) => boolean) => judged.filter(predicate).length;
  const breaking = (entry: Judged) => entry.finding.severity.startsWith('breaking-');
  const below = count((entry) => breaking(entry) && !entry.allowedBy && !entry.fails);
  return [
    `${count((entry) => entry.allowedBy === 'declaration')} breaking declared`,
    ...(verdict.majorBump ? [`${count((entry) => entry.allowedBy === 'major-version')} breaking allowed by the major version`] : []),
    ...(below > 0 ? [`${below} breaking below --fail-on ${verdict.failOn}`] : []),
    plural(count((entry) => entry.finding.severity === 'warning'), 'warning'),
    `${count((entry) => entry.finding.severity === 'non-breaking')} non-breaking`,
  ].join(', ');
}

/** Why the gate failed: `2 undeclared breaking changes (1 for clients, …), 1 stale declaration`. */
export function failureReasons(verdict: Verdict): string {
  const reasons: string[] = [];
  if (verdict.undeclared.length > 0) {
    const by = (severity: Severity) => verdict.undeclared.filter((finding) => finding.severity === severity).length;
    const parts = [`${by('breaking-client')} for clients`, `${by('breaking-implementation')} for implementations`];
    if (by('breaking-source') > 0) parts.push(`${by('breaking-source')} for typed clients' source`);
    if (by('warning') > 0) parts.push(plural(by('warning'), 'warning'));
    reasons.push(`${plural(verdict.undeclared.length, 'undeclared breaking change')} (${parts.join(', ')})`);
  }
  const brokenAlone = (verdict.consumers ?? []).filter((outcome) => outcome.fails).length;
  if (brokenAlone > 0) reasons.push(`${plural(brokenAlone, 'consumer')} broken by what no change shows (its record judged against the revision alone)`);
  if (verdict.stale.length > 0) reasons.push(plural(verdict.stale.length, 'stale declaration'));
  if (verdict.problems.length > 0) reasons.push(plural(verdict.problems.length, 'problem'));
  return reasons.join(', ');
}

/** The heading of the consumers' verdicts, in every format. */
export const CONSUMERS_HEADING = 'Consumers, each judged by the change and by its record against the revision alone';

/**
 * Each consumer's verdict (`--consumers`): `name: breaks`, then a line per break (`✗`) and warning (`!`), a break
 * the record alone found saying so; every format shows these.
 */
export function consumerBlocks(verdict: Verdict): { consumer: string; verdict: string; fails: boolean; head: string; lines: string[] }[] {
  return (verdict.consumers ?? []).map((outcome) => ({
    consumer: outcome.consumer,
    verdict: outcome.verdict,
    fails: outcome.fails,
    head: `${outcome.consumer}: ${outcome.verdict}`,
    lines: [...outcome.breaks.map((use) => `✗ ${use.line}`), ...outcome.warnings.map((use) => `! ${use.line}`), ...outcome.notes.map((note) => `note: ${note}`)],
  }));
}

export function summaryLine(verdict: Verdict): string {
  return verdict.passed ? `check:breaking: passed: ${tally(verdict)}.` : `check:breaking: FAILED: ${failureReasons(verdict)}; ${tally(verdict)}.`;
}

export function staleLine(declaration: { rule: string; operation?: string; schema?: string; path: string }, file: string): string {
  return `STALE declaration in ${file}: ${declaration.rule} ${declaration.operation ?? declaration.schema ?? '(the document)'} ${declaration.path} matches no difference; correct it or remove it`;
}

/**
 * The declarations that would accept the failing findings, ready to paste: one per rule, owner and path, which is
 * what a declaration matches (several findings at one place, such as the values added to and removed from an enum's
 * list, take one).
 */
export function declarationsToAdd(verdict: Verdict, findings: readonly Finding[] = verdict.undeclared): string {
  const declarations = new Map<string, ReturnType<typeof declarationFor>>();
  for (const finding of findings) {
    const declaration = declarationFor(finding);
    declarations.set(`${declaration.rule}\n${declaration.operation ?? declaration.schema ?? ''}\n${declaration.path}`, declaration);
  }
  return stringify([...declarations.values()].map((declaration) => ({ ...declaration, reason: 'TODO: why clients and implementations can accept it' }))).trimEnd();
}

/** The text report's lines of `entries` one by one, grouped by operation or component, each rule's first ones. */
function detailLines(entries: readonly Judged[], options: ReportOptions, explain: (finding: Finding) => string[]): string[] {
  const lines: string[] = [];
  const { shared, rest } = sharedFindings(entries);
  const { shown, more } = firstOfEachRule(rest);
  for (const group of groupJudged(shown)) {
    lines.push('', group.title);
    for (const entry of group.entries) {
      const { finding } = entry;
      lines.push(
        `  ${severityLabel(entry)} ${finding.rule}  ${showOperations(finding)}  ${finding.path}${finding.document === 'base' ? ' (in the release)' : ''}  ${finding.message}`,
        ...explain(finding),
      );
      const where = showLocation(options.locate?.(finding));
      if (where) lines.push(`      at ${where}`);
      if (entry.declaration) lines.push(`      declared: ${entry.declaration.reason}`);
    }
  }
  if (shared.length > 0) lines.push('', 'The same change in many operations (--format json lists each)');
  for (const group of shared) {
    const [{ finding }] = group as [Judged, ...Judged[]];
    lines.push(`  ${severityLabel(group[0]!)} ${finding.rule}  ${summarizeOperations(operationsOf(group))}  ${finding.message}`, ...explain(finding));
  }
  if (more.size > 0) lines.push('', `More of the same rules (each rule shows its first ${SHOWN_PER_RULE} here; --format json lists every finding)`);
  for (const [rule, group] of more) {
    const severities = [...new Set(group.map(severityLabel))].join(', ');
    const owners = new Set(group.map((entry) => groupOf(entry.finding).key)).size;
    lines.push(`  ${severities} ${rule}: ${plural(group.length, 'more finding')} in ${plural(owners, 'operation or component', 'operations or components')}`);
  }
  return lines;
}

const operationsOf = (entries: readonly Judged[]) => entries.flatMap((entry) => entry.finding.operations);

/** The most messages a line of declared changes quotes; the others are counted. */
const QUOTED = 2;

/**
 * The declared findings, decided once: a heading with their count, then one line per rule and reason (its findings
 * counted, their operations summarized, the first messages quoted) and the reason once.
 */
export function declaredLines(declared: readonly Judged[], declarationsFile: string): string[] {
  if (declared.length === 0) return [];
  const groups = new Map<string, Judged[]>();
  for (const entry of declared) {
    const key = `${severityLabel(entry)}\n${entry.finding.rule}\n${entry.declaration?.reason ?? ''}`;
    groups.set(key, [...(groups.get(key) ?? []), entry]);
  }
  const lines = ['', `declared in ${declarationsFile}: ${plural(declared.length, 'change')}, by rule and reason (--format json lists each)`];
  for (const group of groups.values()) {
    const [first] = group as [Judged, ...Judged[]];
    const messages = [...new Set(group.map((entry) => entry.finding.message))];
    const quoted = [...messages.slice(0, QUOTED), ...(messages.length > QUOTED ? [`${messages.length - QUOTED} more`] : [])].join('; ');
    const operations = operationsOf(group);
    const where = operations.length > 0 ? summarizeOperations(operations) : '(no operation)';
    lines.push(`  ${first.finding.rule} (${WHO[first.finding.severity]}): ${plural(group.length, 'finding')}  ${where}  ${quoted}`);
    if (first.declaration) lines.push(`      declared: ${first.declaration.reason}`);
  }
  return lines;
}

/**
 * The text report: what fails the gate first, one by one (with who it breaks, what to do and where it was made), then
 * the other differences, then the declared ones grouped and counted; the consumers' verdicts, stale declarations,
 * other problems (versions, the promise), the summary line, and the declarations that would accept what fails.
 */
export function formatReport(verdict: Verdict, options: ReportOptions): string {
  const { judged } = verdict;
  const lines = [`check:breaking: ${options.subject}: ${plural(judged.length, 'difference')}`];
  // What a rule means and what to do is the same for each of its findings: said at the first.
  const explained = new Set<string>();
  const explain = (finding: Finding) => {
    if (finding.severity === 'non-breaking' || explained.has(finding.rule)) return [];
    explained.add(finding.rule);
    return [`      ${consequence(finding)}`];
  };
  const failing = judged.filter((entry) => entry.fails);
  const declared = judged.filter((entry) => !entry.fails && entry.allowedBy === 'declaration');
  const others = judged.filter((entry) => !entry.fails && entry.allowedBy !== 'declaration');
  if (failing.length > 0) {
    lines.push('', `BREAKING, undeclared: ${plural(failing.length, 'change')} the gate fails on (undo each, or declare it: the entries follow the summary)`);
    lines.push(...detailLines(failing, options, explain));
  }
  if (others.length > 0 && (failing.length > 0 || declared.length > 0)) lines.push('', `Other differences, none failing the gate: ${others.length}`);
  lines.push(...detailLines(others, options, explain), ...declaredLines(declared, options.declarationsFile));

  const consumers = consumerBlocks(verdict);
  if (consumers.length > 0) lines.push('', `${CONSUMERS_HEADING}:`);
  for (const block of consumers) lines.push(`  ${block.head}${block.fails ? ' (fails the gate)' : ''}`, ...block.lines.map((line) => `      ${line}`));

  for (const declaration of verdict.stale) lines.push('', staleLine(declaration, options.declarationsFile));
  for (const problem of verdict.problems) lines.push('', `PROBLEM: ${problem}`);

  lines.push('', summaryLine(verdict));
  const refused = verdict.undeclared.filter((finding) => isRefusedRemoval(finding.rule));
  if (refused.length > 0) {
    lines.push(`Refused: ${plural(refused.length, 'removal')} before ${refused.length === 1 ? 'its' : 'their'} sunset, which no declaration or major version lets pass: keep ${refused.length === 1 ? 'it' : 'each'} until its \`x-sunset\` day.`);
  }
  const toDeclare = verdict.undeclared.filter((finding) => !isRefusedRemoval(finding.rule));
  if (toDeclare.length > 0) {
    const listed = firstOfEachRule(toDeclare.map((finding) => ({ finding, fails: true }))).shown.map((entry) => entry.finding);
    lines.push(
      `Declare each accepted break in ${options.declarationsFile} (with its reason), or raise the major version in ${options.versionAt ?? 'spec/main.tsp (@info)'}${
        listed.length < toDeclare.length ? ` (the declarations of each rule's first ${SHOWN_PER_RULE} failing findings; --format json lists them all)` : ''
      }:`,
      '',
      declarationsToAdd(verdict, listed),
    );
  }
  return `${lines.join('\n')}\n`;
}

/** How many findings of one change make it shown once, with its operations counted: a change to a shared model. */
export const SHARED_AT = 10;

/** How many findings of one rule the text report shows one by one: a screen's worth. */
const SHOWN_PER_RULE = 15;

/** What makes findings the same change: their severity as the gate judges it, their rule and their message. */
export const changeKey = (entry: Judged): string => `${severityLabel(entry)}\n${entry.finding.rule}\n${entry.finding.message}`;

/**
/**
 * Items that are the same change in many operations, by `keyOf` (the same key: the same change), as `at` or more
 * items: `shared`, each in the order met; the others `rest`, in their order. The one grouping of the gate's text
 * report, the compile's breaking-change rule (live.ts, `liveReport`), the release notes and whatever else says a
 * change spread over many operations once.
 */
export function groupSameChange<T>(items: readonly T[], keyOf: (item: T) => string, at = SHARED_AT): { shared: T[][]; rest: T[] } {
  const byKey = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = byKey.get(key);
    if (group) group.push(item);
    else byKey.set(key, [item]);
  }
  const shared = [...byKey.values()].filter((group) => group.length >= at);
  const collapsed = new Set(shared.flat());
  return { shared, rest: items.filter((item) => !collapsed.has(item)) };
}

/**
 * Findings that are the same change (`changeKey`) in many operations, such as an error status added to an alias
 * every operation uses, or a field dropped from an inline schema every operation repeats: shown once, with the
 * operations counted, where one entry per operation would bury the rest (the JSON output lists each). `judgedOf`
 * reads an item as the gate judged it; `at` is how many make a group.
 */
export function sharedFindings<T = Judged>(
  entries: readonly T[],
  judgedOf: (entry: T) => Judged = (entry) => entry as Judged,
  at = SHARED_AT,
): { shared: T[][]; rest: T[] } {
  return groupSameChange(entries, (entry) => changeKey(judgedOf(entry)), at);
}

/** Each rule's first `SHOWN_PER_RULE` findings, and the others by rule. */
function firstOfEachRule(judged: readonly Judged[]): { shown: Judged[]; more: Map<string, Judged[]> } {
  const counts = new Map<string, number>();
  const shown: Judged[] = [];
  const more = new Map<string, Judged[]>();
  for (const entry of judged) {
    const { rule } = entry.finding;
    const count = (counts.get(rule) ?? 0) + 1;
    counts.set(rule, count);
    if (count <= SHOWN_PER_RULE) shown.push(entry);
    else more.set(rule, [...(more.get(rule) ?? []), entry]);
  }
  return { shown, more };
}

export function plural(count: number, noun: string, nouns = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : nouns}`;
}
