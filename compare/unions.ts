// Unions: their alternatives (compare/members.ts) paired and compared, those removed or added reported as they were
// written; discriminated unions by their tags (compare/discriminated.ts).
import { RULES } from './rules.ts';
import { type Normalized } from './schema.ts';
import { compareDiscriminated } from './discriminated.ts';
import { membersOf, pairMembers, type Member, type Nested } from './members.ts';
import { compareNormalized, declared, place, schemaFinding, type Walk } from './walk.ts';

/**
 * Whether `wide` accepts every value `narrow` accepts: comparing them as a request (`narrow` sent before, `wide`
 * now) finds nothing a client would be refused. The pairs the walk is already comparing count as equal.
 */
function accepts(w: Walk, wide: Normalized, narrow: Normalized): boolean {
  const trial: Walk = {
    ...w,
    schemaContext: 'request-property',
    direction: 'request',
    visits: { seen: new Map(w.visits.seen), log: [...w.visits.log] },
    sink: [],
    anchor: undefined,
    parent: undefined,
  };
  compareNormalized(trial, narrow, wide, '');
  return trial.sink.every((raw) => RULES.get(raw.rule)!.severity !== 'breaking-client');
}

export function compareVariants(w: Walk, was: Normalized, now: Normalized, field: string): void {
  const wasMembers = membersOf(w.context.base, was);
  const nowMembers = membersOf(w.context.revision, now);
  if (compareDiscriminated(w, was, now, field, wasMembers, nowMembers)) return;
  const paired = pairMembers(w, wasMembers, nowMembers);
  const { pairs } = paired;
  // An alternative no longer listed whose values another one still accepts is not removed (it was merged into that
  // one); a new one whose values one listed before accepted is not new (that one was split). What the wider one
  // accepts besides is found where it is paired.
  const removed = paired.removed.filter((member) => !nowMembers.some((candidate) => accepts(w, candidate.schema, member.schema)));
  const added = paired.added.filter((member) => !wasMembers.some((candidate) => accepts(w, candidate.schema, member.schema)));

  // A removed alternative is reported at the union in the revision: that is where it was taken out (at the schema
  // that refers to it, when the union is a component the release did not draw on here).
  const union = declared(w, was, now, now.variants?.path ?? now.path);
  for (const alternative of whole(removed)) schemaFinding(w, 'variant-removed', union, field, `alternative ${alternative.label} removed`);
  for (const alternative of whole(added)) schemaFinding(w, 'variant-added', place(w, alternative.origin), field, `new alternative ${alternative.label}`);
  const inner: Walk = { ...w, parent: place(w, now.path) };
  for (const [a, b] of pairs) compareNormalized(inner, a.schema, b.schema, field);
}

/**
 * Alternatives added (or removed) as they were written: a union that was one alternative, every one of its own
 * alternatives added, is one alternative added (`VariableComposedColor`, not its two objects).
 */
function whole(members: readonly Member[]): { label: string; origin: string }[] {
  const count = new Map<Nested, number>();
  for (const { nested } of members) if (nested) count.set(nested, (count.get(nested) ?? 0) + 1);
  const result: { label: string; origin: string }[] = [];
  const told = new Set<Nested>();
  for (const { nested, label, schema } of members) {
    if (nested && count.get(nested) === nested.size) {
      if (!told.has(nested)) result.push({ label: nested.label, origin: nested.origin });
      told.add(nested);
    } else result.push({ label, origin: schema.origin });
  }
  return result;
}
