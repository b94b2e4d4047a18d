// Request bodies: added, removed, required, their content types, and their schemas walked as requests.
import { child, isObject, type JsonObject } from './pointer.ts';
import { emit, type Context } from './findings.ts';
import { deref, type Operation } from './operations.ts';
import { compareEntry } from './schemas.ts';

function requestBodyOf(document: JsonObject, operation: Operation): { node: JsonObject; path: string } | undefined {
  if (operation.node.requestBody === undefined) return undefined;
  const { node, path } = deref(document, operation.node.requestBody, child(operation.pointer, 'requestBody'));
  return isObject(node) ? { node, path } : undefined;
}

export function contentOf(node: JsonObject): JsonObject {
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

export function compareRequestBody(context: Context, before: Operation, after: Operation): void {
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
