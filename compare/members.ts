// The alternatives of a union as the values they accept (nested unions flattened, alternatives another accepts
// left out, lists of values merged, type lists split), and the pairing of two unions' alternatives by name, shape
// and type.
import { canonical, type JsonObject } from './pointer.ts';
import { isNever, normalize, showTypes, typesCover, typesOverlap, type Located, type Normalized } from './schema.ts';
import { distinct } from './constraints.ts';
import { compareNormalized, type Walk } from './walk.ts';

export interface Member {
  schema: Normalized;
  label: string;
  signature: string;
  /** The alternative of the union it came from, when that one was itself a union (see `alternatives`). */
  nested?: Nested;
}

/** An alternative of a union that is itself a union: how it is named and where it is, and how many it holds. */
export interface Nested {
  label: string;
  origin: string;
  size: number;
}

/**
 * The alternatives of a union as the values they accept: an alternative that is itself a union is its alternatives
 * (`anyOf: [string, $ref: Pet]` with `Pet` a `oneOf` of `Cat` and `Dog` is `string | Cat | Dog`); one whose values
 * another alternative accepts adds nothing (`anyOf: [string, {enum: [a, b]}]` is `string`); alternatives that are
 * only lists of values are one list (`oneOf: [{const: a}, {const: b}]` is `enum: [a, b]`). Alternatives no value
 * can match (`string` met with `boolean` when two unions are intersected) are none.
 */
export function membersOf(document: JsonObject, schema: Normalized): Member[] {
  const nested = new Map<Normalized, Nested>();
  const schemas = schema.variants ? alternatives(document, schema.variants.members, nested) : byType({ ...schema, nullable: false });
  return valueSets(schema.variants?.path ?? schema.path, schemas).map((alternative) => member(document, alternative, nested.get(alternative)));
}

/** A schema of several types as the alternatives it is, one per type (`type: [string, integer]` is `string | integer`). */
function byType(schema: Normalized): Normalized[] {
  if (!schema.types || schema.types.size < 2) return [schema];
  return [...schema.types].sort().map((type) => {
    const values = schema.enumValues?.value.filter((value) => {
      const own = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value === 'number' ? (Number.isInteger(value) ? 'integer' : 'number') : typeof value;
      return own === type || (own === 'integer' && type === 'number');
    });
    return {
      ...schema,
      id: `${schema.id}#${type}`,
      types: new Set([type]),
      ...(schema.enumValues && values ? { enumValues: { ...schema.enumValues, value: values } } : {}),
    };
  }).filter((alternative) => !alternative.enumValues || alternative.enumValues.value.length > 0);
}

function member(document: JsonObject, schema: Normalized, nested?: Nested): Member {
  return { schema, label: labelOf(schema), signature: signatureOf(document, schema), ...(nested ? { nested } : {}) };
}

/** How deep unions nested in unions are read as one, and how many alternatives that may give. */
const NESTED_UNIONS = 8;
const MAX_MEMBERS = 256;

/**
 * A union's alternatives normalised, an alternative that is a union replaced by its own (with what its place adds),
 * each of those noted in `nested` with the alternative it came from (the outermost).
 */
function alternatives(document: JsonObject, members: readonly Located[], nested: Map<Normalized, Nested>, from?: Nested, depth = 0): Normalized[] {
  const result: Normalized[] = [];
  for (const member of members) {
    const schema = normalize(document, member);
    const union = schema.variants;
    if (union && depth < NESTED_UNIONS && result.length + union.members.length <= MAX_MEMBERS) {
      const outside = member.outside;
      const inner = union.members.map((alternative) => ({
        ...alternative,
        and: [...(alternative.and ?? []), ...(member.and ?? [])],
        ...(alternative.outside ?? outside ? { outside: alternative.outside ?? outside } : {}),
      }));
      const group = from ?? { label: schema.refName ? `\`${schema.refName}\`` : `${showTypes(schema.types)} (${union.keyword})`, origin: schema.origin, size: 0 };
      const found = alternatives(document, inner, nested, group, depth + 1);
      if (!from) group.size = found.length;
      result.push(...found);
    } else if (!isNever(schema)) {
      for (const alternative of byType({ ...schema, nullable: false })) {
        if (from) nested.set(alternative, from);
        result.push(alternative);
      }
    }
  }
  return result;
}

/** Whether a schema says nothing but its types (every value of them is valid). */
function onlyTypes(schema: Normalized): boolean {
  return !schema.enumValues && onlyValues(schema);
}

/** Whether a schema says nothing but its types and, maybe, a list of values. */
function onlyValues(schema: Normalized): boolean {
  return (
    schema.formats.length === 0 &&
    schema.patterns.length === 0 &&
    schema.bounds.size === 0 &&
    schema.others.size === 0 &&
    schema.properties.size === 0 &&
    schema.required.size === 0 &&
    schema.additional.kind === 'open' &&
    schema.items === undefined &&
    schema.variants === undefined &&
    schema.discriminator === undefined
  );
}

/** The alternatives left once those another accepts whole are left out, and those that only list values are one. */
function valueSets(path: string, members: readonly Normalized[]): Normalized[] {
  const covers = (outer: Normalized, inner: Normalized) => onlyTypes(outer) && typesCover(outer.types, inner.types);
  // Of alternatives that cover each other (two alike), the first stays.
  const kept = members.filter((member, index) =>
    !members.some((other, at) => at !== index && covers(other, member) && !(covers(member, other) && index < at)),
  );
  const lists = kept.filter((member) => member.enumValues !== undefined && onlyValues(member));
  if (lists.length < 2) return kept;
  const values = distinct(lists.flatMap((member) => member.enumValues!.value));
  const merged: Normalized = {
    ...lists[0]!,
    path,
    origin: path,
    id: `${path}|values(${lists.map((member) => member.id).join(',')})`,
    refName: undefined,
    types: new Set(lists.flatMap((member) => [...(member.types ?? [])])),
    typesPath: path,
    enumValues: { value: values, path },
    sources: new Set(lists.flatMap((member) => [...member.sources])),
  };
  const first = kept.indexOf(lists[0]!);
  return kept.flatMap((member, index) => (index === first ? [merged] : lists.includes(member) ? [] : [member]));
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

/**
 * Whether two schemas have no difference at all (in the walk's direction). The pairs the walk is already comparing
 * count as equal, which is what stops recursive schemas.
 */
function identical(w: Walk, was: Normalized, now: Normalized): boolean {
  const trial: Walk = { ...w, visits: { seen: new Map(w.visits.seen), log: [...w.visits.log] }, sink: [], anchor: undefined, parent: undefined };
  compareNormalized(trial, was, now, '');
  return trial.sink.length === 0;
}

/** Pairs the members of two unions: first the pairs given, then by `$ref` name, shape, then type. */
export function pairMembers(w: Walk, wasMembers: readonly Member[], nowMembers: readonly Member[], given: readonly [Member, Member][] = []): { pairs: [Member, Member][]; removed: Member[]; added: Member[] } {
  const pairs: [Member, Member][] = [...given];
  const free = new Set(nowMembers.filter((member) => !given.some(([, b]) => b === member)));
  const matchers: ((a: Member, b: Member) => boolean)[] = [
    (a, b) => a.schema.refName !== undefined && a.schema.refName === b.schema.refName,
    (a, b) => a.signature === b.signature && identical(w, a.schema, b.schema),
    (a, b) => a.signature === b.signature,
    (a, b) => typesOverlap(a.schema.types, b.schema.types) && a.schema.refName === undefined && b.schema.refName === undefined,
    (a, b) => typesOverlap(a.schema.types, b.schema.types),
  ];
  let remaining = wasMembers.filter((member) => !given.some(([a]) => a === member));
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
  return { pairs, removed: remaining, added: [...free] };
}
