// The gate: which findings may pass. A finding at or above the threshold (`failOn`: by default every breaking
// finding) passes when a declaration names it (rule, owner and JSON path, matched exactly) or when the revision's
// major version is above the base's. A declaration that matches no finding is stale and fails the gate, so the
// declarations file cannot rot. Pure: findings and declarations in.
import type { Finding } from '../compare/index.ts';
import { RULES, isBreaking, isDocumentRule, type Severity } from '../compare/rules.ts';
import type { ConsumerOutcome } from '../conformance/judgement/verdict.ts';
import { isRefusedRemoval } from '../compare/removals.ts';

/**
 * What fails the gate: `client` the findings that break clients (on the wire, or in their typed source);
 * `implementation` those and the ones that break implementations (the default); `warning` those and warnings.
 */
export type FailOn = 'client' | 'implementation' | 'warning';

export const FAIL_ON: readonly FailOn[] = ['client', 'implementation', 'warning'];

export function failsAt(severity: Severity, failOn: FailOn = 'implementation'): boolean {
  if (severity === 'breaking-client' || severity === 'breaking-source') return true;
  if (severity === 'breaking-implementation') return failOn !== 'client';
  return severity === 'warning' && failOn === 'warning';
}

/** One entry of `spec/breaking-changes.yaml`. */
export interface Declaration {
  rule: string;
  /** The operation id the finding belongs to (its place is under `#/paths`)… */
  operation?: string;
  /**
   * …or the component (`CreateSpaceRequest`, `parameters/SpacePath`) when its place is under `#/components`; neither
   * for a rule of the whole document (`schema-dialect-changed`).
   */
  schema?: string;
  /** The finding's JSON path, exactly as `check:breaking` prints it. */
  path: string;
  /** Why the break is accepted; shown in the release notes. */
  reason: string;
  /**
   * `accepted-by` in the file: the known consumers (their records' names) that accepted the break; a release that is not
   * a new major is refused while it breaks a known consumer this does not name (breaking/promise.ts).
   */
  acceptedBy?: string[];
}

/** The fields of a declaration, as the file spells them. */
const DECLARATION_FIELDS = ['rule', 'operation', 'schema', 'path', 'reason', 'accepted-by'];

/** Where a problem of a declaration is: `entry 3` (a locator may add its line, `line 40 (entry 3)`). */
export type DeclarationPlace = (index: number, field?: string) => string;

/** A declaration as the file spells it (`accepted-by`), for writing it back. */
export function declarationEntry(declaration: Declaration): Record<string, unknown> {
  const { acceptedBy, ...rest } = declaration;
  return { ...rest, ...(acceptedBy ? { 'accepted-by': acceptedBy } : {}) };
}

/** `accepted-by`'s value: a list of consumer names, or the problem with it. */
function acceptedByOf(value: unknown): { names?: string[]; problem?: string } {
  if (value === undefined) return {};
  const names = Array.isArray(value) ? value.filter((name): name is string => typeof name === 'string' && name.trim() !== '').map((name) => name.trim()) : [];
  if (!Array.isArray(value) || names.length !== value.length || names.length === 0) {
    return { problem: '`accepted-by` must be a list of the names of the consumers that accepted the break (`accepted-by: [search-service]`)' };
  }
  return { names };
}

/** Reads declarations from a parsed YAML value; problems name the entry and the field. */
export function parseDeclarations(value: unknown, place: DeclarationPlace = (index) => `entry ${index + 1}`): { declarations: Declaration[]; problems: string[] } {
  const declarations: Declaration[] = [];
  const problems: string[] = [];
  if (value === null || value === undefined) return { declarations, problems };
  if (!Array.isArray(value)) return { declarations, problems: ['the declarations must be a YAML list (`[]` for none)'] };
  value.forEach((entry, index) => {
    const at = place(index);
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      problems.push(`${at}: must be a mapping with rule, operation or schema, path and reason`);
      return;
    }
    const record = entry as Record<string, unknown>;
    const unknown = Object.keys(record).filter((key) => !DECLARATION_FIELDS.includes(key));
    for (const key of unknown) problems.push(`${place(index, key)}: unknown field \`${key}\` (expected rule, operation or schema, path, reason, accepted-by)`);
    const accepted = acceptedByOf(record['accepted-by']);
    if (accepted.problem) problems.push(`${place(index, 'accepted-by')}: ${accepted.problem}`);
    const text = (key: string) => (typeof record[key] === 'string' && (record[key] as string).trim() !== '' ? (record[key] as string).trim() : undefined);
    const rule = text('rule');
    const path = text('path');
    const reason = text('reason');
    const operation = text('operation');
    const schema = text('schema');
    if (!rule) problems.push(`${place(index, 'rule')}: \`rule\` is missing`);
    else if (!RULES.has(rule as never)) problems.push(`${place(index, 'rule')}: \`rule\` ${rule} is not a rule id (see breaking/README.md)`);
    if (!path) problems.push(`${place(index, 'path')}: \`path\` is missing`);
    else if (!path.startsWith('#/')) problems.push(`${place(index, 'path')}: \`path\` must be a JSON path starting with #/`);
    if (!reason) problems.push(`${place(index, 'reason')}: \`reason\` is missing: say why the break is accepted`);
    else if (/^TODO\b/i.test(reason)) problems.push(`${place(index, 'reason')}: \`reason\` still says TODO: say why the break is accepted`);
    // A rule of the whole document has neither an operation nor a component.
    const owned = rule !== undefined && isDocumentRule(rule) ? !operation && !schema : Boolean(operation) !== Boolean(schema);
    if (!owned) problems.push(`${at}: ${rule !== undefined && isDocumentRule(rule) ? `${rule} is a change of the whole document: give neither \`operation\` nor \`schema\`` : 'give exactly one of `operation` and `schema`'}`);
    if (rule && path && reason && !/^TODO\b/i.test(reason) && owned && !accepted.problem) {
      declarations.push({ rule, path, reason, ...(operation ? { operation } : schema ? { schema } : {}), ...(accepted.names ? { acceptedBy: accepted.names } : {}) });
    }
  });
  return { declarations, problems };
}

export function matches(declaration: Declaration, finding: Finding): boolean {
  if (declaration.rule !== finding.rule || declaration.path !== finding.path) return false;
  if (declaration.operation !== undefined) return finding.operation?.operationId === declaration.operation;
  if (declaration.schema !== undefined) return finding.schema === declaration.schema;
  return finding.operation === undefined && finding.schema === undefined;
}

/** The declaration that names a finding: what to write in `spec/breaking-changes.yaml`. */
export function declarationFor(finding: Finding): Omit<Declaration, 'reason'> {
  return {
    rule: finding.rule,
    ...(finding.schema !== undefined ? { schema: finding.schema } : finding.operation ? { operation: finding.operation.operationId } : {}),
    path: finding.path,
  };
}

export type Version = [number, number, number];

export function parseVersion(text: unknown): Version | undefined {
  if (typeof text !== 'string') return undefined;
  const match = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$/.exec(text.trim());
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : undefined;
}

export function compareVersions(a: Version, b: Version): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

export interface Judged {
  finding: Finding;
  /** Why a finding at or above the threshold passes: a declaration, or the major version. */
  allowedBy?: 'declaration' | 'major-version';
  declaration?: Declaration;
  /** Whether it fails the gate. */
  fails: boolean;
}

export interface Verdict {
  judged: Judged[];
  /** With `--consumers`: each consumer's verdict (conformance/judgement/verdict.ts), and whether it fails the gate (`--fail-on consumers`: a break only its record shows). */
  consumers?: (ConsumerOutcome & { fails: boolean })[];
  /** Findings at or above the threshold that nothing allows: they fail the gate. */
  undeclared: Finding[];
  /** Declarations that match no finding. */
  stale: Declaration[];
  /**
   * What else fails the gate, one line each: the versions compared (a revision below the base, an unreadable version),
   * and the promise of a version range (a declared break a known consumer has not accepted, breaking/promise.ts).
   */
  problems: string[];
  majorBump: boolean;
  failOn: FailOn;
  passed: boolean;
}

export interface GateOptions {
  baseVersion?: string;
  revisionVersion?: string;
  declarations?: readonly Declaration[];
  /** What fails the gate (default `implementation`: every breaking finding). */
  failOn?: FailOn;
}

export function evaluateGate(findings: readonly Finding[], options: GateOptions = {}): Verdict {
  const problems: string[] = [];
  const base = parseVersion(options.baseVersion);
  const revision = parseVersion(options.revisionVersion);
  if (options.baseVersion !== undefined && !base) problems.push(`the release's version ${options.baseVersion} is not MAJOR.MINOR.PATCH`);
  if (options.revisionVersion !== undefined && !revision) problems.push(`info.version ${options.revisionVersion} is not MAJOR.MINOR.PATCH`);
  if (base && revision && compareVersions(revision, base) < 0) {
    problems.push(`info.version ${options.revisionVersion} is lower than the last release ${options.baseVersion}`);
  }
  const majorBump = Boolean(base && revision && revision[0] > base[0]);

  const failOn = options.failOn ?? 'implementation';
  const declarations = options.declarations ?? [];
  const used = new Set<Declaration>();
  const judged: Judged[] = findings.map((finding) => {
    const declaration = declarations.find((candidate) => matches(candidate, finding));
    if (declaration) used.add(declaration);
    const counts = failsAt(finding.severity, failOn) || isBreaking(finding.severity);
    if (!counts) return { finding, fails: false, ...(declaration ? { declaration } : {}) };
    // A removal before its sunset: no declaration and no major version lets it pass (compare/removals.ts).
    if (isRefusedRemoval(finding.rule)) return { finding, fails: true, ...(declaration ? { declaration } : {}) };
    if (declaration) return { finding, allowedBy: 'declaration', declaration, fails: false };
    if (majorBump) return { finding, allowedBy: 'major-version', fails: false };
    return { finding, fails: failsAt(finding.severity, failOn) };
  });
  const undeclared = judged.filter((entry) => entry.fails).map((entry) => entry.finding);
  const stale = declarations.filter((declaration) => !used.has(declaration));
  return {
    judged,
    undeclared,
    stale,
    problems,
    majorBump,
    failOn,
    passed: undeclared.length === 0 && stale.length === 0 && problems.length === 0,
  };
}
