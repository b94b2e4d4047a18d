// Parameters: matched by `in` and name (path parameters by their place in the template), their requirement,
// serialisation, deprecation and schema compared.
import { child, isObject, type JsonObject } from './pointer.ts';
import { schemaRule } from './rules.ts';
import { normalize, type Located } from './schema.ts';
import { emit, type Context, type FindingArgs, type OperationRef } from './findings.ts';
import { deref, type Operation } from './operations.ts';
import { compareEntry } from './schemas.ts';

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

export function compareParameters(context: Context, before: Operation, after: Operation, moved: boolean): void {
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
        args: { parameters: [{ name: now, in: 'path' }] },
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
        args: { parameters: [{ name: was.name, in: was.in }], was: [was.in], now: [relocated.in] },
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
      args: { parameters: [{ name: was.name, in: was.in }] },
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
      args: { parameters: [{ name: now.name, in: now.in }] },
    });
  }
}

function compareParameter(context: Context, operation: OperationRef, was: Parameter, now: Parameter): void {
  const field = now.name;
  const args = { parameters: [{ name: now.name, in: now.in }] };
  if (isRequired(was) !== isRequired(now)) {
    emit(context, {
      rule: isRequired(now) ? 'request-parameter-became-required' : 'request-parameter-became-optional',
      path: now.path,
      document: 'revision',
      operation,
      field,
      detail: isRequired(now) ? 'now required' : 'now optional',
      args,
    });
  }
  compareDeprecation(context, 'request-parameter', operation, was.node, now.node, now.path, field, args);
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
      emit(context, { rule: 'request-parameter-style-changed', path: now.path, document: 'revision', operation, field, detail: `style ${a.style} → ${b.style}`, args: { ...args, was: [a.style], now: [b.style] } });
    }
    if (a.explode !== b.explode) {
      emit(context, { rule: 'request-parameter-explode-changed', path: now.path, document: 'revision', operation, field, detail: `explode ${a.explode} → ${b.explode}`, args: { ...args, was: [a.explode], now: [b.explode] } });
    }
  }
  if (wasSchema && nowSchema) compareEntry(context, 'request-parameter', operation, wasSchema, nowSchema, field, args);
}

/** `deprecated` of a parameter or a header object (its schema's is compared with the schema). */
export function compareDeprecation(
  context: Context,
  schemaContext: 'request-parameter' | 'response-header',
  operation: OperationRef,
  was: JsonObject,
  now: JsonObject,
  path: string,
  field: string,
  args: FindingArgs = schemaContext === 'request-parameter' ? {} : { headers: [field] },
): void {
  if ((was.deprecated === true) === (now.deprecated === true)) return;
  emit(context, {
    rule: schemaRule(schemaContext, now.deprecated === true ? 'deprecated' : 'undeprecated')!,
    path: now.deprecated === true ? child(path, 'deprecated') : path,
    document: 'revision',
    operation,
    field,
    detail: now.deprecated === true ? 'deprecated' : 'no longer deprecated',
    args,
  });
}
