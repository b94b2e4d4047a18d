// Objects: properties added, removed, required, read-only or write-only in the walk's direction, and what
// undeclared properties may hold.
import { child, componentOf, isObject, resolvePointer } from './pointer.ts';
import { isNever, normalize, type Located, type Normalized } from './schema.ts';
import { compareNormalized, compareSchema, componentRoot, declared, inside, place, schemaFinding, unchangedAt, type Walk } from './walk.ts';

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

export function compareObject(w: Walk, was: Normalized, now: Normalized, field: string, tagProperty?: string): void {
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
