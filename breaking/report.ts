// The gate's text output: one line per finding, grouped by the operation or component it belongs to, then a
// summary line; for undeclared breaking findings, the declarations that would accept them.
import { stringify } from 'yaml';
import type { Finding, OperationRef } from './compare.ts';
import { declarationFor, type Judged, type Verdict } from './gate.ts';
import type { Severity } from './rules.ts';

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

/** `createSpace  POST /v1/…` for one operation, the ids for several. */
export function showOperations(finding: Finding): string {
  if (finding.operations.length === 0) return '(no operation)';
  if (finding.operations.length === 1) return showOperation(finding.operations[0]!);
  return finding.operations.map((operation) => operation.operationId).join(', ');
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
  /** Where declarations go, for the advice on undeclared findings. */
  declarationsFile: string;
}

export function formatReport(verdict: Verdict, options: ReportOptions): string {
  const lines: string[] = [];
  const { judged } = verdict;
  lines.push(`check:breaking: ${options.subject}: ${plural(judged.length, 'difference')}`);
  for (const group of groupJudged(judged)) {
    lines.push('', group.title);
    for (const entry of group.entries) {
      const { finding } = entry;
      lines.push(
        `  ${severityLabel(entry)} ${finding.rule}  ${showOperations(finding)}  ${finding.path}${finding.document === 'base' ? ' (in the release)' : ''}  ${finding.message}`,
      );
      if (finding.action && finding.severity !== 'non-breaking') lines.push(`      to do: ${finding.action}`);
      if (entry.declaration) lines.push(`      declared: ${entry.declaration.reason}`);
    }
  }

  for (const declaration of verdict.stale) {
    lines.push(
      '',
      `STALE declaration in ${options.declarationsFile}: ${declaration.rule} ${declaration.operation ?? declaration.schema} ${declaration.path} matches no difference; correct it or remove it`,
    );
  }
  for (const problem of verdict.problems) lines.push('', `PROBLEM: ${problem}`);

  const count = (predicate: (entry: Judged) => boolean) => judged.filter(predicate).length;
  const client = verdict.undeclared.filter((finding) => finding.severity === 'breaking-client').length;
  const implementation = verdict.undeclared.length - client;
  const tally = [
    `${count((entry) => entry.allowedBy === 'declaration')} breaking declared`,
    ...(verdict.majorBump ? [`${count((entry) => entry.allowedBy === 'major-version')} breaking allowed by the major version`] : []),
    plural(count((entry) => entry.finding.severity === 'warning'), 'warning'),
    `${count((entry) => entry.finding.severity === 'non-breaking')} non-breaking`,
  ].join(', ');
  lines.push('');
  if (verdict.passed) {
    lines.push(`check:breaking: passed: ${tally}.`);
  } else {
    const reasons: string[] = [];
    if (verdict.undeclared.length > 0) {
      reasons.push(`${plural(verdict.undeclared.length, 'undeclared breaking change')} (${client} for clients, ${implementation} for implementations)`);
    }
    if (verdict.stale.length > 0) reasons.push(plural(verdict.stale.length, 'stale declaration'));
    if (verdict.problems.length > 0) reasons.push(plural(verdict.problems.length, 'version problem'));
    lines.push(`check:breaking: FAILED: ${reasons.join(', ')}; ${tally}.`);
  }
  if (verdict.undeclared.length > 0) {
    lines.push(
      `Declare each accepted break in ${options.declarationsFile} (with its reason), or raise the major version in spec/main.tsp (@info):`,
      '',
      stringify(verdict.undeclared.map((finding) => ({ ...declarationFor(finding), reason: 'TODO: why clients and implementations can accept it' }))).trimEnd(),
    );
  }
  return `${lines.join('\n')}\n`;
}

export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
