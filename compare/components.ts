// Components: a schema removed is a rename when one of the same shape is added, else a removal, with the operations
// whose generated types name it; and which schemas need no walk (written alike, reaching only what is written alike).
import { child, isObject, resolvePointer, type JsonObject } from './pointer.ts';
import { alikeComponents, alikeSchemas } from './spelling.ts';
import { dialectOf, type Located } from './schema.ts';
import { collate, emit, type Context, type OperationRef, type Raw } from './findings.ts';
import { type Operation } from './operations.ts';
import { schemaWalk } from './schemas.ts';
import { compareSchema } from './walk.ts';

function schemasOf(document: JsonObject): JsonObject {
  return isObject(document.components) && isObject(document.components.schemas) ? document.components.schemas : {};
}

export function compareComponents(context: Context, baseOperations: Operation[], revisionOperations: Operation[]): void {
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
    compareSchema(schemaWalk(context, schemaContext, sink), a, b, now);
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
export function unchangedIn(base: JsonObject, revision: JsonObject): (was: unknown, now: unknown) => boolean {
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
