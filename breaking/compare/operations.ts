// The operations of a document (method and path, parameter names aside), following `$ref`s to components, and the
// comparison of two matched operations: their id, deprecation, security, parameters, body and answers.
import { child, isObject, resolvePointer, type JsonObject } from '../pointer.ts';
import { emit, type Context, type OperationRef } from './findings.ts';
import { compareSecurity, type SecurityContext } from './security.ts';
import { compareParameters } from './parameters.ts';
import { compareRequestBody } from './requests.ts';
import { compareResponses } from './responses.ts';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export interface Operation {
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

export function operationsOf(document: JsonObject): Operation[] {
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
export function deref(document: unknown, node: unknown, path = ''): { node: unknown; path: string } {
  const seen = new Set<string>();
  while (isObject(node) && typeof node.$ref === 'string' && !seen.has(node.$ref)) {
    seen.add(node.$ref);
    path = node.$ref;
    node = resolvePointer(document, node.$ref);
  }
  return { node, path };
}

export function compareOperation(context: Context, security: SecurityContext, before: Operation, after: Operation): void {
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
