// The findings of a comparison: what callers receive (Finding, OperationRef), what a walk records before its
// operations are known (Raw), the state one comparison shares (Context), and how findings are gathered (one per
// rule, place and detail, with every operation and field that has it) and sorted.
import { componentOf, type JsonObject } from './pointer.ts';
import { RULES, type RuleId, type Severity } from './rules.ts';

export interface OperationRef {
  /** The operation id, or `METHOD /path` for an operation without one. */
  operationId: string;
  /** Upper case: `POST`. */
  method: string;
  path: string;
  /** Its first tag, for grouping long lists of operations. */
  tag?: string;
}

export interface Finding {
  rule: RuleId;
  severity: Severity;
  /** JSON pointer to the changed place: in the revision, or in the base for what was removed. */
  path: string;
  document: 'base' | 'revision';
  /** The operation it belongs to, when its place is under `#/paths`. */
  operation?: OperationRef;
  /** The component it belongs to, when its place is under `#/components`: `Space`, or `parameters/SpacePath`. */
  schema?: string;
  /** Every operation the change affects. */
  operations: OperationRef[];
  /** The fields it concerns, as clients reach them: `CreateSpaceRequest.title`, `SpaceList.items[].title`, `limit`. */
  fields: string[];
  /** What changed: `maxLength 255 → 100`. */
  detail: string;
  /** The fields and the detail in one sentence. */
  message: string;
  /** For breaking findings and warnings: what a client (or an implementation) must do. */
  action?: string;
  /** For a rename: the old and the new name. */
  renamed?: { from: string; to: string };
  /** For a discriminator's tag added, removed or renamed: the tag. */
  value?: unknown;
  /** For enum values added or removed: the values, in the order the revision (or the release) lists them. */
  values?: unknown[];
}

/** A finding as the schema walk records it, before it is given its operations. */
export interface Raw {
  rule: RuleId;
  path: string;
  document: 'base' | 'revision';
  detail: string;
  field?: string;
  value?: unknown;
  values?: unknown[];
  renamed?: { from: string; to: string };
}

interface Draft extends Raw {
  operations: Map<string, OperationRef>;
  fields: Set<string>;
}

export interface Context {
  base: JsonObject;
  revision: JsonObject;
  drafts: Map<string, Draft>;
  /** The findings of each walk from an operation's body, parameter, answer or header, by what it compared. */
  walks: Map<string, Raw[]>;
  /** Whether two schemas are written alike and reach only components written alike (see `unchangedIn`). */
  unchanged: (was: unknown, now: unknown) => boolean;
  /** What comparing two schemas found, for the walks that compare them again (see `compareNormalized`). */
  memo: Map<string, Memo[]>;
  /** Whether `memo` is used. */
  remember: boolean;
}

/**
 * What comparing two schemas found, and what it depended on besides them: the answers of the walk's `drawn` to the
 * components it asked about, and the pairs it compared (another walk replays it only where it has compared none).
 */
export interface Memo {
  raws: Raw[];
  keys: string[];
  answers: [string, boolean][];
}

export function emit(context: Context, finding: Raw & { operation?: OperationRef; operations?: readonly OperationRef[] }): void {
  const key = `${finding.rule}\u0000${finding.document}\u0000${finding.path}\u0000${finding.detail}`;
  let draft = context.drafts.get(key);
  if (!draft) {
    const { operation: _operation, operations: _operations, ...raw } = finding;
    draft = { ...raw, operations: new Map(), fields: new Set() };
    context.drafts.set(key, draft);
  }
  for (const operation of [...(finding.operation ? [finding.operation] : []), ...(finding.operations ?? [])]) {
    draft.operations.set(`${operation.method} ${operation.path}`, operation);
  }
  if (finding.field) draft.fields.add(finding.field);
}

export function finish(draft: Draft): Finding {
  const rule = RULES.get(draft.rule)!;
  const operations = [...draft.operations.values()].sort((a, b) => collate(a.operationId, b.operationId));
  const schema = componentOf(draft.path);
  const fields = [...draft.fields].sort();
  const named = fields.map((field) => `\`${field}\``).join(', ');
  return {
    rule: draft.rule,
    severity: rule.severity,
    path: draft.path,
    document: draft.document,
    ...(schema === undefined ? { operation: operations[0] } : { schema }),
    operations,
    fields,
    detail: draft.detail,
    message: named ? `${named}: ${draft.detail}` : draft.detail,
    ...(rule.action ? { action: rule.action } : {}),
    ...(draft.renamed ? { renamed: draft.renamed } : {}),
    ...(draft.value !== undefined ? { value: draft.value } : {}),
    ...(draft.values !== undefined ? { values: draft.values } : {}),
  };
}

/** `localeCompare`'s order, with one collator (a call of `localeCompare` is many times slower). */
export const collate = new Intl.Collator().compare;

const SEVERITY_ORDER: Record<Severity, number> = {
  'breaking-client': 0,
  'breaking-source': 1,
  'breaking-implementation': 2,
  warning: 3,
  'non-breaking': 4,
};

export function byPlace(a: Finding, b: Finding): number {
  return (
    SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] ||
    collate(a.path, b.path) ||
    collate(a.rule, b.rule) ||
    collate(a.detail, b.detail)
  );
}
