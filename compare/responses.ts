// Responses: success and error statuses, headers, content types, and their schemas walked as answers.
import { child, isObject, type JsonObject } from './pointer.ts';
import { emit, type Context, type OperationRef } from './findings.ts';
import { deref, type Operation } from './operations.ts';
import { compareDeprecation } from './parameters.ts';
import { contentOf } from './requests.ts';
import { compareEntry } from './schemas.ts';

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

export function compareResponses(context: Context, before: Operation, after: Operation): void {
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
      args: { was: wasSuccess, now: nowSuccess },
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
      emit(context, { rule: 'response-header-removed', path: header.path, document: 'base', operation, field: header.name, detail: `header no longer sent with ${status}`, args: { headers: [header.name] } });
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
        args: { headers: [match.name] },
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
      { headers: [match.name] },
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
      args: { headers: [header.name] },
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
