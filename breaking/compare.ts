// The comparison of two OpenAPI 3.1 documents: a released one (base) and a later one (revision). Pure: documents
// in, findings out. Operations are matched by method and path (parameter names aside), then by operation id; each
// matched pair is compared (security, parameters, body, responses), and every schema it reaches is walked in the
// direction it travels (request or response), `$ref`s followed, recursion cut, so a change in a shared component is
// found once and reported with every operation it affects.
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
  OTHER_CONSTRAINTS,
  normalize,
  showTypes,
  typesCover,
  typesOverlap,
  type Located,
  type Normalized,
} from './schema.ts';

export interface OperationRef {
  /** The operation id, or `METHOD /path` for an operation without one. */
  operationId: string;
  /** Upper case: `POST`. */
  method: string;
  path: string;
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
  /** The fields it concerns, as reached from the operations: `CreateSpaceRequest.title`, `limit`. */
  fields: string[];
  /** What changed: `maxLength 255 → 100`. */
  detail: string;
  /** The fields and the detail in one sentence. */
  message: string;
  /** For breaking findings and warnings: what a client (or an implementation) must do. */
  action?: string;
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

interface Draft {
  rule: RuleId;
  path: string;
  document: 'base' | 'revision';
  detail: string;
  operations: Map<string, OperationRef>;
  fields: Set<string>;
}

interface Context {
  base: JsonObject;
  revision: JsonObject;
  drafts: Map<string, Draft>;
}

interface Walk {
  context: Context;
  schemaContext: SchemaContext;
  direction: Direction;
  operation?: OperationRef;
  visited: Set<string>;
}

/** Every difference between `base` and `revision` that the rules know, sorted by severity then place. */
export function compareDocuments(base: unknown, revision: unknown, options: CompareOptions = {}): Finding[] {
  if (!isObject(base) || !isObject(revision)) throw new TypeError('compareDocuments: both documents must be objects');
  const context: Context = { base, revision, drafts: new Map() };

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

  const baseSchemas = isObject(base.components) && isObject(base.components.schemas) ? base.components.schemas : {};
  const revisionSchemas =
    isObject(revision.components) && isObject(revision.components.schemas) ? revision.components.schemas : {};
  for (const name of Object.keys(baseSchemas)) {
    if (Object.hasOwn(revisionSchemas, name)) continue;
    emit(context, { rule: 'schema-removed', path: child('#/components/schemas', name), document: 'base', detail: `schema \`${name}\` removed` });
  }

  const ignored = new Set(options.ignoreRules ?? []);
  return [...context.drafts.values()].filter((draft) => !ignored.has(draft.rule)).map(finish).sort(byPlace);
}

// ---- findings ------------------------------------------------------------------------------------------------

function emit(
  context: Context,
  finding: { rule: RuleId; path: string; document: 'base' | 'revision'; detail: string; operation?: OperationRef; field?: string },
): void {
  const key = `${finding.rule}\u0000${finding.document}\u0000${finding.path}\u0000${finding.detail}`;
  let draft = context.drafts.get(key);
  if (!draft) {
    draft = { ...finding, operations: new Map(), fields: new Set() };
    context.drafts.set(key, draft);
  }
  if (finding.operation) draft.operations.set(`${finding.operation.method} ${finding.operation.path}`, finding.operation);
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
  };
}

const SEVERITY_ORDER: Record<Severity, number> = {
  'breaking-client': 0,
  'breaking-implementation': 1,
  warning: 2,
  'non-breaking': 3,
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
      operations.push({
        ref: { operationId: hasId ? (node.operationId as string) : `${upper} ${path}`, method: upper, path },
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
      detail: `operation id \`${before.ref.operationId}\` → \`${after.ref.operationId}\``,
    });
  }
  if (after.node.deprecated === true && before.node.deprecated !== true) {
    emit(context, { rule: 'operation-deprecated', path: child(after.pointer, 'deprecated'), document: 'revision', operation, detail: 'deprecated' });
  }
  compareSecurity(context, before, after);
  compareParameters(context, before, after, moved);
  compareRequestBody(context, before, after);
  compareResponses(context, before, after);
}

function walk(context: Context, schemaContext: SchemaContext, operation: OperationRef, visited: Set<string>): Walk {
  return { context, schemaContext, direction: directionOf(schemaContext), operation, visited };
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
  const visited = new Set<string>();

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
      compareParameter(walk(context, 'request-parameter', operation, visited), was, now);
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

function compareParameter(w: Walk, was: Parameter, now: Parameter): void {
  const { context } = w;
  const field = now.name;
  if (isRequired(was) !== isRequired(now)) {
    emit(context, {
      rule: isRequired(now) ? 'request-parameter-became-required' : 'request-parameter-became-optional',
      path: now.path,
      document: 'revision',
      operation: w.operation,
      field,
      detail: isRequired(now) ? 'now required' : 'now optional',
    });
  }
  const wasSchema = parameterSchema(was);
  const nowSchema = parameterSchema(now);
  const structured = [wasSchema && normalize(context.base, wasSchema), nowSchema && normalize(context.revision, nowSchema)].some(
    (schema) => !schema || !schema.types || schema.types.has('array') || schema.types.has('object'),
  );
  if (structured) {
    const a = serialisation(was);
    const b = serialisation(now);
    if (a.style !== b.style) {
      emit(context, { rule: 'request-parameter-style-changed', path: now.path, document: 'revision', operation: w.operation, field, detail: `style ${a.style} → ${b.style}` });
    }
    if (a.explode !== b.explode) {
      emit(context, { rule: 'request-parameter-explode-changed', path: now.path, document: 'revision', operation: w.operation, field, detail: `explode ${a.explode} → ${b.explode}` });
    }
  }
  if (wasSchema && nowSchema) compareSchema(w, wasSchema, nowSchema, field);
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
  const visited = new Set<string>();
  const wasContent = contentOf(was.node);
  const nowContent = contentOf(now.node);
  for (const [mediaType, entry] of Object.entries(wasContent)) {
    const match = nowContent[mediaType];
    if (!isObject(match)) {
      emit(context, { rule: 'request-media-type-removed', path: child(was.path, 'content', mediaType), document: 'base', operation, detail: `\`${mediaType}\` no longer accepted` });
      continue;
    }
    if (!isObject(entry)) continue;
    compareSchema(
      walk(context, 'request-property', operation, visited),
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

  const visited = new Set<string>();
  for (const [wasStatus, nowStatus] of pairs) {
    compareResponse(walk(context, 'response-property', operation, visited), was.get(wasStatus)!, now.get(nowStatus)!, nowStatus);
  }
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
  w: Walk,
  was: { node: JsonObject; path: string },
  now: { node: JsonObject; path: string },
  status: string,
): void {
  const { context } = w;
  const operation = w.operation;
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
    compareSchema(
      { ...w, schemaContext: 'response-header' },
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
    compareSchema(
      w,
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

function schemaFinding(w: Walk, kind: SchemaKind, path: string, field: string, detail: string, document: 'base' | 'revision' = 'revision'): void {
  const rule = schemaRule(w.schemaContext, kind);
  if (!rule) return;
  emit(w.context, { rule, path, document, operation: w.operation, field: field || rootLabel(w.schemaContext), detail });
}

function rootLabel(context: SchemaContext): string {
  return context === 'request-property' ? 'request body' : context === 'response-property' ? 'response body' : '';
}

const COMPONENT_ROOT = /^#\/components\/schemas\/([^/]+)$/;

function componentRoot(path: string): string | undefined {
  const match = COMPONENT_ROOT.exec(path);
  return match ? match[1]!.replace(/~1/g, '/').replace(/~0/g, '~') : undefined;
}

function compareSchema(w: Walk, was: Located, now: Located, field: string): void {
  compareNormalized(w, normalize(w.context.base, was), normalize(w.context.revision, now), field);
}

function compareNormalized(w: Walk, was: Normalized, now: Normalized, field: string): void {
  const key = `${w.schemaContext}\u0000${was.path}\u0000${now.path}`;
  if (w.visited.has(key)) return;
  w.visited.add(key);
  if (!field) field = now.refName ?? was.refName ?? '';

  if (was.nullable !== now.nullable) {
    if (now.nullable) schemaFinding(w, 'became-nullable', now.nullablePath, field, 'now nullable');
    else schemaFinding(w, 'became-not-nullable', now.origin, field, 'no longer nullable');
  }

  const wasDiscriminator = isObject(was.discriminator?.value) ? was.discriminator.value.propertyName : undefined;
  const nowDiscriminator = isObject(now.discriminator?.value) ? now.discriminator.value.propertyName : undefined;
  if (wasDiscriminator !== undefined && nowDiscriminator !== undefined && wasDiscriminator !== nowDiscriminator) {
    schemaFinding(w, 'discriminator-changed', now.discriminator!.path, field, `discriminator \`${String(wasDiscriminator)}\` → \`${String(nowDiscriminator)}\``);
  }

  if (was.variants || now.variants) {
    if (was.variants && now.variants) compareConstraints(w, was, now, field);
    compareVariants(w, was, now, field);
    return;
  }

  const sameTypes = typesCover(was.types, now.types) && typesCover(now.types, was.types);
  if (!sameTypes) {
    const detail = `type ${showTypes(was.types)} → ${showTypes(now.types)}`;
    const path = now.types ? now.typesPath : now.origin;
    if (w.direction === 'request') schemaFinding(w, typesCover(now.types, was.types) ? 'type-widened' : 'type-changed', path, field, detail);
    else schemaFinding(w, typesCover(was.types, now.types) ? 'type-narrowed' : 'type-changed', path, field, detail);
    if (!typesOverlap(was.types, now.types)) return;
  }

  compareConstraints(w, was, now, field);

  if (isObjectLike(was) || isObjectLike(now)) compareObject(w, was, now, field);
  if (was.items || now.items) {
    compareSchema(
      w,
      was.items ?? { node: {}, path: child(was.path, 'items') },
      now.items ?? { node: {}, path: child(now.path, 'items') },
      `${field}[]`,
    );
  }
}

function isObjectLike(schema: Normalized): boolean {
  return schema.properties.size > 0 || schema.additional !== undefined || schema.required.size > 0;
}

function show(value: unknown): string {
  return value === undefined ? 'none' : typeof value === 'string' ? value : canonical(value);
}

function keywordPath(was: Normalized, now: Normalized, keyword: string): string {
  return now.keywords.get(keyword)?.path ?? now.origin ?? was.path;
}

function compareConstraints(w: Walk, was: Normalized, now: Normalized, field: string): void {
  const value = (schema: Normalized, keyword: string) => schema.keywords.get(keyword)?.value;

  const wasFormat = value(was, 'format');
  const nowFormat = value(now, 'format');
  if (wasFormat !== nowFormat) {
    const kind = wasFormat === undefined ? 'format-added' : nowFormat === undefined ? 'format-removed' : 'format-changed';
    schemaFinding(w, kind, keywordPath(was, now, 'format'), field, `format ${show(wasFormat)} → ${show(nowFormat)}`);
  }

  const wasEnum = was.enumValues?.value;
  const nowEnum = now.enumValues?.value;
  if (wasEnum && nowEnum) {
    const wasKeys = new Map(wasEnum.map((entry) => [canonical(entry), entry]));
    const nowKeys = new Map(nowEnum.map((entry) => [canonical(entry), entry]));
    for (const [key, entry] of nowKeys) {
      if (!wasKeys.has(key)) schemaFinding(w, 'enum-value-added', now.enumValues!.path, field, `new value ${canonical(entry)}`);
    }
    for (const [key, entry] of wasKeys) {
      if (!nowKeys.has(key)) schemaFinding(w, 'enum-value-removed', now.enumValues!.path, field, `value ${canonical(entry)} removed`);
    }
  } else if (nowEnum) {
    schemaFinding(w, 'enum-introduced', now.enumValues!.path, field, `now one of ${nowEnum.map(canonical).join(', ')}`);
  } else if (wasEnum) {
    schemaFinding(w, 'enum-dropped', now.origin, field, `no longer limited to ${wasEnum.map(canonical).join(', ')}`);
  }

  const bounds: [string, SchemaKind, SchemaKind][] = [
    ['maxLength', 'max-length-decreased', 'max-length-increased'],
    ['maxItems', 'max-items-decreased', 'max-items-increased'],
  ];
  for (const [keyword, tightened, loosened] of bounds) {
    const a = value(was, keyword);
    const b = value(now, keyword);
    if (a === b) continue;
    const tighter = a === undefined || (typeof a === 'number' && typeof b === 'number' && b < a);
    schemaFinding(w, tighter ? tightened : loosened, keywordPath(was, now, keyword), field, `${keyword} ${show(a)} → ${show(b)}`);
  }
  const lower: [string, SchemaKind, SchemaKind][] = [
    ['minLength', 'min-length-increased', 'min-length-decreased'],
    ['minItems', 'min-items-increased', 'min-items-decreased'],
  ];
  for (const [keyword, tightened, loosened] of lower) {
    const a = numberOr(value(was, keyword), 0);
    const b = numberOr(value(now, keyword), 0);
    if (a === b) continue;
    schemaFinding(w, b > a ? tightened : loosened, keywordPath(was, now, keyword), field, `${keyword} ${show(value(was, keyword))} → ${show(value(now, keyword))}`);
  }
  compareNumericBound(w, was, now, field, 'upper');
  compareNumericBound(w, was, now, field, 'lower');

  const wasPattern = value(was, 'pattern');
  const nowPattern = value(now, 'pattern');
  if (wasPattern !== nowPattern) {
    const kind = wasPattern === undefined ? 'pattern-added' : nowPattern === undefined ? 'pattern-removed' : 'pattern-changed';
    schemaFinding(w, kind, keywordPath(was, now, 'pattern'), field, `pattern ${show(wasPattern)} → ${show(nowPattern)}`);
  }

  for (const keyword of OTHER_CONSTRAINTS) {
    const a = value(was, keyword);
    const b = value(now, keyword);
    if (canonical(a) === canonical(b)) continue;
    schemaFinding(w, 'constraint-changed', keywordPath(was, now, keyword), field, `${keyword} ${show(a)} → ${show(b)}`);
  }

  if (w.direction === 'request') {
    const a = value(was, 'default');
    const b = value(now, 'default');
    if (a !== undefined && canonical(a) !== canonical(b)) {
      schemaFinding(w, 'default-changed', keywordPath(was, now, 'default'), field, `default ${show(a)} → ${show(b)}`);
    }
  }
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
    const entry = schema.keywords.get(keyword);
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
  schemaFinding(w, tighter ? kinds[0] : kinds[1], b?.path ?? now.origin, field, detail);
}

function compareObject(w: Walk, was: Normalized, now: Normalized, field: string): void {
  const { context } = w;
  const owner = componentRoot(now.path) ?? componentRoot(was.path) ?? field;
  const name = (property: string) => (owner ? `${owner}.${property}` : property);
  const wasProperties = visibleProperties(w, context.base, was);
  const nowProperties = visibleProperties(w, context.revision, now);

  for (const [property, location] of wasProperties) {
    const match = nowProperties.get(property);
    if (!match) {
      schemaFinding(w, 'removed', location.path, name(property), 'removed', 'base');
      continue;
    }
    const wasRequired = was.required.has(property);
    const nowRequired = now.required.has(property);
    if (!wasRequired && nowRequired) schemaFinding(w, 'became-required', match.path, name(property), 'now required');
    if (wasRequired && !nowRequired) schemaFinding(w, 'became-optional', match.path, name(property), 'now optional');
    compareSchema(w, location, match, name(property));
  }
  for (const [property, location] of nowProperties) {
    if (wasProperties.has(property)) continue;
    const required = now.required.has(property);
    schemaFinding(w, required ? 'added-required' : 'added', location.path, name(property), required ? 'new required field' : 'new optional field');
  }

  const open = (schema: Normalized) => ({ node: {}, path: child(schema.path, 'unevaluatedProperties') });
  const wasAdditional = was.additional ?? { sealed: false as const, schema: open(was), path: was.path };
  const nowAdditional = now.additional ?? { sealed: false as const, schema: open(now), path: now.path };
  if (wasAdditional.sealed && nowAdditional.sealed) return;
  if (nowAdditional.sealed) schemaFinding(w, 'sealed', nowAdditional.path, owner, 'undeclared fields no longer allowed');
  else if (wasAdditional.sealed) schemaFinding(w, 'unsealed', nowAdditional.path, owner, 'undeclared fields now allowed');
  else compareSchema(w, wasAdditional.schema, nowAdditional.schema, owner ? `${owner}.*` : '*');
}

/** Properties that travel in the walk's direction: read-only ones are not sent, write-only ones not answered. */
function visibleProperties(w: Walk, document: JsonObject, schema: Normalized): Map<string, Located> {
  const result = new Map<string, Located>();
  for (const [name, location] of schema.properties) {
    const property = normalize(document, location);
    if (w.direction === 'request' ? property.readOnly : property.writeOnly) continue;
    result.set(name, location);
  }
  return result;
}

interface Member {
  schema: Normalized;
  label: string;
  signature: string;
}

function membersOf(document: JsonObject, schema: Normalized): Member[] {
  const schemas = schema.variants
    ? schema.variants.members.map((member) => normalize(document, member))
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

function compareVariants(w: Walk, was: Normalized, now: Normalized, field: string): void {
  const wasMembers = membersOf(w.context.base, was);
  const nowMembers = membersOf(w.context.revision, now);
  const pairs: [Member, Member][] = [];
  const free = new Set(nowMembers);
  const unmatched: Member[] = [];
  const matchers: ((a: Member, b: Member) => boolean)[] = [
    (a, b) => a.schema.refName !== undefined && a.schema.refName === b.schema.refName,
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
  unmatched.push(...remaining);

  for (const member of unmatched) schemaFinding(w, 'variant-removed', member.schema.origin, field, `alternative ${member.label} removed`, 'base');
  for (const member of free) schemaFinding(w, 'variant-added', member.schema.origin, field, `new alternative ${member.label}`);
  for (const [a, b] of pairs) compareNormalized(w, a.schema, b.schema, field);
}

