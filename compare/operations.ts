// The operations of a document (method and path, parameter names aside), and `$ref`s followed to components: what
// the comparison of each part of an operation (security, parameters, body, answers) reads them with.
import { child, isObject, resolvePointer, type JsonObject } from './pointer.ts';
import { type OperationRef } from './findings.ts';

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
