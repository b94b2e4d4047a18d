// The constraints of two schemas: formats, enums, lengths, counts, numeric bounds (as the values they accept),
// patterns, the other validation keywords (by direction where they have an order), defaults and deprecation.
import { canonical } from './pointer.ts';
import { type SchemaKind } from './rules.ts';
import { compareFractions, fraction, isMultiple, isOne, snapBound, stepOf, type Fraction } from './numbers.ts';
import { type Keyword, type Normalized } from './schema.ts';
import { declared, place, schemaFinding, type Walk } from './walk.ts';

/** A value as JSON (`"true"` and `true`, `""` and none, told apart), or `none`. */
function show(value: unknown): string {
  return value === undefined ? 'none' : canonical(value);
}

/** Values of a keyword that every member must satisfy (formats, patterns), compared as sets. */
function compareSet(
  w: Walk,
  was: readonly Keyword[],
  now: readonly Keyword[],
  at: (path: string) => string,
  fallback: string,
  field: string,
  label: string,
  kinds: { added: SchemaKind; removed: SchemaKind; changed: SchemaKind },
  print: (value: string) => string = show,
): void {
  const a = new Set(was.map((entry) => String(entry.value)));
  const b = new Set(now.map((entry) => String(entry.value)));
  const fresh = now.filter((entry) => !a.has(String(entry.value)));
  const gone = [...a].filter((value) => !b.has(value));
  if (fresh.length === 0 && gone.length === 0) return;
  const kind = gone.length === 0 ? kinds.added : fresh.length === 0 ? kinds.removed : kinds.changed;
  const showAll = (values: Set<string>) => (values.size === 0 ? 'none' : [...values].map(print).join(' and '));
  schemaFinding(w, kind, fresh[0] ? at(fresh[0].path) : fallback, field, `${label} ${showAll(a)} → ${showAll(b)}`);
}

export function compareConstraints(w: Walk, was: Normalized, now: Normalized, field: string, tagged = false): void {
  const here = place(w, now.path);
  const at = (path: string) => declared(w, was, now, path);
  const bound = (schema: Normalized, keyword: string) => schema.bounds.get(keyword)?.value;
  const boundPath = (keyword: string) => {
    const entry = now.bounds.get(keyword);
    return entry ? at(entry.path) : here;
  };

  // A format is a name, shown as written; a pattern is a value, shown as JSON.
  compareSet(w, formatsOf(was), formatsOf(now), at, here, field, 'format', { added: 'format-added', removed: 'format-removed', changed: 'format-changed' }, (name) => name);

  const wasEnum = was.enumValues?.value;
  const nowEnum = now.enumValues?.value;
  if (tagged) {
    // The values of a discriminated union's tag are its tags: compared with the union.
  } else if (wasEnum && nowEnum) {
    // One finding per direction, with every value it concerns: one change of the list, however many values.
    const wasKeys = new Set(wasEnum.map(canonical));
    const nowKeys = new Set(nowEnum.map(canonical));
    const added = distinct(nowEnum.filter((entry) => !wasKeys.has(canonical(entry))));
    const removed = distinct(wasEnum.filter((entry) => !nowKeys.has(canonical(entry))));
    const path = at(now.enumValues!.path);
    const listed = (values: unknown[]) => values.map(canonical).join(', ');
    if (added.length > 0) {
      schemaFinding(w, 'enum-value-added', path, field, added.length === 1 ? `new value ${listed(added)}` : `new values ${listed(added)}`, { values: added });
    }
    if (removed.length > 0) {
      schemaFinding(w, 'enum-value-removed', path, field, removed.length === 1 ? `value ${listed(removed)} removed` : `values ${listed(removed)} removed`, { values: removed });
    }
  } else if (nowEnum) {
    schemaFinding(w, 'enum-introduced', at(now.enumValues!.path), field, `now one of ${nowEnum.map(canonical).join(', ')}`);
  } else if (wasEnum) {
    schemaFinding(w, 'enum-dropped', here, field, `no longer limited to ${wasEnum.map(canonical).join(', ')}`);
  }

  const upper: [string, SchemaKind, SchemaKind][] = [
    ['maxLength', 'max-length-decreased', 'max-length-increased'],
    ['maxItems', 'max-items-decreased', 'max-items-increased'],
  ];
  for (const [keyword, tightened, loosened] of upper) {
    const a = bound(was, keyword);
    const b = bound(now, keyword);
    if (a === b) continue;
    const tighter = a === undefined || (typeof a === 'number' && typeof b === 'number' && b < a);
    schemaFinding(w, tighter ? tightened : loosened, boundPath(keyword), field, `${keyword} ${show(a)} → ${show(b)}`);
  }
  const lower: [string, SchemaKind, SchemaKind][] = [
    ['minLength', 'min-length-increased', 'min-length-decreased'],
    ['minItems', 'min-items-increased', 'min-items-decreased'],
  ];
  for (const [keyword, tightened, loosened] of lower) {
    const a = numberOr(bound(was, keyword), 0);
    const b = numberOr(bound(now, keyword), 0);
    if (a === b) continue;
    schemaFinding(w, b > a ? tightened : loosened, boundPath(keyword), field, `${keyword} ${show(bound(was, keyword))} → ${show(bound(now, keyword))}`);
  }
  compareNumericBound(w, was, now, field, 'upper');
  compareNumericBound(w, was, now, field, 'lower');

  compareSet(w, was.patterns, now.patterns, at, here, field, 'pattern', { added: 'pattern-added', removed: 'pattern-removed', changed: 'pattern-changed' });

  compareMultipleOf(w, was, now, field, at, here);
  const keywords = new Set([...was.others.keys(), ...now.others.keys()]);
  keywords.delete('multipleOf');
  for (const keyword of [...keywords].sort()) {
    const values = (schema: Normalized) => (schema.others.get(keyword) ?? []).map((entry) => canonical(entry.value)).sort();
    const a = values(was);
    const b = values(now);
    if (a.join('\u0000') === b.join('\u0000')) continue;
    const order = constraintOrder(keyword, was, now);
    if (order === 0) continue;
    const kind = order === undefined ? 'constraint-changed' : order > 0 ? 'constraint-tightened' : 'constraint-loosened';
    const entry = now.others.get(keyword)?.find((candidate) => !a.includes(canonical(candidate.value)));
    schemaFinding(w, kind, entry ? at(entry.path) : here, field, `${keyword} ${showList(a)} → ${showList(b)}`);
  }

  const a = was.default?.value;
  const b = now.default?.value;
  if (a === undefined && b !== undefined) schemaFinding(w, 'default-added', at(now.default!.path), field, `default none → ${show(b)}`);
  else if (a !== undefined && b === undefined) schemaFinding(w, 'default-removed', here, field, `default ${show(a)} → none`);
  else if (a !== undefined && canonical(a) !== canonical(b)) schemaFinding(w, 'default-changed', at(now.default!.path), field, `default ${show(a)} → ${show(b)}`);

  if (!was.deprecated && now.deprecated) schemaFinding(w, 'deprecated', at(now.deprecated), field, 'deprecated');
  else if (was.deprecated && !now.deprecated) schemaFinding(w, 'undeprecated', here, field, 'no longer deprecated');
}

function showList(values: readonly string[]): string {
  return values.length === 0 ? 'none' : values.join(' and ');
}

/**
 * Validation keywords whose values are ordered, with the value their absence means: a bound on the count of
 * properties or of matching items (the lowest upper bound and the highest lower bound hold), or a flag.
 */
const ORDERED_CONSTRAINTS: Record<string, { side: 'upper' | 'lower' | 'flag'; absent: number }> = {
  maxProperties: { side: 'upper', absent: Infinity },
  maxContains: { side: 'upper', absent: Infinity },
  minProperties: { side: 'lower', absent: 0 },
  minContains: { side: 'lower', absent: 1 },
  uniqueItems: { side: 'flag', absent: 0 },
};

/**
 * Which way an ordered keyword moved: 1 when the revision accepts fewer values, -1 more, 0 the same (`minProperties:
 * 0` is none); undefined for a keyword without an order, or with values of another type.
 */
function constraintOrder(keyword: string, was: Normalized, now: Normalized): number | undefined {
  const order = ORDERED_CONSTRAINTS[keyword];
  if (!order) return undefined;
  const effective = (schema: Normalized): number | undefined => {
    const values = (schema.others.get(keyword) ?? []).map((entry) => entry.value);
    if (order.side === 'flag') return values.every((value) => typeof value === 'boolean') ? Number(values.includes(true)) : undefined;
    if (!values.every((value) => typeof value === 'number')) return undefined;
    const numbers = values as number[];
    return order.side === 'upper' ? Math.min(order.absent, ...numbers) : Math.max(order.absent, ...numbers);
  };
  const a = effective(was);
  const b = effective(now);
  if (a === undefined || b === undefined) return undefined;
  return order.side === 'upper' ? Math.sign(a - b) : Math.sign(b - a);
}

/**
 * The formats a schema's values must match, but `int64` on integers: every integer a client or a server exchanges
 * in JSON within the interoperable range (RFC 7493, ±2^53) is one, so it restricts nothing (see README, Decisions).
 */
function formatsOf(schema: Normalized): Keyword[] {
  return integerOnly(schema) ? schema.formats.filter((entry) => entry.value !== 'int64') : schema.formats;
}

/** The values of a list once each, in order. */
export function distinct(values: readonly unknown[]): unknown[] {
  const seen = new Set<string>();
  return values.filter((value) => {
    const key = canonical(value);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' ? value : fallback;
}

interface Bound {
  /** The bound as written (the tighter of the inclusive and the exclusive keyword). */
  value: number;
  exclusive: boolean;
  keyword: string;
  path: string;
  /** The bound compared: exact, and snapped to the lowest (or highest) accepted value where values are discrete. */
  exact: Fraction;
  /** Whether `exact` is itself excluded (continuous values only). */
  open: boolean;
}

/** Whether only integers are accepted (among numbers: other types may be accepted too). */
function integerOnly(schema: Normalized): boolean {
  return schema.types !== undefined && schema.types.size > 0 && [...schema.types].every((type) => type === 'integer');
}

function multiplesOf(schema: Normalized): unknown[] {
  return (schema.others.get('multipleOf') ?? []).map((entry) => entry.value);
}

/**
 * The steps the bounds of two schemas are snapped to: their whole step (type and `multipleOf`) when it is the same
 * on both sides, else the step of their type alone, so that a change of `multipleOf` is reported as that, once, and
 * not also as the bounds it moves.
 */
function boundSteps(was: Normalized, now: Normalized): [Fraction | undefined, Fraction | undefined] {
  const a = stepOf(integerOnly(was), multiplesOf(was));
  const b = stepOf(integerOnly(now), multiplesOf(now));
  if (a && b && compareFractions(a, b) === 0) return [a, b];
  const byType = (schema: Normalized) => (integerOnly(schema) ? { n: 1n, d: 1n } : undefined);
  return [byType(was), byType(now)];
}

function numericBound(schema: Normalized, side: 'upper' | 'lower', step: Fraction | undefined): Bound | undefined {
  const [inclusive, exclusive] = side === 'upper' ? ['maximum', 'exclusiveMaximum'] : ['minimum', 'exclusiveMinimum'];
  const candidates: Omit<Bound, 'exact' | 'open'>[] = [];
  for (const [keyword, isExclusive] of [
    [inclusive, false],
    [exclusive, true],
  ] as const) {
    const entry = schema.bounds.get(keyword);
    if (entry && typeof entry.value === 'number' && Number.isFinite(entry.value)) candidates.push({ value: entry.value, exclusive: isExclusive, keyword, path: entry.path });
  }
  const sign = side === 'upper' ? 1 : -1;
  const bound = candidates.sort((a, b) => sign * (a.value - b.value) || Number(b.exclusive) - Number(a.exclusive))[0];
  if (!bound) return undefined;
  const written = fraction(bound.value)!;
  return step ? { ...bound, exact: snapBound(written, bound.exclusive, side, step), open: false } : { ...bound, exact: written, open: bound.exclusive };
}

const NUMERIC_BOUNDS = ['maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum'];

function compareNumericBound(w: Walk, was: Normalized, now: Normalized, field: string, side: 'upper' | 'lower'): void {
  if (!NUMERIC_BOUNDS.some((keyword) => was.bounds.has(keyword) || now.bounds.has(keyword))) return;
  const [wasStep, nowStep] = boundSteps(was, now);
  const a = numericBound(was, side, wasStep);
  const b = numericBound(now, side, nowStep);
  if (!a && !b) return;
  let tighter: boolean;
  if (!a) tighter = true;
  else if (!b) tighter = false;
  else {
    const sign = side === 'upper' ? 1 : -1;
    const difference = sign * compareFractions(a.exact, b.exact);
    if (difference === 0 && a.open === b.open) return;
    tighter = difference > 0 || (difference === 0 && b.open);
  }
  const kinds: [SchemaKind, SchemaKind] = side === 'upper' ? ['max-decreased', 'max-increased'] : ['min-increased', 'min-decreased'];
  const label = (bound: Bound | undefined) => (bound ? `${bound.keyword} ${bound.value}` : side === 'upper' ? 'maximum none' : 'minimum none');
  const detail = a && b && a.keyword === b.keyword ? `${a.keyword} ${a.value} → ${b.value}` : `${label(a)} → ${label(b)}`;
  schemaFinding(w, tighter ? kinds[0] : kinds[1], declared(w, was, now, b?.path ?? now.path), field, detail);
}

/**
 * `multipleOf` compared as the step it makes: on integers `multipleOf: 1` is none, several (allOf members) are one
 * step, their least common multiple. Values that are not positive numbers are compared as written.
 */
function compareMultipleOf(w: Walk, was: Normalized, now: Normalized, field: string, at: (path: string) => string, here: string): void {
  const a = multiplesOf(was);
  const b = multiplesOf(now);
  if (a.length === 0 && b.length === 0) return;
  const effective = (schema: Normalized, values: unknown[]): Fraction | undefined | null => {
    if (values.length === 0) return undefined;
    const integer = integerOnly(schema);
    const step = stepOf(integer, values);
    if (!step) return null;
    return integer && isOne(step) ? undefined : step;
  };
  const stepA = effective(was, a);
  const stepB = effective(now, b);
  const written = (values: unknown[]) => values.map(canonical).sort();
  // A step that is a multiple of the old one accepts fewer values (multiples of 4 are multiples of 2), one that
  // divides it more; steps of neither kind are another constraint.
  let kind: SchemaKind = 'constraint-changed';
  if (stepA !== null && stepB !== null) {
    if (stepA === undefined && stepB === undefined) return;
    if (stepA && stepB && compareFractions(stepA, stepB) === 0) return;
    if (stepA === undefined || (stepB !== undefined && isMultiple(stepB, stepA))) kind = 'constraint-tightened';
    else if (stepB === undefined || isMultiple(stepA, stepB)) kind = 'constraint-loosened';
  } else if (written(a).join('\u0000') === written(b).join('\u0000')) return;
  const entry = now.others.get('multipleOf')?.find((candidate) => !written(a).includes(canonical(candidate.value)));
  schemaFinding(w, kind, entry ? at(entry.path) : here, field, `multipleOf ${showList(written(a))} → ${showList(written(b))}`);
}
