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
import {
  forget,
  isNever,
  normalize,
  showTypes,
  typesCover,
  typesOverlap,
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
  /** For an enum value added or removed: the value. */
  value?: unknown;
}

export interface CompareOptions {
  /** Leave out findings of these rules. */
  ignoreRules?: readonly RuleId[];
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
  const context: Context = { base, revision, drafts: new Map(), walks: new Map() };

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
  for (const [before, after] of pairs) compareOperation(context, before, after);
  compareComponents(context, baseOperations, revisionOperations);

  const ignored = new Set(options.ignoreRules ?? []);
  return [...context.drafts.values()].filter((draft) => !ignored.has(draft.rule)).map(finish).sort(byPlace);
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
  const operations = [...draft.operations.values()].sort((a, b) => a.operationId.localeCompare(b.operationId));
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
  };
}

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
    a.path.localeCompare(b.path) ||
    a.rule.localeCompare(b.rule) ||
    a.detail.localeCompare(b.detail)
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

function compareOperation(context: Context, before: Operation, after: Operation): void {
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
  compareSecurity(context, before, after);
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

/** Whether a component of the base and one of the revision accept and answer the same values. */
function sameShape(context: Context, was: string, now: string): boolean {
  for (const schemaContext of ['request-property', 'response-property'] as const) {
    const sink: Raw[] = [];
    const w: Walk = { context, schemaContext, direction: directionOf(schemaContext), visited: new Set(), sink };
    compareSchema(w, { node: { $ref: schemaPointer(was) }, path: schemaPointer(was) }, { node: { $ref: schemaPointer(now) }, path: schemaPointer(now) }, now);
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
  for (const list of reach.values()) list.sort((a, b) => a.operationId.localeCompare(b.operationId));
  return reach;
}

/** The components a node refers to (`#/components/<kind>/<name>`). */
function refsIn(node: unknown, found: string[] = []): string[] {
  if (Array.isArray(node)) for (const item of node) refsIn(item, found);
  else if (isObject(node)) {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') {
        const match = /^#\/components\/[^/]+\/[^/]+/.exec(value);
        if (match) found.push(match[0]);
      } else refsIn(value, found);
    }
  }
  return found;
}

// ---- security ------------------------------------------------------------------------------------------------

function securityOf(document: JsonObject, operation: Operation): { alternatives: Map<string, JsonObject>; pointer: string } {
  const own = Array.isArray(operation.node.security);
  const list = own ? operation.node.security : document.security;
  const requirements = Array.isArray(list) && list.length > 0 ? list : [{}];
  const alternatives = new Map<string, JsonObject>();
  for (const requirement of requirements) {
    if (!isObject(requirement)) continue;
    const sorted: JsonObject = {};
    for (const name of Object.keys(requirement).sort()) {
      const scopes = requirement[name];
      sorted[name] = Array.isArray(scopes) ? [...scopes].map(String).sort() : [];
    }
    alternatives.set(canonical(sorted), sorted);
  }
  return { alternatives, pointer: own ? child(operation.pointer, 'security') : '#/security' };
}

function showRequirement(requirement: JsonObject): string {
  const names = Object.entries(requirement).map(([name, scopes]) =>
    Array.isArray(scopes) && scopes.length > 0 ? `${name} (${scopes.join(', ')})` : name,
  );
  return names.length > 0 ? names.join(' + ') : 'no authentication';
}

function compareSecurity(context: Context, before: Operation, after: Operation): void {
  const operation = after.ref;
  const base = securityOf(context.base, before);
  const revision = securityOf(context.revision, after);
  const anonymous = canonical({});
  for (const [key, requirement] of base.alternatives) {
    if (revision.alternatives.has(key) || revision.alternatives.has(anonymous)) continue;
    emit(context, {
      rule: 'operation-security-changed',
      path: revision.pointer,
      document: 'revision',
      operation,
      detail: `${showRequirement(requirement)} no longer accepted; now ${[...revision.alternatives.values()].map(showRequirement).join(' or ')}`,
    });
  }
  for (const [key, requirement] of revision.alternatives) {
    if (base.alternatives.has(key)) continue;
    emit(context, {
      rule: 'operation-security-alternative-added',
      path: revision.pointer,
      document: 'revision',
      operation,
      detail: `${showRequirement(requirement)} now accepted`,
    });
  }

  const baseSchemes = schemesOf(context.base);
  const revisionSchemes = schemesOf(context.revision);
  for (const requirement of revision.alternatives.values()) {
    for (const name of Object.keys(requirement)) {
      const was = baseSchemes[name];
      const now = revisionSchemes[name];
      if (!isObject(was) || !isObject(now)) continue;
      const { description: _a, ...wasShape } = was;
      const { description: _b, ...nowShape } = now;
      if (canonical(wasShape) === canonical(nowShape)) continue;
      emit(context, {
        rule: 'security-scheme-changed',
        path: child('#/components/securitySchemes', name),
        document: 'revision',
        operation,
        detail: `security scheme \`${name}\`: ${canonical(wasShape)} → ${canonical(nowShape)}`,
      });
    }
  }
}

function schemesOf(document: JsonObject): JsonObject {
  return isObject(document.components) && isObject(document.components.securitySchemes)
    ? document.components.securitySchemes
    : {};
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
  const structured = [wasSchema && normalize(context.base, wasSchema), nowSchema && normalize(context.revision, nowSchema)].some(
    (schema) => !schema || !schema.types || schema.types.has('array') || schema.types.has('object'),
  );
  if (structured) {
    const a = serialisation(was);
    const b = serialisation(now);
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
    emit(context, { rule: 'request-body-removed', path: was.path, document: 'base', operation, detail: 'the body is no longer accepted' });
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
  visited: Set<string>;
  sink: Raw[];
  anchor?: string;
  parent?: string;
  /** The components the base draws on along the walk so far (the schemas being compared and their ancestors). */
  drawn?: ReadonlySet<string>;
}

/**
 * Compares the schemas of one body, parameter, answer or header, and gives the findings to `operation`. What such a
 * walk finds depends only on what it compares, so each is walked once and its findings given to every operation
 * that has it (most answers are the same `$ref`s).
 */
function compareEntry(context: Context, schemaContext: SchemaContext, operation: OperationRef, was: Located, now: Located, field: string): void {
  const a = normalize(context.base, was);
  const b = normalize(context.revision, now);
  const key = [schemaContext, field, a.id, b.id, samePlace(a, b) ? '' : `${a.origin}\u0000${b.origin}`].join('\u0000');
  let found = context.walks.get(key);
  if (!found) {
    found = [];
    compareNormalized({ context, schemaContext, direction: directionOf(schemaContext), visited: new Set(), sink: found }, a, b, field);
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
  more: { document?: 'base' | 'revision'; value?: unknown } = {},
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
  });
}

function rootLabel(context: SchemaContext): string {
  return context === 'request-property' ? 'request body' : context === 'response-property' ? 'response body' : '';
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
  const drawn = component === undefined || was.sources.has(component) || w.drawn?.has(component);
  return place(w, drawn ? path : now.path);
}

function drawnWith(drawn: ReadonlySet<string> | undefined, sources: ReadonlySet<string>): ReadonlySet<string> {
  if (drawn && [...sources].every((source) => drawn.has(source))) return drawn;
  return new Set([...(drawn ?? []), ...sources]);
}

function compareSchema(w: Walk, was: Located, now: Located, field: string): void {
  compareNormalized(w, normalize(w.context.base, was), normalize(w.context.revision, now), field);
}

function compareNormalized(outer: Walk, was: Normalized, now: Normalized, field: string): void {
  const anchor = anchorFor(outer, was, now);
  const key = `${outer.schemaContext}\u0000${was.id}\u0000${now.id}\u0000${anchor ?? ''}`;
  if (outer.visited.has(key)) return;
  outer.visited.add(key);
  const w: Walk = { ...outer, anchor, parent: undefined, drawn: drawnWith(outer.drawn, was.sources) };
  if (!field) field = now.refName ?? was.refName ?? '';
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

  compareConstraints(w, was, now, field);

  const inner: Walk = { ...w, parent: here };
  if (isObjectLike(was) || isObjectLike(now)) compareObject(inner, was, now, field);
  if (was.items || now.items) {
    compareSchema(
      inner,
      was.items ?? { node: {}, path: child(was.path, 'items') },
      now.items ?? { node: {}, path: child(now.path, 'items') },
      `${field}[]`,
    );
  }
}

function isObjectLike(schema: Normalized): boolean {
  return schema.properties.size > 0 || schema.additional.kind !== 'open' || schema.required.size > 0;
}

function show(value: unknown): string {
  return value === undefined ? 'none' : typeof value === 'string' ? value : canonical(value);
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
): void {
  const a = new Set(was.map((entry) => String(entry.value)));
  const b = new Set(now.map((entry) => String(entry.value)));
  const fresh = now.filter((entry) => !a.has(String(entry.value)));
  const gone = [...a].filter((value) => !b.has(value));
  if (fresh.length === 0 && gone.length === 0) return;
  const kind = gone.length === 0 ? kinds.added : fresh.length === 0 ? kinds.removed : kinds.changed;
  const showAll = (values: Set<string>) => (values.size === 0 ? 'none' : [...values].join(' and '));
  schemaFinding(w, kind, fresh[0] ? at(fresh[0].path) : fallback, field, `${label} ${showAll(a)} → ${showAll(b)}`);
}

function compareConstraints(w: Walk, was: Normalized, now: Normalized, field: string): void {
  const here = place(w, now.path);
  const at = (path: string) => declared(w, was, now, path);
  const bound = (schema: Normalized, keyword: string) => schema.bounds.get(keyword)?.value;
  const boundPath = (keyword: string) => {
    const entry = now.bounds.get(keyword);
    return entry ? at(entry.path) : here;
  };

  compareSet(w, was.formats, now.formats, at, here, field, 'format', { added: 'format-added', removed: 'format-removed', changed: 'format-changed' });

  const wasEnum = was.enumValues?.value;
  const nowEnum = now.enumValues?.value;
  if (wasEnum && nowEnum) {
    const wasKeys = new Map(wasEnum.map((entry) => [canonical(entry), entry]));
    const nowKeys = new Map(nowEnum.map((entry) => [canonical(entry), entry]));
    const path = at(now.enumValues!.path);
    for (const [key, entry] of nowKeys) {
      if (!wasKeys.has(key)) schemaFinding(w, 'enum-value-added', path, field, `new value ${canonical(entry)}`, { value: entry });
    }
    for (const [key, entry] of wasKeys) {
      if (!nowKeys.has(key)) schemaFinding(w, 'enum-value-removed', path, field, `value ${canonical(entry)} removed`, { value: entry });
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

  const keywords = new Set([...was.others.keys(), ...now.others.keys()]);
  for (const keyword of [...keywords].sort()) {
    const values = (schema: Normalized) => (schema.others.get(keyword) ?? []).map((entry) => canonical(entry.value)).sort();
    const a = values(was);
    const b = values(now);
    if (a.join('\u0000') === b.join('\u0000')) continue;
    const showValues = (list: string[]) => (list.length === 0 ? 'none' : list.join(' and '));
    const entry = now.others.get(keyword)?.find((candidate) => !a.includes(canonical(candidate.value)));
    schemaFinding(w, 'constraint-changed', entry ? at(entry.path) : here, field, `${keyword} ${showValues(a)} → ${showValues(b)}`);
  }

  const a = was.default?.value;
  const b = now.default?.value;
  if (a === undefined && b !== undefined) schemaFinding(w, 'default-added', at(now.default!.path), field, `default none → ${show(b)}`);
  else if (a !== undefined && b === undefined) schemaFinding(w, 'default-removed', here, field, `default ${show(a)} → none`);
  else if (a !== undefined && canonical(a) !== canonical(b)) schemaFinding(w, 'default-changed', at(now.default!.path), field, `default ${show(a)} → ${show(b)}`);

  if (!was.deprecated && now.deprecated) schemaFinding(w, 'deprecated', at(now.deprecated), field, 'deprecated');
  else if (was.deprecated && !now.deprecated) schemaFinding(w, 'undeprecated', here, field, 'no longer deprecated');
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' ? value : fallback;
}

interface Bound {
  value: number;
  exclusive: boolean;
  keyword: string;
  path: string;
}

function numericBound(schema: Normalized, side: 'upper' | 'lower'): Bound | undefined {
  const [inclusive, exclusive] = side === 'upper' ? ['maximum', 'exclusiveMaximum'] : ['minimum', 'exclusiveMinimum'];
  const candidates: Bound[] = [];
  for (const [keyword, isExclusive] of [
    [inclusive, false],
    [exclusive, true],
  ] as const) {
    const entry = schema.bounds.get(keyword);
    if (entry && typeof entry.value === 'number') candidates.push({ value: entry.value, exclusive: isExclusive, keyword, path: entry.path });
  }
  const sign = side === 'upper' ? 1 : -1;
  return candidates.sort((a, b) => sign * (a.value - b.value) || Number(b.exclusive) - Number(a.exclusive))[0];
}

function compareNumericBound(w: Walk, was: Normalized, now: Normalized, field: string, side: 'upper' | 'lower'): void {
  const a = numericBound(was, side);
  const b = numericBound(now, side);
  if (!a && !b) return;
  let tighter: boolean;
  if (!a) tighter = true;
  else if (!b) tighter = false;
  else {
    const sign = side === 'upper' ? 1 : -1;
    const difference = sign * (a.value - b.value);
    if (difference === 0 && a.exclusive === b.exclusive) return;
    tighter = difference > 0 || (difference === 0 && b.exclusive);
  }
  const kinds: [SchemaKind, SchemaKind] = side === 'upper' ? ['max-decreased', 'max-increased'] : ['min-increased', 'min-decreased'];
  const label = (bound: Bound | undefined) => (bound ? `${bound.keyword} ${bound.value}` : side === 'upper' ? 'maximum none' : 'minimum none');
  const detail = a && b && a.keyword === b.keyword ? `${a.keyword} ${a.value} → ${b.value}` : `${label(a)} → ${label(b)}`;
  schemaFinding(w, tighter ? kinds[0] : kinds[1], declared(w, was, now, b?.path ?? now.path), field, detail);
}

/** Whether a property travels in the walk's direction: read-only ones are not sent, write-only ones not answered. */
function travels(w: Walk, schema: Normalized): boolean {
  return !isNever(schema) && !(w.direction === 'request' ? schema.readOnly : schema.writeOnly);
}

function compareObject(w: Walk, was: Normalized, now: Normalized, field: string): void {
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
    const before = wasLocation && normalize(context.base, wasLocation);
    const after = nowLocation && normalize(context.revision, nowLocation);
    const wasThere = before !== undefined && travels(w, before);
    const nowThere = after !== undefined && travels(w, after);
    const label = name(property);
    if (wasThere && nowThere) {
      const wasRequired = was.required.has(property);
      const nowRequired = now.required.has(property);
      const path = at(nowLocation!.path);
      if (!wasRequired && nowRequired) schemaFinding(w, 'became-required', path, label, 'now required');
      if (wasRequired && !nowRequired) schemaFinding(w, 'became-optional', path, label, 'now optional');
      compareNormalized(w, before, after, label);
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
      owner ? `${owner}.*` : '*',
    );
  }
}

interface Member {
  schema: Normalized;
  label: string;
  signature: string;
}

function membersOf(document: JsonObject, schema: Normalized): Member[] {
  // Alternatives no value can match (`string` met with `boolean` when two unions are intersected) are none.
  const schemas = schema.variants
    ? schema.variants.members.map((member) => ({ ...normalize(document, member), nullable: false })).filter((member) => !isNever(member))
    : [{ ...schema, nullable: false }];
  return schemas.map((member) => ({ schema: member, label: labelOf(member), signature: signatureOf(document, member) }));
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
  const trial: Walk = { ...w, visited: new Set(w.visited), sink: [], anchor: undefined, parent: undefined };
  compareNormalized(trial, was, now, '');
  return trial.sink.length === 0;
}

function compareVariants(w: Walk, was: Normalized, now: Normalized, field: string): void {
  const wasMembers = membersOf(w.context.base, was);
  const nowMembers = membersOf(w.context.revision, now);
  const pairs: [Member, Member][] = [];
  const free = new Set(nowMembers);
  const matchers: ((a: Member, b: Member) => boolean)[] = [
    (a, b) => a.schema.refName !== undefined && a.schema.refName === b.schema.refName,
    (a, b) => a.signature === b.signature && identical(w, a.schema, b.schema),
    (a, b) => a.signature === b.signature,
    (a, b) => typesOverlap(a.schema.types, b.schema.types) && a.schema.refName === undefined && b.schema.refName === undefined,
    (a, b) => typesOverlap(a.schema.types, b.schema.types),
  ];
  let remaining = wasMembers;
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

  // A removed alternative is reported at the union in the revision: that is where it was taken out.
  const union = place(w, now.variants?.path ?? now.path);
  for (const member of remaining) schemaFinding(w, 'variant-removed', union, field, `alternative ${member.label} removed`);
  for (const member of free) schemaFinding(w, 'variant-added', place(w, member.schema.origin), field, `new alternative ${member.label}`);
  const inner: Walk = { ...w, parent: place(w, now.path) };
  for (const [a, b] of pairs) compareNormalized(inner, a.schema, b.schema, field);
}
