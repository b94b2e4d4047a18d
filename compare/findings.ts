// The findings of a comparison: what callers receive (Finding, OperationRef), what a walk records before its
// operations are known (Raw), the state one comparison shares (Context), and how findings are gathered (one per
// rule, place and detail, with every operation and field that has it) and sorted.
import { componentOf, type JsonObject, segments } from './pointer.ts';
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
  /** What the finding is about, typed, for code to read instead of its prose. */
  args: FindingArgs;
}

/**
 * A finding's arguments, typed (as oasdiff's changes carry `Args`): what its detail says in words, for code to read.
 * Each is there only where the comparison knows it.
 */
export interface FindingArgs {
  /** The answer its place is under (`#/paths/…/responses/<status>`): the status as declared (`200`, `4XX`, `default`). */
  status?: string;
  /** The media type its place is under (`…/content/<media type>`): of the answer, or of the request body. */
  mediaType?: string;
  /** The parameters it concerns, by name and place (a change of a schema they share concerns each). */
  parameters?: { name: string; in: string }[];
  /** The response headers it concerns. */
  headers?: string[];
  /** A discriminator's: the property that carries its tags. */
  property?: string;
  /** What the change replaced, and with what: a tag renamed (`["a"]` → `["b"]`), the success statuses (`["200"]` → `["201"]`). */
  was?: unknown[];
  now?: unknown[];
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
  args?: FindingArgs;
}

interface Draft extends Raw {
  operations: Map<string, OperationRef>;
  fields: Set<string>;
  args: FindingArgs;
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
    draft = { ...raw, operations: new Map(), fields: new Set(), args: { ...placeArgs(finding.path), ...finding.args } };
    context.drafts.set(key, draft);
  } else if (finding.args) {
    // One place and detail met again from another parameter or header (a schema they share): each is concerned.
    const { parameters, headers } = finding.args;
    const known = (list: { name: string; in: string }[], each: { name: string; in: string }) => list.some((one) => one.name === each.name && one.in === each.in);
    for (const each of parameters ?? []) if (!known((draft.args.parameters ??= []), each)) draft.args.parameters.push(each);
    for (const each of headers ?? []) if (!(draft.args.headers ??= []).includes(each)) draft.args.headers.push(each);
  }
  for (const operation of [...(finding.operation ? [finding.operation] : []), ...(finding.operations ?? [])]) {
    draft.operations.set(`${operation.method} ${operation.path}`, operation);
  }
  if (finding.field) draft.fields.add(finding.field);
}

/**
 * The arguments a finding's place gives: under an operation's answer, its status and media type; under a request
 * body, its media type. A place in a component (a schema shared by several answers) gives none.
 */
function placeArgs(path: string): FindingArgs {
  const parts = segments(path);
  const args: FindingArgs = {};
  if (parts[0] === 'paths' && parts[3] === 'responses' && parts[4] !== undefined) {
    args.status = parts[4];
    if (parts[5] === 'content' && parts[6] !== undefined) args.mediaType = parts[6];
  }
  const body = parts[0] === 'paths' && parts[3] === 'requestBody' ? 4 : parts[0] === 'components' && parts[1] === 'requestBodies' ? 3 : -1;
  if (body >= 0 && parts[body] === 'content' && parts[body + 1] !== undefined) args.mediaType = parts[body + 1];
  return args;
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
    args: draft.args,
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
