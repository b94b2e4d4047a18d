// The comparison of two OpenAPI documents (3.0 or 3.1): a released one (base) and a later one (revision). Pure:
// documents in, findings out. Operations are matched by method and path (parameter names aside), then by operation
// id; each matched pair is compared (security, parameters, body, responses), and every schema it reaches is walked in
// the direction it travels (request or response), `$ref`s followed, recursion cut, so a change in a shared component
// is found once and reported with every operation it affects. Components removed while one of the same shape is
// added are renames.
import { canonical, child, componentOf, isObject, resolvePointer, type JsonObject } from './pointer.ts';
import {
  RULES,
  directionOf,
  schemaRule,
  type Direction,
  type RuleId,
  type SchemaContext,
  type SchemaKind,
  type Severity,
} from './rules.ts';
import { compareFractions, fraction, isMultiple, isOne, snapBound, stepOf, type Fraction } from './numbers.ts';
import { alikeComponents, alikeSchemas } from './spelling.ts';
import {
  dialectOf,
  forget,
  isNever,
  normalize,
  showTypes,
  typesCover,
  typesOverlap,
  refName,
  type Keyword,
  type Located,
  type Normalized,
} from './schema.ts';

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

export interface CompareOptions {
  /** Leave out findings of these rules. */
  ignoreRules?: readonly RuleId[];
  /**
   * Walk every schema, and every time it is reached: no schema is skipped as written alike, no comparison replayed.
   * The findings are the same, in several times the time (the tests check that they are).
   */
  walkEverything?: boolean;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

interface Operation {
  ref: OperationRef;
  /** `POST /v1/orgs/{}/spaces`: method and path with parameter names left out. */
  key: string;
  node: JsonObject;
  pointer: string;
  pathItem: JsonObject;
  pathPointer: string;
  pathParameters: string[];
  hasId: boolean;
}

/** A finding as the schema walk records it, before it is given its operations. */
interface Raw {
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

interface Context {
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
interface Memo {
  raws: Raw[];
  keys: string[];
  answers: [string, boolean][];
}

/** Every difference between `base` and `revision` that the rules know, sorted by severity then place. */
export function compareDocuments(base: unknown, revision: unknown, options: CompareOptions = {}): Finding[] {
  if (!isObject(base) || !isObject(revision)) throw new TypeError('compareDocuments: both documents must be objects');
  // Normalised schemas are remembered per document during one comparison only: a caller may change a document
  // between two comparisons.
  forget(base);
  forget(revision);
  try {
    return compare(base, revision, options);
  } finally {
    forget(base);
    forget(revision);
  }
}

function compare(base: JsonObject, revision: JsonObject, options: CompareOptions): Finding[] {
  const walkEverything = options.walkEverything === true;
  const context: Context = {
    base,
    revision,
    drafts: new Map(),
    walks: new Map(),
    unchanged: walkEverything ? () => false : unchangedIn(base, revision),
    memo: new Map(),
    remember: !walkEverything,
  };

  const baseOperations = operationsOf(base);
  const revisionOperations = operationsOf(revision);
  const revisionByKey = new Map(revisionOperations.map((operation) => [operation.key, operation]));
  const revisionById = new Map(
    revisionOperations.filter((operation) => operation.hasId).map((operation) => [operation.ref.operationId, operation]),
  );
  const used = new Set<Operation>();
  const pairs: [Operation, Operation][] = [];
  const unmatched: Operation[] = [];
  for (const operation of baseOperations) {
    const match = revisionByKey.get(operation.key);
    if (match && !used.has(match)) {
      used.add(match);
      pairs.push([operation, match]);
    } else unmatched.push(operation);
  }
  for (const operation of unmatched) {
    const match = operation.hasId ? revisionById.get(operation.ref.operationId) : undefined;
    if (match && !used.has(match)) {
      used.add(match);
      pairs.push([operation, match]);
    } else {
      emit(context, {
        rule: 'operation-removed',
        path: operation.pointer,
        document: 'base',
        operation: operation.ref,
        detail: `${operation.ref.method} ${operation.ref.path} removed`,
      });
    }
  }
  for (const operation of revisionOperations) {
    if (used.has(operation)) continue;
    emit(context, {
      rule: 'operation-added',
      path: operation.pointer,
      document: 'revision',
      operation: operation.ref,
      detail: `new operation ${operation.ref.method} ${operation.ref.path}`,
    });
  }
  const security = securityContext(context);
  for (const [before, after] of pairs) compareOperation(context, security, before, after);
  compareSecuritySchemes(context, security, revisionOperations);
  compareComponents(context, baseOperations, revisionOperations);
  compareDialect(context);

  const ignored = new Set(options.ignoreRules ?? []);
  return [...context.drafts.values()].filter((draft) => !ignored.has(draft.rule)).map(finish).sort(byPlace);
}

// ---- the document's schema dialect -----------------------------------------------------------------------------

/** OpenAPI 3.1's base dialect (JSON Schema 2020-12 and OpenAPI's vocabulary): a document's when it declares none. */
export const DEFAULT_DIALECT = 'https://spec.openapis.org/oas/3.1/dialect/base';

/**
 * `jsonSchemaDialect`, the dialect every schema of the document is read in. One that declares none is read in the
 * default one (a 3.0 document too: the comparison reads it as the values it accepts, as 3.1's would be read).
 */
function compareDialect(context: Context): void {
  const declared = (document: JsonObject) => (typeof document.jsonSchemaDialect === 'string' ? document.jsonSchemaDialect : undefined);
  const was = declared(context.base);
  const now = declared(context.revision);
  const path = '#/jsonSchemaDialect';
  const shown = (dialect: string | undefined) => (dialect === undefined ? `${DEFAULT_DIALECT} (undeclared: the default)` : dialect);
  if ((was ?? DEFAULT_DIALECT) !== (now ?? DEFAULT_DIALECT)) {
    emit(context, { rule: 'schema-dialect-changed', path, document: now === undefined ? 'base' : 'revision', detail: `jsonSchemaDialect ${shown(was)} → ${shown(now)}` });
  } else if (was === undefined && now !== undefined) {
    emit(context, { rule: 'schema-dialect-declared', path, document: 'revision', detail: `jsonSchemaDialect ${now} declared (the dialect the schemas were read in)` });
  } else if (was !== undefined && now === undefined) {
    emit(context, { rule: 'schema-dialect-undeclared', path, document: 'base', detail: `jsonSchemaDialect ${was} no longer declared (still the default)` });
  }
}

// ---- findings ------------------------------------------------------------------------------------------------

function emit(context: Context, finding: Raw & { operation?: OperationRef; operations?: readonly OperationRef[] }): void {
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

function finish(draft: Draft): Finding {
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
const collate = new Intl.Collator().compare;

const SEVERITY_ORDER: Record<Severity, number> = {
  'breaking-client': 0,
  'breaking-source': 1,
  'breaking-implementation': 2,
  warning: 3,
  'non-breaking': 4,
};

function byPlace(a: Finding, b: Finding): number {
  return (
    SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] ||
    collate(a.path, b.path) ||
    collate(a.rule, b.rule) ||
    collate(a.detail, b.detail)
  );
}

// ---- operations ----------------------------------------------------------------------------------------------

function operationsOf(document: JsonObject): Operation[] {
  const operations: Operation[] = [];
  if (!isObject(document.paths)) return operations;
  for (const [path, raw] of Object.entries(document.paths)) {
    const pathPointer = child('#/paths', path);
    const pathItem = deref(document, raw).node;
    if (!isObject(pathItem)) continue;
    const pathParameters = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);
    const template = path.replace(/\{[^}]+\}/g, '{}');
    for (const method of METHODS) {
      const node = pathItem[method];
      if (!isObject(node)) continue;
      const upper = method.toUpperCase();
      const hasId = typeof node.operationId === 'string';
      const tag = Array.isArray(node.tags) && typeof node.tags[0] === 'string' ? node.tags[0] : undefined;
      operations.push({
        ref: { operationId: hasId ? (node.operationId as string) : `${upper} ${path}`, method: upper, path, ...(tag ? { tag } : {}) },
        key: `${upper} ${template}`,
        node,
        pointer: child(pathPointer, method),
        pathItem,
        pathPointer,
        pathParameters,
        hasId,
      });
    }
  }
  return operations;
}

/** Follows `$ref`s (to components of any kind); returns the node and where it is. */
function deref(document: unknown, node: unknown, path = ''): { node: unknown; path: string } {
  const seen = new Set<string>();
  while (isObject(node) && typeof node.$ref === 'string' && !seen.has(node.$ref)) {
    seen.add(node.$ref);
    path = node.$ref;
    node = resolvePointer(document, node.$ref);
  }
  return { node, path };
}

function compareOperation(context: Context, security: SecurityContext, before: Operation, after: Operation): void {
  const operation = after.ref;
  const moved = before.key !== after.key;
  if (moved) {
    emit(context, {
      rule: 'operation-path-changed',
      path: after.pointer,
      document: 'revision',
      operation,
      detail: `${before.ref.method} ${before.ref.path} → ${after.ref.method} ${after.ref.path}`,
    });
  } else if (before.hasId && after.hasId && before.ref.operationId !== after.ref.operationId) {
    emit(context, {
      rule: 'operation-id-changed',
      path: child(after.pointer, 'operationId'),
      document: 'revision',
      operation,
      detail: `operation id \`${before.ref.operationId}\` renamed \`${after.ref.operationId}\` (the same request and answer)`,
      renamed: { from: before.ref.operationId, to: after.ref.operationId },
    });
  }
  const wasDeprecated = before.node.deprecated === true;
  const nowDeprecated = after.node.deprecated === true;
  if (nowDeprecated && !wasDeprecated) {
    emit(context, { rule: 'operation-deprecated', path: child(after.pointer, 'deprecated'), document: 'revision', operation, detail: 'deprecated' });
  } else if (wasDeprecated && !nowDeprecated) {
    emit(context, { rule: 'operation-undeprecated', path: after.pointer, document: 'revision', operation, detail: 'no longer deprecated' });
  }
  compareSecurity(context, security, before, after);
  compareParameters(context, before, after, moved);
  compareRequestBody(context, before, after);
  compareResponses(context, before, after);
}

// ---- components: removed, renamed ----------------------------------------------------------------------------

function schemasOf(document: JsonObject): JsonObject {
  return isObject(document.components) && isObject(document.components.schemas) ? document.components.schemas : {};
}

function compareComponents(context: Context, baseOperations: Operation[], revisionOperations: Operation[]): void {
  const baseSchemas = schemasOf(context.base);
  const revisionSchemas = schemasOf(context.revision);
  const removed = Object.keys(baseSchemas).filter((name) => !Object.hasOwn(revisionSchemas, name));
  if (removed.length === 0) return;
  const added = Object.keys(revisionSchemas).filter((name) => !Object.hasOwn(baseSchemas, name));
  const baseReach = reachOf(context.base, baseOperations);
  const revisionReach = reachOf(context.revision, revisionOperations);
  const taken = new Set<string>();
  for (const name of removed) {
    const candidates = added.filter((candidate) => !taken.has(candidate) && sameShape(context, name, candidate));
    // Of several of the same shape, the one whose name is closest.
    const match = candidates.sort((a, b) => likeness(name, b) - likeness(name, a))[0];
    if (match) {
      taken.add(match);
      const operations = revisionReach.get(schemaPointer(match)) ?? [];
      emit(context, {
        rule: 'schema-renamed',
        path: schemaPointer(match),
        document: 'revision',
        operations,
        detail: `schema \`${name}\` renamed \`${match}\` (the same shape)${typesOf(operations)}`,
        renamed: { from: name, to: match },
      });
    } else {
      const operations = baseReach.get(schemaPointer(name)) ?? [];
      emit(context, { rule: 'schema-removed', path: schemaPointer(name), document: 'base', operations, detail: `schema \`${name}\` removed${typesOf(operations)}` });
    }
  }
}

function typesOf(operations: readonly OperationRef[]): string {
  if (operations.length === 0) return '; no operation uses it';
  return `; the generated types of ${operations.length === 1 ? '1 operation' : `${operations.length} operations`} name it`;
}

function schemaPointer(name: string): string {
  return child('#/components/schemas', name);
}

/** Common leading and trailing characters: `SpaceUrls` is closer to `SpaceLinks` than to `Urls`. */
function likeness(a: string, b: string): number {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start += 1;
  let end = 0;
  while (end < a.length - start && end < b.length - start && a[a.length - 1 - end] === b[b.length - 1 - end]) end += 1;
  return start + end;
}

/**
 * Whether a component of the base and one of the revision accept and answer the same values: compared as
 * themselves (each at its own place, as a `$ref` to it reads it), in both directions.
 */
function sameShape(context: Context, was: string, now: string): boolean {
  const a: Located = { node: schemasOf(context.base)[was], path: schemaPointer(was) };
  const b: Located = { node: schemasOf(context.revision)[now], path: schemaPointer(now) };
  for (const schemaContext of ['request-property', 'response-property'] as const) {
    const sink: Raw[] = [];
    compareSchema(newWalk(context, schemaContext, sink), a, b, now);
    if (sink.length > 0) return false;
  }
  return true;
}

/** The operations that reach each component, directly or through other components. */
function reachOf(document: JsonObject, operations: readonly Operation[]): Map<string, OperationRef[]> {
  const refsOfComponent = new Map<string, string[]>();
  const componentRefs = (pointer: string): string[] => {
    let refs = refsOfComponent.get(pointer);
    if (!refs) {
      refs = refsIn(resolvePointer(document, pointer));
      refsOfComponent.set(pointer, refs);
    }
    return refs;
  };
  const reach = new Map<string, OperationRef[]>();
  for (const operation of operations) {
    const queue = [...refsIn(operation.node), ...refsIn(operation.pathItem.parameters)];
    const seen = new Set<string>();
    while (queue.length > 0) {
      const pointer = queue.pop()!;
      if (seen.has(pointer)) continue;
      seen.add(pointer);
      (reach.get(pointer) ?? reach.set(pointer, []).get(pointer)!).push(operation.ref);
      queue.push(...componentRefs(pointer));
    }
  }
  for (const list of reach.values()) list.sort((a, b) => collate(a.operationId, b.operationId));
  return reach;
}

/**
 * The components a node refers to (`#/components/<kind>/<name>`); with `every`, also references to anything else,
 * as written (to a place outside the components, or to another file).
 */
function refsIn(node: unknown, found: string[] = [], every = false): string[] {
  if (Array.isArray(node)) for (const item of node) refsIn(item, found, every);
  else if (isObject(node)) {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') {
        const match = /^#\/components\/[^/]+\/[^/]+/.exec(value);
        if (match) found.push(match[0]);
        else if (every) found.push(value);
      } else refsIn(value, found, every);
    }
  }
  return found;
}

/**
 * Which schemas need no walk: written alike in both documents (the same JSON but for what no comparison reads and
 * the emitter's `$ref` wrapper: spelling.ts), and every component they reach, through any number of `$ref`s,
 * written alike too. Reading them is then the same on both sides, so comparing them finds nothing. Documents of
 * different OpenAPI versions read alike text differently: there, every schema is walked.
 */
function unchangedIn(base: JsonObject, revision: JsonObject): (was: unknown, now: unknown) => boolean {
  const dialect = dialectOf(base);
  if (dialect !== dialectOf(revision)) return () => false;
  const legacy = dialect === '3.0';
  const alike = (kind: string, was: unknown, now: unknown) => alikeComponents(kind, was, now, legacy);
  const components = (document: JsonObject) => (isObject(document.components) ? document.components : {});
  const baseComponents = components(base);
  const revisionComponents = components(revision);
  const changed = new Set<string>();
  const known = new Set<string>();
  const referrers = new Map<string, string[]>();
  for (const kind of new Set([...Object.keys(baseComponents), ...Object.keys(revisionComponents)])) {
    const a = isObject(baseComponents[kind]) ? baseComponents[kind] : {};
    const b = isObject(revisionComponents[kind]) ? revisionComponents[kind] : {};
    for (const name of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const pointer = child('#/components', kind, name);
      known.add(pointer);
      const was = Object.hasOwn(a, name) ? a[name] : undefined;
      const now = Object.hasOwn(b, name) ? b[name] : undefined;
      if (was === undefined || now === undefined || !alike(kind, was, now)) {
        changed.add(pointer);
        continue;
      }
      for (const ref of new Set(refsIn(now, [], true))) (referrers.get(ref) ?? referrers.set(ref, []).get(ref)!).push(pointer);
    }
  }
  // A reference to no component (a path inside the document, another file) is treated as changed.
  for (const ref of referrers.keys()) if (!known.has(ref)) changed.add(ref);
  const queue = [...changed];
  while (queue.length > 0) {
    for (const referrer of referrers.get(queue.pop()!) ?? []) {
      if (changed.has(referrer)) continue;
      changed.add(referrer);
      queue.push(referrer);
    }
  }
  // Schemas are met many times (a component from every walk that reaches it): their texts and what they reach are
  // remembered.
  const pairs = new WeakMap<object, Map<unknown, boolean>>();
  const reaches = new WeakMap<object, boolean>();
  const alikeNodes = (was: unknown, now: unknown) => {
    if (!isObject(was)) return alikeSchemas(was, now, legacy);
    const known = pairs.get(was) ?? pairs.set(was, new Map()).get(was)!;
    let answer = known.get(now);
    if (answer === undefined) known.set(now, (answer = alikeSchemas(was, now, legacy)));
    return answer;
  };
  const reachesUnchanged = (node: unknown) => {
    const compute = () => refsIn(node, [], true).every((ref) => known.has(ref) && !changed.has(ref));
    if (!isObject(node) && !Array.isArray(node)) return compute();
    let answer = reaches.get(node);
    if (answer === undefined) reaches.set(node, (answer = compute()));
    return answer;
  };
  return (was, now) => (was === now || alikeNodes(was, now)) && reachesUnchanged(now);
}

// ---- security ------------------------------------------------------------------------------------------------
//
// Security schemes are compared by what they are (their definition), not by their names: a requirement names
// schemes, and two requirements are the same when the schemes they name are defined alike, with the same scopes.
// A scheme keeps its identity across a rename (another name, the same definition) and across a change of its
// definition under the same name (reported once, as `security-scheme-changed`, not on every operation).

interface Schemes {
  /** The definition of each scheme, normalised (see `schemeDefinition`). */
  definitions: Map<string, JsonObject>;
  /** `canonical` of each definition. */
  keys: Map<string, string>;
}

interface SecurityContext {
  base: Schemes;
  revision: Schemes;
  /** The identity of a scheme named in the base or in the revision. */
  baseIdentity: (name: string) => string;
  revisionIdentity: (name: string) => string;
  /** Schemes renamed: the base's name → the revision's. */
  renames: Map<string, string>;
}

/**
 * What a security scheme is, as a client sending credentials sees it: its type; for `http` the scheme (case
 * insensitive, RFC 9110); for `apiKey` where the key goes and its name (case insensitive in a header); for `oauth2`
 * each flow's addresses and scope names; for `openIdConnect` the discovery address. Descriptions, `bearerFormat`
 * (documentation only), scope descriptions and extensions are left out.
 */
export function schemeDefinition(node: JsonObject): JsonObject {
  const type = typeof node.type === 'string' ? node.type : '';
  const definition: JsonObject = { type };
  if (type === 'http') definition.scheme = typeof node.scheme === 'string' ? node.scheme.toLowerCase() : null;
  else if (type === 'apiKey') {
    definition.in = typeof node.in === 'string' ? node.in : null;
    definition.name = typeof node.name === 'string' ? (node.in === 'header' ? node.name.toLowerCase() : node.name) : null;
  } else if (type === 'oauth2') {
    const flows: JsonObject = {};
    if (isObject(node.flows)) {
      for (const [kind, flow] of Object.entries(node.flows)) {
        if (!isObject(flow)) continue;
        const entry: JsonObject = {};
        for (const key of ['authorizationUrl', 'tokenUrl', 'refreshUrl'] as const) if (typeof flow[key] === 'string') entry[key] = flow[key];
        entry.scopes = isObject(flow.scopes) ? Object.keys(flow.scopes).sort() : [];
        flows[kind] = entry;
      }
    }
    definition.flows = flows;
  } else if (type === 'openIdConnect') definition.openIdConnectUrl = typeof node.openIdConnectUrl === 'string' ? node.openIdConnectUrl : null;
  else if (type !== 'mutualTLS') {
    // A type this comparison does not know: every field but the documentation.
    for (const [key, value] of Object.entries(node)) if (key !== 'description' && !key.startsWith('x-')) definition[key] = value;
  }
  return definition;
}

function schemesOf(document: JsonObject): Schemes {
  const definitions = new Map<string, JsonObject>();
  const keys = new Map<string, string>();
  const declared = isObject(document.components) && isObject(document.components.securitySchemes) ? document.components.securitySchemes : {};
  for (const [name, raw] of Object.entries(declared)) {
    const node = deref(document, raw).node;
    if (!isObject(node)) continue;
    const definition = schemeDefinition(node);
    definitions.set(name, definition);
    keys.set(name, canonical(definition));
  }
  return { definitions, keys };
}

/**
 * The identity of each scheme: its definition when the other document defines a scheme alike (a rename keeps it),
 * else its name when the other document has a scheme of that name (its definition changed), else its definition.
 */
function securityContext(context: Context): SecurityContext {
  const base = schemesOf(context.base);
  const revision = schemesOf(context.revision);
  const baseKeys = new Set(base.keys.values());
  const revisionKeys = new Set(revision.keys.values());
  const identity = (own: Schemes, otherKeys: Set<string>, other: Schemes) => (name: string) => {
    const key = own.keys.get(name);
    if (key === undefined) return `name:${name}`;
    if (otherKeys.has(key)) return `definition:${key}`;
    return other.keys.has(name) ? `name:${name}` : `definition:${key}`;
  };
  const renames = new Map<string, string>();
  const taken = new Set<string>();
  for (const [name, key] of base.keys) {
    if (revision.keys.has(name)) continue;
    const to = [...revision.keys].find(([candidate, candidateKey]) => candidateKey === key && !base.keys.has(candidate) && !taken.has(candidate))?.[0];
    if (to === undefined) continue;
    taken.add(to);
    renames.set(name, to);
  }
  return {
    base,
    revision,
    baseIdentity: identity(base, revisionKeys, revision),
    revisionIdentity: identity(revision, baseKeys, base),
    renames,
  };
}

interface Requirement {
  /** The names and scopes as written. */
  names: JsonObject;
  /** The same by scheme identity: what is compared. */
  key: string;
}

function securityOf(document: JsonObject, operation: Operation, identity: (name: string) => string): { alternatives: Requirement[]; pointer: string } {
  const own = Array.isArray(operation.node.security);
  const list = own ? operation.node.security : document.security;
  const requirements = Array.isArray(list) && list.length > 0 ? list : [{}];
  const alternatives: Requirement[] = [];
  const seen = new Set<string>();
  for (const requirement of requirements) {
    if (!isObject(requirement)) continue;
    const names: JsonObject = {};
    const identified: JsonObject = {};
    for (const name of Object.keys(requirement).sort()) {
      const scopes = requirement[name];
      const sorted = Array.isArray(scopes) ? [...scopes].map(String).sort() : [];
      names[name] = sorted;
      identified[identity(name)] = sorted;
    }
    const key = canonical(identified);
    if (seen.has(key)) continue;
    seen.add(key);
    alternatives.push({ names, key });
  }
  return { alternatives, pointer: own ? child(operation.pointer, 'security') : '#/security' };
}

function showRequirement(requirement: JsonObject): string {
  const names = Object.entries(requirement).map(([name, scopes]) =>
    Array.isArray(scopes) && scopes.length > 0 ? `${name} (${scopes.join(', ')})` : name,
  );
  return names.length > 0 ? names.join(' + ') : 'no authentication';
}

/**
 * What differs between two scheme definitions, field by field; undefined when nothing but additions to the OAuth
 * flows did (a new flow, a new scope: what clients obtain today still works, and an operation that now requires a
 * scope says so in its `security`, compared there).
 */
function schemeDifference(was: JsonObject, now: JsonObject): string | undefined {
  const flat = (value: unknown, prefix: string, into: Map<string, string>): Map<string, string> => {
    if (isObject(value)) for (const [key, inner] of Object.entries(value)) flat(inner, prefix ? `${prefix}.${key}` : key, into);
    else into.set(prefix, Array.isArray(value) ? value.join(', ') : String(value));
    return into;
  };
  const a = flat(was, '', new Map());
  const b = flat(now, '', new Map());
  const changes: string[] = [];
  let onlyAdditions = true;
  for (const key of [...new Set([...a.keys(), ...b.keys()])].sort()) {
    const before = a.get(key);
    const after = b.get(key);
    if (before === after) continue;
    const flow = key.startsWith('flows.');
    const addedOnly =
      flow && (before === undefined || (key.endsWith('.scopes') && after !== undefined && splitList(before).every((scope) => splitList(after).includes(scope))));
    if (!addedOnly) onlyAdditions = false;
    changes.push(`${key} ${before === undefined || before === '' ? 'none' : before} → ${after === undefined || after === '' ? 'none' : after}`);
  }
  return changes.length === 0 || onlyAdditions ? undefined : changes.join('; ');
}

function splitList(value: string): string[] {
  return value === '' ? [] : value.split(', ');
}

function compareSecurity(context: Context, security: SecurityContext, before: Operation, after: Operation): void {
  const operation = after.ref;
  const base = securityOf(context.base, before, security.baseIdentity);
  const revision = securityOf(context.revision, after, security.revisionIdentity);
  const revisionKeys = new Set(revision.alternatives.map((requirement) => requirement.key));
  const baseKeys = new Set(base.alternatives.map((requirement) => requirement.key));
  const anonymous = canonical({});
  for (const requirement of base.alternatives) {
    if (revisionKeys.has(requirement.key) || revisionKeys.has(anonymous)) continue;
    emit(context, {
      rule: 'operation-security-changed',
      path: revision.pointer,
      document: 'revision',
      operation,
      detail: `${showRequirement(requirement.names)} no longer accepted; now ${revision.alternatives.map((entry) => showRequirement(entry.names)).join(' or ')}`,
    });
  }
  for (const requirement of revision.alternatives) {
    if (baseKeys.has(requirement.key)) continue;
    emit(context, {
      rule: 'operation-security-alternative-added',
      path: revision.pointer,
      document: 'revision',
      operation,
      detail: `${showRequirement(requirement.names)} now accepted`,
    });
  }

  for (const requirement of revision.alternatives) {
    for (const name of Object.keys(requirement.names)) {
      const was = security.base.definitions.get(name);
      const now = security.revision.definitions.get(name);
      if (was && now) {
        const difference = schemeDifference(was, now);
        if (difference === undefined) continue;
        emit(context, {
          rule: 'security-scheme-changed',
          path: child('#/components/securitySchemes', name),
          document: 'revision',
          operation,
          detail: `security scheme \`${name}\`: ${difference}`,
        });
      }
    }
  }
}

/** Schemes renamed (the same definition under a new name): information, with the operations that use them. */
function compareSecuritySchemes(context: Context, security: SecurityContext, revisionOperations: readonly Operation[]): void {
  for (const [from, to] of security.renames) {
    const operations = revisionOperations
      .filter((operation) => securityOf(context.revision, operation, security.revisionIdentity).alternatives.some((requirement) => Object.hasOwn(requirement.names, to)))
      .map((operation) => operation.ref);
    emit(context, {
      rule: 'security-scheme-renamed',
      path: child('#/components/securitySchemes', to),
      document: 'revision',
      operations,
      detail: `security scheme \`${from}\` renamed \`${to}\` (the same definition)${operations.length === 0 ? '; no operation uses it' : ''}`,
      renamed: { from, to },
    });
  }
}

// ---- parameters ----------------------------------------------------------------------------------------------

interface Parameter {
  name: string;
  in: string;
  node: JsonObject;
  /** Where the parameter object is (a component when it was referenced). */
  path: string;
  /** Where the operation lists it. */
  listed: string;
}

function parametersOf(document: JsonObject, operation: Operation): Map<string, Parameter> {
  const result = new Map<string, Parameter>();
  const lists: [unknown, string][] = [
    [operation.pathItem.parameters, child(operation.pathPointer, 'parameters')],
    [operation.node.parameters, child(operation.pointer, 'parameters')],
  ];
  for (const [list, listPointer] of lists) {
    if (!Array.isArray(list)) continue;
    list.forEach((raw, index) => {
      const listed = child(listPointer, index);
      const { node, path } = deref(document, raw, listed);
      if (!isObject(node) || typeof node.name !== 'string' || typeof node.in !== 'string') return;
      result.set(parameterKey(node.in, node.name), { name: node.name, in: node.in, node, path, listed });
    });
  }
  // A name of the path template that no parameter declares is still a segment of the URL, sent by every client: a
  // required string (declaring it later is no change, unless the declaration says more).
  for (const name of operation.pathParameters) {
    const key = parameterKey('path', name);
    if (result.has(key)) continue;
    const listed = child(operation.pointer, 'parameters');
    result.set(key, { name, in: 'path', node: { name, in: 'path', required: true, schema: { type: 'string' } }, path: listed, listed });
  }
  return result;
}

function parameterKey(location: string, name: string): string {
  return `${location}:${location === 'header' ? name.toLowerCase() : name}`;
}

function parameterSchema(parameter: Parameter): Located | undefined {
  if (parameter.node.schema !== undefined) return { node: parameter.node.schema, path: child(parameter.path, 'schema') };
  if (isObject(parameter.node.content)) {
    const [mediaType, entry] = Object.entries(parameter.node.content)[0] ?? [];
    if (mediaType && isObject(entry)) return { node: entry.schema ?? {}, path: child(parameter.path, 'content', mediaType, 'schema') };
  }
  return undefined;
}

function isRequired(parameter: Parameter): boolean {
  return parameter.in === 'path' || parameter.node.required === true;
}

function serialisation(parameter: Parameter): { style: string; explode: boolean } {
  const fallback = parameter.in === 'query' || parameter.in === 'cookie' ? 'form' : 'simple';
  const style = typeof parameter.node.style === 'string' ? parameter.node.style : fallback;
  const explode = typeof parameter.node.explode === 'boolean' ? parameter.node.explode : style === 'form';
  return { style, explode };
}

function compareParameters(context: Context, before: Operation, after: Operation, moved: boolean): void {
  const operation = after.ref;
  const base = parametersOf(context.base, before);
  const revision = parametersOf(context.revision, after);
  // Path parameters are matched by their position in the path: a new name is a rename, not a removal.
  const renamed = new Map<string, string>();
  if (!moved) {
    before.pathParameters.forEach((name, index) => {
      const now = after.pathParameters[index];
      if (now === undefined || now === name) return;
      renamed.set(parameterKey('path', name), parameterKey('path', now));
      const parameter = revision.get(parameterKey('path', now));
      emit(context, {
        rule: 'request-parameter-renamed',
        path: parameter?.path ?? after.pointer,
        document: 'revision',
        operation,
        field: now,
        detail: `path parameter \`${name}\` → \`${now}\``,
      });
    });
  }

  const matched = new Set<string>();
  for (const [key, was] of base) {
    if (moved && was.in === 'path') continue;
    const revisionKey = renamed.get(key) ?? key;
    const now = revision.get(revisionKey);
    if (now) {
      matched.add(revisionKey);
      compareParameter(context, operation, was, now);
      continue;
    }
    const relocated = [...revision.values()].find(
      (candidate) => candidate.name === was.name && !base.has(parameterKey(candidate.in, candidate.name)),
    );
    if (relocated) {
      matched.add(parameterKey(relocated.in, relocated.name));
      emit(context, {
        rule: 'request-parameter-location-changed',
        path: relocated.path,
        document: 'revision',
        operation,
        field: was.name,
        detail: `\`in: ${was.in}\` → \`in: ${relocated.in}\``,
      });
      continue;
    }
    emit(context, {
      rule: 'request-parameter-removed',
      path: was.listed,
      document: 'base',
      operation,
      field: was.name,
      detail: `${was.in} parameter removed`,
    });
  }
  for (const [key, now] of revision) {
    if (matched.has(key) || (moved && now.in === 'path')) continue;
    emit(context, {
      rule: isRequired(now) ? 'request-parameter-added-required' : 'request-parameter-added',
      path: now.listed,
      document: 'revision',
      operation,
      field: now.name,
      detail: `new ${isRequired(now) ? 'required' : 'optional'} ${now.in} parameter`,
    });
  }
}

function compareParameter(context: Context, operation: OperationRef, was: Parameter, now: Parameter): void {
  const field = now.name;
  if (isRequired(was) !== isRequired(now)) {
    emit(context, {
      rule: isRequired(now) ? 'request-parameter-became-required' : 'request-parameter-became-optional',
      path: now.path,
      document: 'revision',
      operation,
      field,
      detail: isRequired(now) ? 'now required' : 'now optional',
    });
  }
  compareDeprecation(context, 'request-parameter', operation, was.node, now.node, now.path, field);
  const wasSchema = parameterSchema(was);
  const nowSchema = parameterSchema(now);
  const a = serialisation(was);
  const b = serialisation(now);
  // Only for array and object values, and only when both sides accept them (read when the serialisation changed): a
  // parameter that becomes an array has no serialisation clients used before to change.
  const structured = () =>
    [wasSchema && normalize(context.base, wasSchema), nowSchema && normalize(context.revision, nowSchema)].every(
      (schema) => !schema || !schema.types || schema.types.has('array') || schema.types.has('object'),
    );
  if ((a.style !== b.style || a.explode !== b.explode) && structured()) {
    if (a.style !== b.style) {
      emit(context, { rule: 'request-parameter-style-changed', path: now.path, document: 'revision', operation, field, detail: `style ${a.style} → ${b.style}` });
    }
    if (a.explode !== b.explode) {
      emit(context, { rule: 'request-parameter-explode-changed', path: now.path, document: 'revision', operation, field, detail: `explode ${a.explode} → ${b.explode}` });
    }
  }
  if (wasSchema && nowSchema) compareEntry(context, 'request-parameter', operation, wasSchema, nowSchema, field);
}

/** `deprecated` of a parameter or a header object (its schema's is compared with the schema). */
function compareDeprecation(
  context: Context,
  schemaContext: 'request-parameter' | 'response-header',
  operation: OperationRef,
  was: JsonObject,
  now: JsonObject,
  path: string,
  field: string,
): void {
  if ((was.deprecated === true) === (now.deprecated === true)) return;
  emit(context, {
    rule: schemaRule(schemaContext, now.deprecated === true ? 'deprecated' : 'undeprecated')!,
    path: now.deprecated === true ? child(path, 'deprecated') : path,
    document: 'revision',
    operation,
    field,
    detail: now.deprecated === true ? 'deprecated' : 'no longer deprecated',
  });
}

// ---- request bodies ------------------------------------------------------------------------------------------

function requestBodyOf(document: JsonObject, operation: Operation): { node: JsonObject; path: string } | undefined {
  if (operation.node.requestBody === undefined) return undefined;
  const { node, path } = deref(document, operation.node.requestBody, child(operation.pointer, 'requestBody'));
  return isObject(node) ? { node, path } : undefined;
}

function contentOf(node: JsonObject): JsonObject {
  return isObject(node.content) ? node.content : {};
}

/** Methods whose request content has no generally defined meaning (RFC 9110, 9.3.1, 9.3.2 and 9.3.5). */
const BODILESS = new Set(['GET', 'HEAD', 'DELETE']);

/**
 * Whether a request body told clients nothing to send: optional, on a method that gives a body no meaning, and no
 * schema in any of its content types.
 */
function unspecified(operation: Operation, body: JsonObject): boolean {
  if (body.required === true || !BODILESS.has(operation.ref.method)) return false;
  return Object.values(contentOf(body)).every((entry) => !isObject(entry) || entry.schema === undefined || (isObject(entry.schema) && Object.keys(entry.schema).length === 0));
}

function compareRequestBody(context: Context, before: Operation, after: Operation): void {
  const operation = after.ref;
  const was = requestBodyOf(context.base, before);
  const now = requestBodyOf(context.revision, after);
  if (!was && !now) return;
  if (!was) {
    const required = now!.node.required === true;
    emit(context, {
      rule: required ? 'request-body-added-required' : 'request-body-added',
      path: now!.path,
      document: 'revision',
      operation,
      detail: required ? 'a body is now required' : 'an optional body is now accepted',
    });
    return;
  }
  if (!now) {
    if (unspecified(before, was.node)) {
      emit(context, { rule: 'request-body-removed-unspecified', path: was.path, document: 'base', operation, detail: 'an optional body without a schema is no longer declared' });
    } else emit(context, { rule: 'request-body-removed', path: was.path, document: 'base', operation, detail: 'the body is no longer accepted' });
    return;
  }
  const wasRequired = was.node.required === true;
  const nowRequired = now.node.required === true;
  if (wasRequired !== nowRequired) {
    emit(context, {
      rule: nowRequired ? 'request-body-became-required' : 'request-body-became-optional',
      path: now.path,
      document: 'revision',
      operation,
      detail: nowRequired ? 'the body is now required' : 'the body is now optional',
    });
  }
  const wasContent = contentOf(was.node);
  const nowContent = contentOf(now.node);
  for (const [mediaType, entry] of Object.entries(wasContent)) {
    const match = nowContent[mediaType];
    if (!isObject(match)) {
      emit(context, { rule: 'request-media-type-removed', path: child(was.path, 'content', mediaType), document: 'base', operation, detail: `\`${mediaType}\` no longer accepted` });
      continue;
    }
    if (!isObject(entry)) continue;
    compareEntry(
      context,
      'request-property',
      operation,
      { node: entry.schema ?? {}, path: child(was.path, 'content', mediaType, 'schema') },
      { node: match.schema ?? {}, path: child(now.path, 'content', mediaType, 'schema') },
      '',
    );
  }
  for (const mediaType of Object.keys(nowContent)) {
    if (Object.hasOwn(wasContent, mediaType)) continue;
    emit(context, { rule: 'request-media-type-added', path: child(now.path, 'content', mediaType), document: 'revision', operation, detail: `\`${mediaType}\` now accepted` });
  }
}

// ---- responses -----------------------------------------------------------------------------------------------

function responsesOf(document: JsonObject, operation: Operation): Map<string, { node: JsonObject; path: string; listed: string }> {
  const result = new Map<string, { node: JsonObject; path: string; listed: string }>();
  if (!isObject(operation.node.responses)) return result;
  for (const [status, raw] of Object.entries(operation.node.responses)) {
    const listed = child(operation.pointer, 'responses', status);
    const { node, path } = deref(document, raw, listed);
    if (isObject(node)) result.set(status.toUpperCase(), { node, path, listed });
  }
  return result;
}

const isSuccess = (status: string) => status.startsWith('2');

function compareResponses(context: Context, before: Operation, after: Operation): void {
  const operation = after.ref;
  const was = responsesOf(context.base, before);
  const now = responsesOf(context.revision, after);
  const pairs: [string, string][] = [...was.keys()].filter((status) => now.has(status)).map((status) => [status, status]);

  const wasSuccess = [...was.keys()].filter(isSuccess);
  const nowSuccess = [...now.keys()].filter(isSuccess);
  const newSuccess = nowSuccess.filter((status) => !was.has(status));
  const goneSuccess = wasSuccess.filter((status) => !now.has(status));
  const replaced = new Set<string>();
  if (newSuccess.length > 0 && wasSuccess.length > 0) {
    emit(context, {
      rule: 'response-success-status-changed',
      path: now.get(newSuccess[0]!)!.listed,
      document: 'revision',
      operation,
      detail: `success ${wasSuccess.join(', ')} → ${nowSuccess.join(', ')}`,
    });
    if (goneSuccess.length === 1 && newSuccess.length === 1) {
      pairs.push([goneSuccess[0]!, newSuccess[0]!]);
      replaced.add(goneSuccess[0]!);
    }
  }
  for (const [status, entry] of was) {
    if (now.has(status) || replaced.has(status)) continue;
    emit(context, { rule: 'response-status-removed', path: entry.listed, document: 'base', operation, detail: `status ${status} no longer declared` });
  }
  for (const [status, entry] of now) {
    if (was.has(status) || isSuccess(status)) continue;
    emit(context, { rule: 'response-status-added', path: entry.listed, document: 'revision', operation, detail: `status ${status} now declared` });
  }

  for (const [wasStatus, nowStatus] of pairs) compareResponse(context, operation, was.get(wasStatus)!, now.get(nowStatus)!, nowStatus);
}

function headersOf(document: JsonObject, response: { node: JsonObject; path: string }): Map<string, { name: string; node: JsonObject; path: string }> {
  const result = new Map<string, { name: string; node: JsonObject; path: string }>();
  if (!isObject(response.node.headers)) return result;
  for (const [name, raw] of Object.entries(response.node.headers)) {
    const { node, path } = deref(document, raw, child(response.path, 'headers', name));
    if (isObject(node)) result.set(name.toLowerCase(), { name, node, path });
  }
  return result;
}

function compareResponse(
  context: Context,
  operation: OperationRef,
  was: { node: JsonObject; path: string },
  now: { node: JsonObject; path: string },
  status: string,
): void {
  const wasHeaders = headersOf(context.base, was);
  const nowHeaders = headersOf(context.revision, now);
  for (const [key, header] of wasHeaders) {
    const match = nowHeaders.get(key);
    if (!match) {
      emit(context, { rule: 'response-header-removed', path: header.path, document: 'base', operation, field: header.name, detail: `header no longer sent with ${status}` });
      continue;
    }
    const wasRequired = header.node.required === true;
    const nowRequired = match.node.required === true;
    if (wasRequired !== nowRequired) {
      emit(context, {
        rule: nowRequired ? 'response-header-became-required' : 'response-header-became-optional',
        path: match.path,
        document: 'revision',
        operation,
        field: match.name,
        detail: nowRequired ? `header now always sent with ${status}` : `header no longer always sent with ${status}`,
      });
    }
    compareDeprecation(context, 'response-header', operation, header.node, match.node, match.path, match.name);
    compareEntry(
      context,
      'response-header',
      operation,
      { node: header.node.schema ?? {}, path: child(header.path, 'schema') },
      { node: match.node.schema ?? {}, path: child(match.path, 'schema') },
      match.name,
    );
  }
  for (const [key, header] of nowHeaders) {
    if (wasHeaders.has(key)) continue;
    const required = header.node.required === true;
    emit(context, {
      rule: required ? 'response-header-added-required' : 'response-header-added',
      path: header.path,
      document: 'revision',
      operation,
      field: header.name,
      detail: `new ${required ? 'required' : 'optional'} header with ${status}`,
    });
  }

  const wasContent = contentOf(was.node);
  const nowContent = contentOf(now.node);
  for (const [mediaType, entry] of Object.entries(wasContent)) {
    const match = nowContent[mediaType];
    if (!isObject(match)) {
      emit(context, { rule: 'response-media-type-removed', path: child(was.path, 'content', mediaType), document: 'base', operation, detail: `${status} no longer answered as \`${mediaType}\`` });
      continue;
    }
    if (!isObject(entry)) continue;
    compareEntry(
      context,
      'response-property',
      operation,
      { node: entry.schema ?? {}, path: child(was.path, 'content', mediaType, 'schema') },
      { node: match.schema ?? {}, path: child(now.path, 'content', mediaType, 'schema') },
      '',
    );
  }
  for (const mediaType of Object.keys(nowContent)) {
    if (Object.hasOwn(wasContent, mediaType)) continue;
    emit(context, { rule: 'response-media-type-added', path: child(now.path, 'content', mediaType), document: 'revision', operation, detail: `${status} also answered as \`${mediaType}\`` });
  }
}

// ---- schemas -------------------------------------------------------------------------------------------------

/**
 * A walk through the schemas of one body, parameter, answer or header. `anchor` is set where the base and the
 * revision differ in place (a `$ref` replaced by an inline schema, or by a reference to another component): the
 * changes found below are reported at the place in the revision where the reference changed, not inside a component
 * that did not change. `parent` is the revision's place of the schema being walked, for choosing that anchor.
 */
interface Walk {
  context: Context;
  schemaContext: SchemaContext;
  direction: Direction;
  visits: Visits;
  state: WalkState;
  sink: Raw[];
  anchor?: string;
  parent?: string;
  /** The components the base draws on along the walk so far (the schemas being compared and their ancestors). */
  drawn?: ReadonlySet<string>;
  /** The members of a discriminated union being compared: the name of their tag property. */
  tagProperty?: string;
  /** The tag property itself: its values are the union's tags, compared with the union. */
  tagged?: boolean;
}

/** The pairs of schemas a walk has compared, in order, each with its place in that order. */
interface Visits {
  seen: Map<string, number>;
  log: string[];
}

/** What the comparisons in progress depend on, besides the schemas they compare (shared with trial walks). */
interface WalkState {
  /** The earliest pair compared before them that they met again (their findings then depend on the walk). */
  earliest: number;
  /** The components whose presence in `drawn` they asked about. */
  queries: string[];
}

function newWalk(context: Context, schemaContext: SchemaContext, sink: Raw[]): Walk {
  return { context, schemaContext, direction: directionOf(schemaContext), visits: { seen: new Map(), log: [] }, state: { earliest: Infinity, queries: [] }, sink };
}

/**
 * Compares the schemas of one body, parameter, answer or header, and gives the findings to `operation`. What such a
 * walk finds depends only on what it compares, so each is walked once and its findings given to every operation
 * that has it (most answers are the same `$ref`s).
 */
function compareEntry(context: Context, schemaContext: SchemaContext, operation: OperationRef, was: Located, now: Located, field: string): void {
  // Written alike, reaching only components written alike: a walk would find nothing (most of a document, most of
  // the time, and most of a comparison's time).
  if (context.unchanged(was.node, now.node)) return;
  // Most entries are a `$ref` to a component: the walk they share is found without reading them first.
  const refA = bareReference(context.base, was.node);
  const refB = bareReference(context.revision, now.node);
  const quick = refA !== undefined && refB !== undefined && componentOf(refA) === componentOf(refB) ? [schemaContext, field, refA, refB, ''].join('\u0000') : undefined;
  const known = quick === undefined ? undefined : context.walks.get(quick);
  if (known) {
    for (const raw of known) emit(context, { ...raw, operation });
    return;
  }
  const a = normalize(context.base, was);
  const b = normalize(context.revision, now);
  const key = [schemaContext, field, a.id, b.id, samePlace(a, b) ? '' : `${a.origin}\u0000${b.origin}`].join('\u0000');
  let found = context.walks.get(key);
  if (!found) {
    found = [];
    compareNormalized(newWalk(context, schemaContext, found), a, b, field);
    context.walks.set(key, found);
  }
  for (const raw of found) emit(context, { ...raw, operation });
}

function schemaFinding(
  w: Walk,
  kind: SchemaKind,
  path: string,
  field: string,
  detail: string,
  more: { document?: 'base' | 'revision'; value?: unknown; values?: unknown[] } = {},
): void {
  const rule = schemaRule(w.schemaContext, kind);
  if (!rule) return;
  w.sink.push({
    rule,
    path,
    document: more.document ?? 'revision',
    field: field || rootLabel(w.schemaContext),
    detail,
    ...(more.value !== undefined ? { value: more.value } : {}),
    ...(more.values !== undefined ? { values: more.values } : {}),
  });
}

function rootLabel(context: SchemaContext): string {
  return context === 'request-property' ? 'request body' : context === 'response-property' ? 'response body' : '';
}

/** A field inside `field` (its items `[]`, its map values `.*`): named from the body when `field` is the body itself. */
function inside(w: Walk, field: string, suffix: string): string {
  return `${field || rootLabel(w.schemaContext)}${suffix}`;
}

const COMPONENT_ROOT = /^#\/components\/schemas\/([^/]+)$/;

function componentRoot(path: string): string | undefined {
  const match = COMPONENT_ROOT.exec(path);
  return match ? match[1]!.replace(/~1/g, '/').replace(/~0/g, '~') : undefined;
}

/** Whether `path` is `ancestor` or inside it. */
function within(path: string, ancestor: string): boolean {
  return path === ancestor || path.startsWith(`${ancestor}/`);
}

/** The same component on both sides (or both inline in the operation): a change there is the component's. */
function samePlace(was: Normalized, now: Normalized): boolean {
  return componentOf(was.path) === componentOf(now.path);
}

function anchorFor(w: Walk, was: Normalized, now: Normalized): string | undefined {
  if (samePlace(was, now)) return undefined;
  if (w.anchor) return within(now.origin, w.anchor) ? now.origin : w.anchor;
  const parent = w.parent ?? now.origin;
  return componentOf(now.origin) === componentOf(parent) ? now.origin : parent;
}

/** Where a change found at `path` in the revision is reported: there, or at the anchor when it lies outside it. */
function place(w: Walk, path: string): string {
  return !w.anchor || within(path, w.anchor) ? path : w.anchor;
}

/**
 * Where a change of a keyword is reported: where the revision declares it, unless that is in a component the base
 * did not draw on (a reference switched to another component, which itself did not change): then at the schema
 * that refers to it.
 */
function declared(w: Walk, was: Normalized, now: Normalized, path: string): string {
  const component = componentOf(path);
  let drawn = component === undefined || was.sources.has(component);
  if (!drawn) {
    w.state.queries.push(component!);
    drawn = w.drawn?.has(component!) ?? false;
  }
  return place(w, drawn ? path : now.path);
}

function drawnWith(drawn: ReadonlySet<string> | undefined, sources: ReadonlySet<string>): ReadonlySet<string> {
  if (drawn && [...sources].every((source) => drawn.has(source))) return drawn;
  return new Set([...(drawn ?? []), ...sources]);
}

/**
 * The component a schema is, when it is nothing but a `$ref` to one that is not itself a reference: its walk is
 * then the component's (`normalize` gives the id `ref`).
 */
function bareReference(document: JsonObject, node: unknown): string | undefined {
  if (!isObject(node) || typeof node.$ref !== 'string') return undefined;
  for (const key in node) if (key !== '$ref') return undefined;
  const target = resolvePointer(document, node.$ref);
  if (target === undefined || (isObject(target) && typeof target.$ref === 'string')) return undefined;
  return node.$ref;
}

/** Whether two locations are written alike and reach only components written alike (`Context.unchanged`). */
function unchangedAt(context: Context, was: Located, now: Located): boolean {
  const plain = (at: Located) => !at.atom && !at.outside && (at.and === undefined || at.and.length === 0);
  return plain(was) && plain(now) && context.unchanged(was.node, now.node);
}

function compareSchema(w: Walk, was: Located, now: Located, field: string): void {
  if (unchangedAt(w.context, was, now)) return;
  compareNormalized(w, normalize(w.context.base, was), normalize(w.context.revision, now), field);
}

/**
 * Compares two schemas, once per walk (a pair met again is cut: that is what stops recursive schemas). The same
 * components are reached from many bodies and answers, so what a comparison found is remembered for the other
 * walks, with what it depended on besides the pair: its place (anchor, field, tag), the answers of `drawn` it
 * used, and the pairs it compared; one that met a pair compared before it (a recursion cut by an ancestor, or a
 * pair an earlier sibling compared) depended on its walk and is not remembered.
 */
function compareNormalized(outer: Walk, was: Normalized, now: Normalized, field: string): void {
  const anchor = anchorFor(outer, was, now);
  const { tagProperty, tagged, visits, state } = outer;
  const key = `${outer.schemaContext}\u0000${was.id}\u0000${now.id}\u0000${anchor ?? ''}\u0000${tagProperty ?? ''}\u0000${tagged ? 'tag' : ''}`;
  const met = visits.seen.get(key);
  if (met !== undefined) {
    if (met < state.earliest) state.earliest = met;
    return;
  }
  if (!field) field = now.refName ?? was.refName ?? '';
  const drawn = drawnWith(outer.drawn, was.sources);
  const memoKey = `${key}\u0000${field}\u0000${was.refName ?? ''}\u0000${now.refName ?? ''}`;
  const memos = outer.context.remember ? outer.context.memo.get(memoKey) : undefined;
  const memo = memos?.find(
    (entry) => entry.answers.every(([component, answer]) => drawn.has(component) === answer) && entry.keys.every((known) => !visits.seen.has(known)),
  );
  if (memo) {
    for (const known of memo.keys) {
      visits.seen.set(known, visits.log.length);
      visits.log.push(known);
    }
    for (const raw of memo.raws) outer.sink.push(raw);
    for (const [component] of memo.answers) state.queries.push(component);
    return;
  }
  const start = visits.log.length;
  visits.seen.set(key, start);
  visits.log.push(key);
  const found = outer.sink.length;
  const earliest = state.earliest;
  const queries = state.queries.length;
  state.earliest = Infinity;
  compareBoth({ ...outer, anchor, parent: undefined, drawn, tagProperty: undefined, tagged: undefined }, was, now, field, tagProperty, tagged);
  if (state.earliest >= start && outer.context.remember) {
    const entry: Memo = {
      raws: outer.sink.slice(found),
      keys: visits.log.slice(start),
      answers: [...new Set(state.queries.slice(queries))].map((component) => [component, drawn.has(component)]),
    };
    if (memos) memos.push(entry);
    else outer.context.memo.set(memoKey, [entry]);
  }
  state.earliest = Math.min(earliest, state.earliest);
}

function compareBoth(w: Walk, was: Normalized, now: Normalized, field: string, tagProperty: string | undefined, tagged: boolean | undefined): void {
  const here = place(w, now.path);

  if (was.types && now.types && was.nullable !== now.nullable) {
    if (now.nullable) schemaFinding(w, 'became-nullable', declared(w, was, now, now.nullablePath ?? now.path), field, 'now nullable');
    else schemaFinding(w, 'became-not-nullable', here, field, 'no longer nullable');
  }

  const wasDiscriminator = isObject(was.discriminator?.value) ? was.discriminator.value.propertyName : undefined;
  const nowDiscriminator = isObject(now.discriminator?.value) ? now.discriminator.value.propertyName : undefined;
  if (wasDiscriminator !== undefined && nowDiscriminator !== undefined && wasDiscriminator !== nowDiscriminator) {
    schemaFinding(w, 'discriminator-changed', declared(w, was, now, now.discriminator!.path), field, `discriminator \`${String(wasDiscriminator)}\` → \`${String(nowDiscriminator)}\``);
  }

  if (was.variants || now.variants) {
    // Each alternative holds what the rest of its schema requires: comparing the alternatives compares it all.
    compareVariants(w, was, now, field);
    return;
  }

  const sameTypes = typesCover(was.types, now.types) && typesCover(now.types, was.types);
  if (!sameTypes) {
    const detail = `type ${showTypes(was.types)} → ${showTypes(now.types)}`;
    const path = now.types ? declared(w, was, now, now.typesPath) : here;
    if (w.direction === 'request') schemaFinding(w, typesCover(now.types, was.types) ? 'type-widened' : 'type-changed', path, field, detail);
    else schemaFinding(w, typesCover(was.types, now.types) ? 'type-narrowed' : 'type-changed', path, field, detail);
    if (!typesOverlap(was.types, now.types)) return;
  }

  compareConstraints(w, was, now, field, tagged);

  const inner: Walk = { ...w, parent: here };
  if (isObjectLike(was) || isObjectLike(now)) compareObject(inner, was, now, field, tagProperty);
  if (was.items || now.items) {
    compareSchema(
      inner,
      was.items ?? { node: {}, path: child(was.path, 'items') },
      now.items ?? { node: {}, path: child(now.path, 'items') },
      inside(w, field, '[]'),
    );
  }
}

function isObjectLike(schema: Normalized): boolean {
  return schema.properties.size > 0 || schema.additional.kind !== 'open' || schema.required.size > 0;
}

/** A value as JSON (`"true"` and `true`, `""` and none, told apart), or `none`. */
function show(value: unknown): string {
  return value === undefined ? 'none' : canonical(value);
}

/** Values of a keyword that every member must satisfy (formats, patterns), compared as sets. */
function compareSet(
  w: Walk,
  was: readonly Keyword[],
  now: readonly Keyword[],
  at: (path: string) => string,
  fallback: string,
  field: string,
  label: string,
  kinds: { added: SchemaKind; removed: SchemaKind; changed: SchemaKind },
  print: (value: string) => string = show,
): void {
  const a = new Set(was.map((entry) => String(entry.value)));
  const b = new Set(now.map((entry) => String(entry.value)));
  const fresh = now.filter((entry) => !a.has(String(entry.value)));
  const gone = [...a].filter((value) => !b.has(value));
  if (fresh.length === 0 && gone.length === 0) return;
  const kind = gone.length === 0 ? kinds.added : fresh.length === 0 ? kinds.removed : kinds.changed;
  const showAll = (values: Set<string>) => (values.size === 0 ? 'none' : [...values].map(print).join(' and '));
  schemaFinding(w, kind, fresh[0] ? at(fresh[0].path) : fallback, field, `${label} ${showAll(a)} → ${showAll(b)}`);
}

function compareConstraints(w: Walk, was: Normalized, now: Normalized, field: string, tagged = false): void {
  const here = place(w, now.path);
  const at = (path: string) => declared(w, was, now, path);
  const bound = (schema: Normalized, keyword: string) => schema.bounds.get(keyword)?.value;
  const boundPath = (keyword: string) => {
    const entry = now.bounds.get(keyword);
    return entry ? at(entry.path) : here;
  };

  // A format is a name, shown as written; a pattern is a value, shown as JSON.
  compareSet(w, formatsOf(was), formatsOf(now), at, here, field, 'format', { added: 'format-added', removed: 'format-removed', changed: 'format-changed' }, (name) => name);

  const wasEnum = was.enumValues?.value;
  const nowEnum = now.enumValues?.value;
  if (tagged) {
    // The values of a discriminated union's tag are its tags: compared with the union.
  } else if (wasEnum && nowEnum) {
    // One finding per direction, with every value it concerns: one change of the list, however many values.
    const wasKeys = new Set(wasEnum.map(canonical));
    const nowKeys = new Set(nowEnum.map(canonical));
    const added = distinct(nowEnum.filter((entry) => !wasKeys.has(canonical(entry))));
    const removed = distinct(wasEnum.filter((entry) => !nowKeys.has(canonical(entry))));
    const path = at(now.enumValues!.path);
    const listed = (values: unknown[]) => values.map(canonical).join(', ');
    if (added.length > 0) {
      schemaFinding(w, 'enum-value-added', path, field, added.length === 1 ? `new value ${listed(added)}` : `new values ${listed(added)}`, { values: added });
    }
    if (removed.length > 0) {
      schemaFinding(w, 'enum-value-removed', path, field, removed.length === 1 ? `value ${listed(removed)} removed` : `values ${listed(removed)} removed`, { values: removed });
    }
  } else if (nowEnum) {
    schemaFinding(w, 'enum-introduced', at(now.enumValues!.path), field, `now one of ${nowEnum.map(canonical).join(', ')}`);
  } else if (wasEnum) {
    schemaFinding(w, 'enum-dropped', here, field, `no longer limited to ${wasEnum.map(canonical).join(', ')}`);
  }

  const upper: [string, SchemaKind, SchemaKind][] = [
    ['maxLength', 'max-length-decreased', 'max-length-increased'],
    ['maxItems', 'max-items-decreased', 'max-items-increased'],
  ];
  for (const [keyword, tightened, loosened] of upper) {
    const a = bound(was, keyword);
    const b = bound(now, keyword);
    if (a === b) continue;
    const tighter = a === undefined || (typeof a === 'number' && typeof b === 'number' && b < a);
    schemaFinding(w, tighter ? tightened : loosened, boundPath(keyword), field, `${keyword} ${show(a)} → ${show(b)}`);
  }
  const lower: [string, SchemaKind, SchemaKind][] = [
    ['minLength', 'min-length-increased', 'min-length-decreased'],
    ['minItems', 'min-items-increased', 'min-items-decreased'],
  ];
  for (const [keyword, tightened, loosened] of lower) {
    const a = numberOr(bound(was, keyword), 0);
    const b = numberOr(bound(now, keyword), 0);
    if (a === b) continue;
    schemaFinding(w, b > a ? tightened : loosened, boundPath(keyword), field, `${keyword} ${show(bound(was, keyword))} → ${show(bound(now, keyword))}`);
  }
  compareNumericBound(w, was, now, field, 'upper');
  compareNumericBound(w, was, now, field, 'lower');

  compareSet(w, was.patterns, now.patterns, at, here, field, 'pattern', { added: 'pattern-added', removed: 'pattern-removed', changed: 'pattern-changed' });

  compareMultipleOf(w, was, now, field, at, here);
  const keywords = new Set([...was.others.keys(), ...now.others.keys()]);
  keywords.delete('multipleOf');
  for (const keyword of [...keywords].sort()) {
    const values = (schema: Normalized) => (schema.others.get(keyword) ?? []).map((entry) => canonical(entry.value)).sort();
    const a = values(was);
    const b = values(now);
    if (a.join('\u0000') === b.join('\u0000')) continue;
    const order = constraintOrder(keyword, was, now);
    if (order === 0) continue;
    const kind = order === undefined ? 'constraint-changed' : order > 0 ? 'constraint-tightened' : 'constraint-loosened';
    const entry = now.others.get(keyword)?.find((candidate) => !a.includes(canonical(candidate.value)));
    schemaFinding(w, kind, entry ? at(entry.path) : here, field, `${keyword} ${showList(a)} → ${showList(b)}`);
  }

  const a = was.default?.value;
  const b = now.default?.value;
  if (a === undefined && b !== undefined) schemaFinding(w, 'default-added', at(now.default!.path), field, `default none → ${show(b)}`);
  else if (a !== undefined && b === undefined) schemaFinding(w, 'default-removed', here, field, `default ${show(a)} → none`);
  else if (a !== undefined && canonical(a) !== canonical(b)) schemaFinding(w, 'default-changed', at(now.default!.path), field, `default ${show(a)} → ${show(b)}`);

  if (!was.deprecated && now.deprecated) schemaFinding(w, 'deprecated', at(now.deprecated), field, 'deprecated');
  else if (was.deprecated && !now.deprecated) schemaFinding(w, 'undeprecated', here, field, 'no longer deprecated');
}

function showList(values: readonly string[]): string {
  return values.length === 0 ? 'none' : values.join(' and ');
}

/**
 * Validation keywords whose values are ordered, with the value their absence means: a bound on the count of
 * properties or of matching items (the lowest upper bound and the highest lower bound hold), or a flag.
 */
const ORDERED_CONSTRAINTS: Record<string, { side: 'upper' | 'lower' | 'flag'; absent: number }> = {
  maxProperties: { side: 'upper', absent: Infinity },
  maxContains: { side: 'upper', absent: Infinity },
  minProperties: { side: 'lower', absent: 0 },
  minContains: { side: 'lower', absent: 1 },
  uniqueItems: { side: 'flag', absent: 0 },
};

/**
 * Which way an ordered keyword moved: 1 when the revision accepts fewer values, -1 more, 0 the same (`minProperties:
 * 0` is none); undefined for a keyword without an order, or with values of another type.
 */
function constraintOrder(keyword: string, was: Normalized, now: Normalized): number | undefined {
  const order = ORDERED_CONSTRAINTS[keyword];
  if (!order) return undefined;
  const effective = (schema: Normalized): number | undefined => {
    const values = (schema.others.get(keyword) ?? []).map((entry) => entry.value);
    if (order.side === 'flag') return values.every((value) => typeof value === 'boolean') ? Number(values.includes(true)) : undefined;
    if (!values.every((value) => typeof value === 'number')) return undefined;
    const numbers = values as number[];
    return order.side === 'upper' ? Math.min(order.absent, ...numbers) : Math.max(order.absent, ...numbers);
  };
  const a = effective(was);
  const b = effective(now);
  if (a === undefined || b === undefined) return undefined;
  return order.side === 'upper' ? Math.sign(a - b) : Math.sign(b - a);
}

/**
 * The formats a schema's values must match, but `int64` on integers: every integer a client or a server exchanges
 * in JSON within the interoperable range (RFC 7493, ±2^53) is one, so it restricts nothing (see README, Decisions).
 */
function formatsOf(schema: Normalized): Keyword[] {
  return integerOnly(schema) ? schema.formats.filter((entry) => entry.value !== 'int64') : schema.formats;
}

/** The values of a list once each, in order. */
function distinct(values: readonly unknown[]): unknown[] {
  const seen = new Set<string>();
  return values.filter((value) => {
    const key = canonical(value);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' ? value : fallback;
}

interface Bound {
  /** The bound as written (the tighter of the inclusive and the exclusive keyword). */
  value: number;
  exclusive: boolean;
  keyword: string;
  path: string;
  /** The bound compared: exact, and snapped to the lowest (or highest) accepted value where values are discrete. */
  exact: Fraction;
  /** Whether `exact` is itself excluded (continuous values only). */
  open: boolean;
}

/** Whether only integers are accepted (among numbers: other types may be accepted too). */
function integerOnly(schema: Normalized): boolean {
  return schema.types !== undefined && schema.types.size > 0 && [...schema.types].every((type) => type === 'integer');
}

function multiplesOf(schema: Normalized): unknown[] {
  return (schema.others.get('multipleOf') ?? []).map((entry) => entry.value);
}

/**
 * The steps the bounds of two schemas are snapped to: their whole step (type and `multipleOf`) when it is the same
 * on both sides, else the step of their type alone, so that a change of `multipleOf` is reported as that, once, and
 * not also as the bounds it moves.
 */
function boundSteps(was: Normalized, now: Normalized): [Fraction | undefined, Fraction | undefined] {
  const a = stepOf(integerOnly(was), multiplesOf(was));
  const b = stepOf(integerOnly(now), multiplesOf(now));
  if (a && b && compareFractions(a, b) === 0) return [a, b];
  const byType = (schema: Normalized) => (integerOnly(schema) ? { n: 1n, d: 1n } : undefined);
  return [byType(was), byType(now)];
}

function numericBound(schema: Normalized, side: 'upper' | 'lower', step: Fraction | undefined): Bound | undefined {
  const [inclusive, exclusive] = side === 'upper' ? ['maximum', 'exclusiveMaximum'] : ['minimum', 'exclusiveMinimum'];
  const candidates: Omit<Bound, 'exact' | 'open'>[] = [];
  for (const [keyword, isExclusive] of [
    [inclusive, false],
    [exclusive, true],
  ] as const) {
    const entry = schema.bounds.get(keyword);
    if (entry && typeof entry.value === 'number' && Number.isFinite(entry.value)) candidates.push({ value: entry.value, exclusive: isExclusive, keyword, path: entry.path });
  }
  const sign = side === 'upper' ? 1 : -1;
  const bound = candidates.sort((a, b) => sign * (a.value - b.value) || Number(b.exclusive) - Number(a.exclusive))[0];
  if (!bound) return undefined;
  const written = fraction(bound.value)!;
  return step ? { ...bound, exact: snapBound(written, bound.exclusive, side, step), open: false } : { ...bound, exact: written, open: bound.exclusive };
}

const NUMERIC_BOUNDS = ['maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum'];

function compareNumericBound(w: Walk, was: Normalized, now: Normalized, field: string, side: 'upper' | 'lower'): void {
  if (!NUMERIC_BOUNDS.some((keyword) => was.bounds.has(keyword) || now.bounds.has(keyword))) return;
  const [wasStep, nowStep] = boundSteps(was, now);
  const a = numericBound(was, side, wasStep);
  const b = numericBound(now, side, nowStep);
  if (!a && !b) return;
  let tighter: boolean;
  if (!a) tighter = true;
  else if (!b) tighter = false;
  else {
    const sign = side === 'upper' ? 1 : -1;
    const difference = sign * compareFractions(a.exact, b.exact);
    if (difference === 0 && a.open === b.open) return;
    tighter = difference > 0 || (difference === 0 && b.open);
  }
  const kinds: [SchemaKind, SchemaKind] = side === 'upper' ? ['max-decreased', 'max-increased'] : ['min-increased', 'min-decreased'];
  const label = (bound: Bound | undefined) => (bound ? `${bound.keyword} ${bound.value}` : side === 'upper' ? 'maximum none' : 'minimum none');
  const detail = a && b && a.keyword === b.keyword ? `${a.keyword} ${a.value} → ${b.value}` : `${label(a)} → ${label(b)}`;
  schemaFinding(w, tighter ? kinds[0] : kinds[1], declared(w, was, now, b?.path ?? now.path), field, detail);
}

/**
 * `multipleOf` compared as the step it makes: on integers `multipleOf: 1` is none, several (allOf members) are one
 * step, their least common multiple. Values that are not positive numbers are compared as written.
 */
function compareMultipleOf(w: Walk, was: Normalized, now: Normalized, field: string, at: (path: string) => string, here: string): void {
  const a = multiplesOf(was);
  const b = multiplesOf(now);
  if (a.length === 0 && b.length === 0) return;
  const effective = (schema: Normalized, values: unknown[]): Fraction | undefined | null => {
    if (values.length === 0) return undefined;
    const integer = integerOnly(schema);
    const step = stepOf(integer, values);
    if (!step) return null;
    return integer && isOne(step) ? undefined : step;
  };
  const stepA = effective(was, a);
  const stepB = effective(now, b);
  const written = (values: unknown[]) => values.map(canonical).sort();
  // A step that is a multiple of the old one accepts fewer values (multiples of 4 are multiples of 2), one that
  // divides it more; steps of neither kind are another constraint.
  let kind: SchemaKind = 'constraint-changed';
  if (stepA !== null && stepB !== null) {
    if (stepA === undefined && stepB === undefined) return;
    if (stepA && stepB && compareFractions(stepA, stepB) === 0) return;
    if (stepA === undefined || (stepB !== undefined && isMultiple(stepB, stepA))) kind = 'constraint-tightened';
    else if (stepB === undefined || isMultiple(stepA, stepB)) kind = 'constraint-loosened';
  } else if (written(a).join('\u0000') === written(b).join('\u0000')) return;
  const entry = now.others.get('multipleOf')?.find((candidate) => !written(a).includes(canonical(candidate.value)));
  schemaFinding(w, kind, entry ? at(entry.path) : here, field, `multipleOf ${showList(written(a))} → ${showList(written(b))}`);
}

/**
 * `travels` read off a schema that is all its own keywords (no `$ref`, no composition, no value list that could
 * leave it empty), without normalising it; undefined for any other.
 */
function travelsPlain(w: Walk, node: unknown): boolean | undefined {
  if (!isObject(node) || node.$ref !== undefined || node.allOf !== undefined || node.anyOf !== undefined || node.oneOf !== undefined) return undefined;
  if (node.enum !== undefined || node.const !== undefined || (node.type !== undefined && typeof node.type !== 'string')) return undefined;
  return w.direction === 'request' ? node.readOnly !== true : node.writeOnly !== true;
}

/** Whether a property travels in the walk's direction: read-only ones are not sent, write-only ones not answered. */
function travels(w: Walk, schema: Normalized): boolean {
  return !isNever(schema) && !(w.direction === 'request' ? schema.readOnly : schema.writeOnly);
}

function compareObject(w: Walk, was: Normalized, now: Normalized, field: string, tagProperty?: string): void {
  const { context } = w;
  const root = w.anchor ? undefined : componentRoot(now.path);
  const owner = root ?? field;
  const name = (property: string) => (owner ? `${owner}.${property}` : property);
  const here = place(w, now.path);
  const at = (path: string) => declared(w, was, now, path);
  /**
   * Where a property that is gone is reported: in the release, when the component that declared it (and that this
   * object still draws on) lost it; else (this object no longer uses it) at the object in the revision.
   */
  const gone = (location: Located): { path: string; document: 'base' | 'revision' } => {
    const component = componentOf(location.path);
    const itself = !w.anchor && (component === undefined || now.sources.has(component)) && resolvePointer(context.revision, location.path) === undefined;
    return itself ? { path: location.path, document: 'base' } : { path: here, document: 'revision' };
  };

  const names = new Set([...was.properties.keys(), ...now.properties.keys()]);
  for (const property of names) {
    const wasLocation = was.properties.get(property);
    const nowLocation = now.properties.get(property);
    // Written alike and reaching only components written alike: the same on both sides, nothing to walk.
    const same = wasLocation !== undefined && nowLocation !== undefined && unchangedAt(context, wasLocation, nowLocation);
    const plain = same ? travelsPlain(w, wasLocation!.node) : undefined;
    if (plain !== undefined) {
      if (plain) {
        const wasRequired = was.required.has(property);
        const nowRequired = now.required.has(property);
        if (wasRequired !== nowRequired) schemaFinding(w, nowRequired ? 'became-required' : 'became-optional', at(nowLocation!.path), name(property), nowRequired ? 'now required' : 'now optional');
      }
      continue;
    }
    const before = wasLocation && normalize(context.base, wasLocation);
    const after = same ? before : nowLocation && normalize(context.revision, nowLocation);
    const wasThere = before !== undefined && travels(w, before);
    const nowThere = after !== undefined && travels(w, after);
    const label = name(property);
    if (wasThere && nowThere) {
      const wasRequired = was.required.has(property);
      const nowRequired = now.required.has(property);
      const path = at(nowLocation!.path);
      if (!wasRequired && nowRequired) schemaFinding(w, 'became-required', path, label, 'now required');
      if (wasRequired && !nowRequired) schemaFinding(w, 'became-optional', path, label, 'now optional');
      if (!same) compareNormalized(property === tagProperty ? { ...w, tagged: true } : w, before, after, label);
    } else if (wasThere) {
      if (after && !isNever(after) && w.direction === 'request') {
        schemaFinding(w, 'became-read-only', at(after.readOnly ?? nowLocation!.path), label, 'now read-only: set by the server, no longer sent');
      } else if (after && !isNever(after)) {
        schemaFinding(w, 'became-write-only', at(after.writeOnly ?? nowLocation!.path), label, 'now write-only: no longer answered');
      } else {
        const where = after ? { path: at(nowLocation!.path), document: 'revision' as const } : gone(wasLocation!);
        schemaFinding(w, 'removed', where.path, label, 'removed', { document: where.document });
      }
    } else if (nowThere) {
      const required = now.required.has(property);
      const path = at(nowLocation!.path);
      if (before && !isNever(before)) {
        const request = w.direction === 'request';
        schemaFinding(w, request ? 'became-writable' : 'became-readable', path, label, request ? 'no longer read-only: now sent in requests' : 'no longer write-only: now answered');
        if (required) schemaFinding(w, 'became-required', path, label, 'now required');
      } else {
        schemaFinding(w, required ? 'added-required' : 'added', path, label, required ? 'new required field' : 'new optional field');
      }
    }
  }

  const wasAdditional = was.additional;
  const nowAdditional = now.additional;
  if (wasAdditional.kind === 'sealed' && nowAdditional.kind === 'sealed') return;
  if (nowAdditional.kind === 'sealed') schemaFinding(w, 'sealed', at(nowAdditional.path), owner, 'undeclared fields no longer allowed');
  else if (wasAdditional.kind === 'sealed') schemaFinding(w, 'unsealed', nowAdditional.kind === 'schema' ? at(nowAdditional.path) : here, owner, 'undeclared fields now allowed');
  else {
    const open = (schema: Normalized) => ({ node: {}, path: child(schema.path, 'unevaluatedProperties') });
    compareSchema(
      w,
      wasAdditional.kind === 'schema' ? wasAdditional.schema : open(was),
      nowAdditional.kind === 'schema' ? nowAdditional.schema : open(now),
      inside(w, owner, '.*'),
    );
  }
}

interface Member {
  schema: Normalized;
  label: string;
  signature: string;
  /** The alternative of the union it came from, when that one was itself a union (see `alternatives`). */
  nested?: Nested;
}

/** An alternative of a union that is itself a union: how it is named and where it is, and how many it holds. */
interface Nested {
  label: string;
  origin: string;
  size: number;
}

/**
 * The alternatives of a union as the values they accept: an alternative that is itself a union is its alternatives
 * (`anyOf: [string, $ref: Pet]` with `Pet` a `oneOf` of `Cat` and `Dog` is `string | Cat | Dog`); one whose values
 * another alternative accepts adds nothing (`anyOf: [string, {enum: [a, b]}]` is `string`); alternatives that are
 * only lists of values are one list (`oneOf: [{const: a}, {const: b}]` is `enum: [a, b]`). Alternatives no value
 * can match (`string` met with `boolean` when two unions are intersected) are none.
 */
function membersOf(document: JsonObject, schema: Normalized): Member[] {
  const nested = new Map<Normalized, Nested>();
  const schemas = schema.variants ? alternatives(document, schema.variants.members, nested) : byType({ ...schema, nullable: false });
  return valueSets(schema.variants?.path ?? schema.path, schemas).map((alternative) => member(document, alternative, nested.get(alternative)));
}

/** A schema of several types as the alternatives it is, one per type (`type: [string, integer]` is `string | integer`). */
function byType(schema: Normalized): Normalized[] {
  if (!schema.types || schema.types.size < 2) return [schema];
  return [...schema.types].sort().map((type) => {
    const values = schema.enumValues?.value.filter((value) => {
      const own = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value === 'number' ? (Number.isInteger(value) ? 'integer' : 'number') : typeof value;
      return own === type || (own === 'integer' && type === 'number');
    });
    return {
      ...schema,
      id: `${schema.id}#${type}`,
      types: new Set([type]),
      ...(schema.enumValues && values ? { enumValues: { ...schema.enumValues, value: values } } : {}),
    };
  }).filter((alternative) => !alternative.enumValues || alternative.enumValues.value.length > 0);
}

function member(document: JsonObject, schema: Normalized, nested?: Nested): Member {
  return { schema, label: labelOf(schema), signature: signatureOf(document, schema), ...(nested ? { nested } : {}) };
}

/** How deep unions nested in unions are read as one, and how many alternatives that may give. */
const NESTED_UNIONS = 8;
const MAX_MEMBERS = 256;

/**
 * A union's alternatives normalised, an alternative that is a union replaced by its own (with what its place adds),
 * each of those noted in `nested` with the alternative it came from (the outermost).
 */
function alternatives(document: JsonObject, members: readonly Located[], nested: Map<Normalized, Nested>, from?: Nested, depth = 0): Normalized[] {
  const result: Normalized[] = [];
  for (const member of members) {
    const schema = normalize(document, member);
    const union = schema.variants;
    if (union && depth < NESTED_UNIONS && result.length + union.members.length <= MAX_MEMBERS) {
      const outside = member.outside;
      const inner = union.members.map((alternative) => ({
        ...alternative,
        and: [...(alternative.and ?? []), ...(member.and ?? [])],
        ...(alternative.outside ?? outside ? { outside: alternative.outside ?? outside } : {}),
      }));
      const group = from ?? { label: schema.refName ? `\`${schema.refName}\`` : `${showTypes(schema.types)} (${union.keyword})`, origin: schema.origin, size: 0 };
      const found = alternatives(document, inner, nested, group, depth + 1);
      if (!from) group.size = found.length;
      result.push(...found);
    } else if (!isNever(schema)) {
      for (const alternative of byType({ ...schema, nullable: false })) {
        if (from) nested.set(alternative, from);
        result.push(alternative);
      }
    }
  }
  return result;
}

/** Whether a schema says nothing but its types (every value of them is valid). */
function onlyTypes(schema: Normalized): boolean {
  return !schema.enumValues && onlyValues(schema);
}

/** Whether a schema says nothing but its types and, maybe, a list of values. */
function onlyValues(schema: Normalized): boolean {
  return (
    schema.formats.length === 0 &&
    schema.patterns.length === 0 &&
    schema.bounds.size === 0 &&
    schema.others.size === 0 &&
    schema.properties.size === 0 &&
    schema.required.size === 0 &&
    schema.additional.kind === 'open' &&
    schema.items === undefined &&
    schema.variants === undefined &&
    schema.discriminator === undefined
  );
}

/** The alternatives left once those another accepts whole are left out, and those that only list values are one. */
function valueSets(path: string, members: readonly Normalized[]): Normalized[] {
  const covers = (outer: Normalized, inner: Normalized) => onlyTypes(outer) && typesCover(outer.types, inner.types);
  // Of alternatives that cover each other (two alike), the first stays.
  const kept = members.filter((member, index) =>
    !members.some((other, at) => at !== index && covers(other, member) && !(covers(member, other) && index < at)),
  );
  const lists = kept.filter((member) => member.enumValues !== undefined && onlyValues(member));
  if (lists.length < 2) return kept;
  const values = distinct(lists.flatMap((member) => member.enumValues!.value));
  const merged: Normalized = {
    ...lists[0]!,
    path,
    origin: path,
    id: `${path}|values(${lists.map((member) => member.id).join(',')})`,
    refName: undefined,
    types: new Set(lists.flatMap((member) => [...(member.types ?? [])])),
    typesPath: path,
    enumValues: { value: values, path },
    sources: new Set(lists.flatMap((member) => [...member.sources])),
  };
  const first = kept.indexOf(lists[0]!);
  return kept.flatMap((member, index) => (index === first ? [merged] : lists.includes(member) ? [] : [member]));
}

function labelOf(schema: Normalized): string {
  if (schema.refName) return `\`${schema.refName}\``;
  const values = schema.enumValues?.value;
  return values ? `${showTypes(schema.types)} ${values.map(canonical).join(' | ')}` : showTypes(schema.types);
}

/** Types, values and single-valued (discriminating) properties: what tells inline alternatives apart. */
function signatureOf(document: JsonObject, schema: Normalized): string {
  const constants: string[] = [];
  for (const [name, location] of schema.properties) {
    const values = normalize(document, location).enumValues?.value;
    if (values?.length === 1) constants.push(`${name}=${canonical(values[0])}`);
  }
  return [showTypes(schema.types), canonical(schema.enumValues?.value ?? null), constants.sort().join('&')].join('|');
}

/**
 * Whether two schemas have no difference at all (in the walk's direction). The pairs the walk is already comparing
 * count as equal, which is what stops recursive schemas.
 */
function identical(w: Walk, was: Normalized, now: Normalized): boolean {
  const trial: Walk = { ...w, visits: { seen: new Map(w.visits.seen), log: [...w.visits.log] }, sink: [], anchor: undefined, parent: undefined };
  compareNormalized(trial, was, now, '');
  return trial.sink.length === 0;
}

/**
 * Whether `wide` accepts every value `narrow` accepts: comparing them as a request (`narrow` sent before, `wide`
 * now) finds nothing a client would be refused. The pairs the walk is already comparing count as equal.
 */
function accepts(w: Walk, wide: Normalized, narrow: Normalized): boolean {
  const trial: Walk = {
    ...w,
    schemaContext: 'request-property',
    direction: 'request',
    visits: { seen: new Map(w.visits.seen), log: [...w.visits.log] },
    sink: [],
    anchor: undefined,
    parent: undefined,
  };
  compareNormalized(trial, narrow, wide, '');
  return trial.sink.every((raw) => RULES.get(raw.rule)!.severity !== 'breaking-client');
}

/** Pairs the members of two unions: first the pairs given, then by `$ref` name, shape, then type. */
function pairMembers(w: Walk, wasMembers: readonly Member[], nowMembers: readonly Member[], given: readonly [Member, Member][] = []): { pairs: [Member, Member][]; removed: Member[]; added: Member[] } {
  const pairs: [Member, Member][] = [...given];
  const free = new Set(nowMembers.filter((member) => !given.some(([, b]) => b === member)));
  const matchers: ((a: Member, b: Member) => boolean)[] = [
    (a, b) => a.schema.refName !== undefined && a.schema.refName === b.schema.refName,
    (a, b) => a.signature === b.signature && identical(w, a.schema, b.schema),
    (a, b) => a.signature === b.signature,
    (a, b) => typesOverlap(a.schema.types, b.schema.types) && a.schema.refName === undefined && b.schema.refName === undefined,
    (a, b) => typesOverlap(a.schema.types, b.schema.types),
  ];
  let remaining = wasMembers.filter((member) => !given.some(([a]) => a === member));
  for (const matches of matchers) {
    const next: Member[] = [];
    for (const member of remaining) {
      const match = [...free].find((candidate) => matches(member, candidate));
      if (match) {
        free.delete(match);
        pairs.push([member, match]);
      } else next.push(member);
    }
    remaining = next;
  }
  return { pairs, removed: remaining, added: [...free] };
}

function compareVariants(w: Walk, was: Normalized, now: Normalized, field: string): void {
  const wasMembers = membersOf(w.context.base, was);
  const nowMembers = membersOf(w.context.revision, now);
  if (compareDiscriminated(w, was, now, field, wasMembers, nowMembers)) return;
  const paired = pairMembers(w, wasMembers, nowMembers);
  const { pairs } = paired;
  // An alternative no longer listed whose values another one still accepts is not removed (it was merged into that
  // one); a new one whose values one listed before accepted is not new (that one was split). What the wider one
  // accepts besides is found where it is paired.
  const removed = paired.removed.filter((member) => !nowMembers.some((candidate) => accepts(w, candidate.schema, member.schema)));
  const added = paired.added.filter((member) => !wasMembers.some((candidate) => accepts(w, candidate.schema, member.schema)));

  // A removed alternative is reported at the union in the revision: that is where it was taken out (at the schema
  // that refers to it, when the union is a component the release did not draw on here).
  const union = declared(w, was, now, now.variants?.path ?? now.path);
  for (const alternative of whole(removed)) schemaFinding(w, 'variant-removed', union, field, `alternative ${alternative.label} removed`);
  for (const alternative of whole(added)) schemaFinding(w, 'variant-added', place(w, alternative.origin), field, `new alternative ${alternative.label}`);
  const inner: Walk = { ...w, parent: place(w, now.path) };
  for (const [a, b] of pairs) compareNormalized(inner, a.schema, b.schema, field);
}

/**
 * Alternatives added (or removed) as they were written: a union that was one alternative, every one of its own
 * alternatives added, is one alternative added (`VariableComposedColor`, not its two objects).
 */
function whole(members: readonly Member[]): { label: string; origin: string }[] {
  const count = new Map<Nested, number>();
  for (const { nested } of members) if (nested) count.set(nested, (count.get(nested) ?? 0) + 1);
  const result: { label: string; origin: string }[] = [];
  const told = new Set<Nested>();
  for (const { nested, label, schema } of members) {
    if (nested && count.get(nested) === nested.size) {
      if (!told.has(nested)) result.push({ label: nested.label, origin: nested.origin });
      told.add(nested);
    } else result.push({ label, origin: schema.origin });
  }
  return result;
}

// ---- discriminated unions --------------------------------------------------------------------------------------
//
// A union whose alternatives are told apart by one property, the tag, is judged as the set of its tags, each
// selecting one member: a tag added, removed or renamed, or selecting another member, is a change of the union,
// not of the tag property's values. A union is discriminated when it has a `discriminator` (its own, or the one
// every member carries), or, without one, when every member requires one same property whose values (`enum` or
// `const`) are strings no other member accepts: the way TypeSpec writes a union of models tagged by a literal.

interface Tag {
  member: Member;
  /** Where the tag is declared: the `mapping`, the member's tag property, or the member (its name is the tag). */
  path: string;
}

interface Tagging {
  property: string;
  tags: Map<string, Tag>;
}

interface Discriminator {
  propertyName: string;
  mapping?: JsonObject;
  /** The schema that declares it. */
  path: string;
}

function discriminatorOf(schema: Normalized, members: readonly Member[]): Discriminator | undefined {
  const read = (keyword: Keyword | undefined): Discriminator | undefined => {
    const value = keyword?.value;
    if (!isObject(value) || typeof value.propertyName !== 'string') return undefined;
    return { propertyName: value.propertyName, ...(isObject(value.mapping) ? { mapping: value.mapping } : {}), path: keyword!.path };
  };
  const own = read(schema.discriminator);
  if (own) return own;
  const inherited = members.map((member) => read(member.schema.discriminator));
  const first = inherited[0];
  return first && inherited.every((entry) => entry?.propertyName === first.propertyName) ? first : undefined;
}

/** The values a member accepts for the tag property, when they are a list of strings. */
function tagValues(document: JsonObject, member: Member, property: string): { values: string[]; path: string } | undefined {
  const location = member.schema.properties.get(property);
  if (!location) return undefined;
  const values = normalize(document, location).enumValues;
  if (!values || values.value.length === 0 || !values.value.every((value) => typeof value === 'string')) return undefined;
  return { values: values.value as string[], path: values.path };
}

/**
 * Properties that tag the members without a `discriminator`: required by each, string values no other accepts. A
 * schema that is no union (one member) is tagged as well: it is compared with a union that was or becomes one.
 */
function implicitTags(document: JsonObject, members: readonly Member[]): string[] {
  if (members.length === 0) return [];
  return [...members[0]!.schema.required].sort().filter((property) => {
    const seen = new Set<string>();
    for (const member of members) {
      if (!member.schema.required.has(property)) return false;
      const tags = tagValues(document, member, property);
      if (!tags) return false;
      for (const value of tags.values) {
        if (seen.has(value)) return false;
        seen.add(value);
      }
    }
    return true;
  });
}

/**
 * Each tag and the member it selects: the `mapping`'s entries (a member named by its `$ref`; an entry whose member
 * does not accept the tag is void, as a validator would refuse the value), then the values each member accepts for
 * the tag property, then, with a `discriminator`, the name of a member that has neither (OpenAPI's implicit
 * mapping). Undefined when some member has no tag, or a tag would select two members.
 */
function taggingOf(document: JsonObject, members: readonly Member[], property: string, discriminator: Discriminator | undefined): Tagging | undefined {
  const tags = new Map<string, Tag & { mapped?: boolean }>();
  const values = new Map(members.map((member) => [member, tagValues(document, member, property)]));
  const tagged = new Set<Member>();
  if (discriminator?.mapping) {
    const path = child(discriminator.path, 'discriminator', 'mapping');
    for (const [tag, target] of Object.entries(discriminator.mapping)) {
      if (typeof target !== 'string') continue;
      const name = refName(target) ?? (target.includes('/') ? undefined : target);
      const member = members.find((candidate) => candidate.schema.refName !== undefined && candidate.schema.refName === name);
      if (!member) continue;
      const own = values.get(member);
      if (own && !own.values.includes(tag)) continue;
      tags.set(tag, { member, path, mapped: true });
      tagged.add(member);
    }
  }
  for (const member of members) {
    const own = values.get(member);
    if (own) {
      for (const value of own.values) {
        const known = tags.get(value);
        if (known?.mapped) continue;
        if (known && known.member !== member) return undefined;
        tags.set(value, { member, path: own.path });
        tagged.add(member);
      }
    } else if (!tagged.has(member)) {
      const name = member.schema.refName;
      if (!discriminator || name === undefined || tags.has(name)) return undefined;
      tags.set(name, { member, path: member.schema.origin });
      tagged.add(member);
    }
  }
  if (members.some((member) => !tagged.has(member))) return undefined;
  return { property, tags };
}

/** Compares two unions as discriminated unions, when both are, by the same property; false when they are not. */
function compareDiscriminated(w: Walk, was: Normalized, now: Normalized, field: string, wasMembers: Member[], nowMembers: Member[]): boolean {
  const { base, revision } = w.context;
  if (wasMembers.length < 2 && nowMembers.length < 2) return false;
  const wasDiscriminator = discriminatorOf(was, wasMembers);
  const nowDiscriminator = discriminatorOf(now, nowMembers);
  const wasCandidates = wasDiscriminator ? [wasDiscriminator.propertyName] : implicitTags(base, wasMembers);
  if (wasCandidates.length === 0) return false;
  const nowCandidates = nowDiscriminator ? [nowDiscriminator.propertyName] : implicitTags(revision, nowMembers);
  // Of several properties that tag the members on both sides, the first whose tags changed (else the first).
  const taggings = wasCandidates
    .filter((candidate) => nowCandidates.includes(candidate))
    .map((candidate) => [taggingOf(base, wasMembers, candidate, wasDiscriminator), taggingOf(revision, nowMembers, candidate, nowDiscriminator)] as const)
    .filter((pair): pair is readonly [Tagging, Tagging] => pair[0] !== undefined && pair[1] !== undefined);
  const signature = (tagging: Tagging) => [...tagging.tags.keys()].sort().join('\u0000');
  const chosen = taggings.find(([a, b]) => signature(a) !== signature(b)) ?? taggings[0];
  if (!chosen) return false;
  const [before, after] = chosen;
  const property = before.property;

  // Members are paired by their component's name, then by the tags they share (the most first), then as any
  // union's members are.
  const given: [Member, Member][] = [];
  for (const a of wasMembers) {
    const b = a.schema.refName === undefined ? undefined : nowMembers.find((candidate) => candidate.schema.refName === a.schema.refName);
    if (b && !given.some(([, taken]) => taken === b)) given.push([a, b]);
  }
  const shared = new Map<Member, Map<Member, number>>();
  for (const [tag, entry] of before.tags) {
    const other = after.tags.get(tag);
    if (!other) continue;
    const counts = shared.get(entry.member) ?? shared.set(entry.member, new Map()).get(entry.member)!;
    counts.set(other.member, (counts.get(other.member) ?? 0) + 1);
  }
  const candidates = [...shared].flatMap(([a, counts]) => [...counts].map(([b, count]) => ({ a, b, count })));
  candidates.sort((x, y) => y.count - x.count);
  for (const { a, b } of candidates) {
    if (given.some(([x, y]) => x === a || y === b)) continue;
    given.push([a, b]);
  }
  const { pairs } = pairMembers(w, wasMembers, nowMembers, given);
  const partner = new Map(pairs);
  const previous = new Map(pairs.map(([a, b]) => [b, a]));

  const union = declared(w, was, now, now.variants?.path ?? now.path);
  /** A member as the details name it: its component, when it is one. */
  const of = (member: Member) => (member.schema.refName === undefined ? '' : ` (\`${member.schema.refName}\`)`);
  const label = (member: Member) => (member.schema.refName === undefined ? 'another alternative' : `\`${member.schema.refName}\``);
  const name = (tag: string) => JSON.stringify(tag);
  /** Where a member's tags are declared in the revision, for a tag it lost. */
  const tagsOf = (member: Member) => [...after.tags.values()].find((entry) => entry.member === member);
  const report = (kind: SchemaKind, path: string, detail: string, value: string) =>
    schemaFinding(w, kind, path, field, `discriminator \`${property}\`: ${detail}`, { value });
  const at = (member: Member, path: string) => {
    const old = previous.get(member);
    return old ? declared(w, old.schema, member.schema, path) : place(w, member.schema.origin);
  };

  const fresh = new Map<Member, string[]>();
  for (const [tag, entry] of after.tags) {
    const old = before.tags.get(tag);
    if (!old) (fresh.get(entry.member) ?? fresh.set(entry.member, []).get(entry.member)!).push(tag);
    else if (partner.get(old.member) !== entry.member) {
      report('discriminator-mapping-changed', at(entry.member, entry.path), `tag ${name(tag)} now selects ${label(entry.member)} (was ${label(old.member)})`, tag);
    }
  }
  const gone = new Map<Member, string[]>();
  for (const [tag, entry] of before.tags) {
    if (!after.tags.has(tag)) (gone.get(entry.member) ?? gone.set(entry.member, []).get(entry.member)!).push(tag);
  }
  for (const [member, tags] of gone) {
    const now = partner.get(member);
    const added = now ? fresh.get(now) ?? [] : [];
    for (const tag of tags) {
      const renamed = added.shift();
      if (now && renamed !== undefined) {
        report('discriminator-tag-renamed', at(now, after.tags.get(renamed)!.path), `tag ${name(tag)} renamed ${name(renamed)}${of(now)}`, renamed);
      } else {
        const where = now ? tagsOf(now) : undefined;
        report('discriminator-tag-removed', where ? at(now!, where.path) : union, `tag ${name(tag)}${of(member)} removed`, tag);
      }
    }
  }
  for (const [member, tags] of fresh) {
    for (const tag of tags) report('discriminator-tag-added', at(member, after.tags.get(tag)!.path), `new tag ${name(tag)}${of(member)}`, tag);
  }

  // The members compared, their tag property without its values: those are the tags, judged above.
  const inner: Walk = { ...w, parent: place(w, now.path), tagProperty: property };
  for (const [a, b] of pairs) compareNormalized(inner, a.schema, b.schema, field);
  return true;
}
