// Two schemas compared: where a walk starts (an operation's body, parameter, answer or header, each walked once for
// every operation that has it), and what comparing one pair is: nullability, discriminator, unions, types, then
// constraints, objects and items. Every walk started here carries that comparison (`Walk.comparePair`), by which
// the parts walk on without importing this module.
import { child, componentOf, isObject, resolvePointer, type JsonObject } from './pointer.ts';
import { type SchemaContext } from './rules.ts';
import { normalize, showTypes, typesCover, typesOverlap, type Located, type Normalized } from './schema.ts';
import { emit, type Context, type FindingArgs, type OperationRef, type Raw } from './findings.ts';
import { compareConstraints } from './constraints.ts';
import { compareObject } from './objects.ts';
import { compareVariants } from './unions.ts';
import { compareNormalized, compareSchema, declared, inside, newWalk, place, samePlace, schemaFinding, type Walk } from './walk.ts';

/** A walk through the schemas of one body, parameter, answer, header or component. */
export function schemaWalk(context: Context, schemaContext: SchemaContext, sink: Raw[]): Walk {
  return newWalk(context, schemaContext, sink, comparePair);
}

/**
 * Compares the schemas of one body, parameter, answer or header, and gives the findings to `operation`. What such a
 * walk finds depends only on what it compares, so each is walked once and its findings given to every operation
 * that has it (most answers are the same `$ref`s).
 */
export function compareEntry(context: Context, schemaContext: SchemaContext, operation: OperationRef, was: Located, now: Located, field: string, args?: FindingArgs): void {
  const given = (raw: Raw): Raw => (args ? { ...raw, args: { ...raw.args, ...args } } : raw);
  // Written alike, reaching only components written alike: a walk would find nothing (most of a document, most of
  // the time, and most of a comparison's time).
  if (context.unchanged(was.node, now.node)) return;
  // Most entries are a `$ref` to a component: the walk they share is found without reading them first.
  const refA = bareReference(context.base, was.node);
  const refB = bareReference(context.revision, now.node);
  const quick = refA !== undefined && refB !== undefined && componentOf(refA) === componentOf(refB) ? [schemaContext, field, refA, refB, ''].join('\u0000') : undefined;
  const known = quick === undefined ? undefined : context.walks.get(quick);
  if (known) {
    for (const raw of known) emit(context, { ...given(raw), operation });
    return;
  }
  const a = normalize(context.base, was);
  const b = normalize(context.revision, now);
  const key = [schemaContext, field, a.id, b.id, samePlace(a, b) ? '' : `${a.origin}\u0000${b.origin}`].join('\u0000');
  let found = context.walks.get(key);
  if (!found) {
    found = [];
    compareNormalized(schemaWalk(context, schemaContext, found), a, b, field);
    context.walks.set(key, found);
  }
  for (const raw of found) emit(context, { ...given(raw), operation });
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

function comparePair(w: Walk, was: Normalized, now: Normalized, field: string, tagProperty: string | undefined, tagged: boolean | undefined): void {
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
