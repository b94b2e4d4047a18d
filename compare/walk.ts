// The walk through two schemas in the direction they travel: where a change is reported (the component, or the
// place where a reference changed), and each pair compared once per walk (recursion cut) and remembered across
// walks. How one pair is compared, the walk carries (`comparePair`, from schemas.ts): the parts that compare a pair
// (constraints, objects, unions) import this module to walk on, and it imports none of them.
import { componentOf } from './pointer.ts';
import { directionOf, schemaRule, type Direction, type SchemaContext, type SchemaKind } from './rules.ts';
import { normalize, type Located, type Normalized } from './schema.ts';
import { type Context, type FindingArgs, type Memo, type Raw } from './findings.ts';

/**
 * A walk through the schemas of one body, parameter, answer or header. `anchor` is set where the base and the
 * revision differ in place (a `$ref` replaced by an inline schema, or by a reference to another component): the
 * changes found below are reported at the place in the revision where the reference changed, not inside a component
 * that did not change. `parent` is the revision's place of the schema being walked, for choosing that anchor.
 */
export interface Walk {
  context: Context;
  schemaContext: SchemaContext;
  direction: Direction;
  visits: Visits;
  state: WalkState;
  sink: Raw[];
  anchor?: string;
  parent?: string;
  /** The components the base draws on along the walk so far (the schemas being compared and their ancestors). */
  drawn?: ReadonlySet<string>;
  /** The members of a discriminated union being compared: the name of their tag property. */
  tagProperty?: string;
  /** The tag property itself: its values are the union's tags, compared with the union. */
  tagged?: boolean;
  /** How one pair of schemas is compared (compare/schemas.ts): how the walk goes on from each pair it meets. */
  comparePair: ComparePair;
}

/** Compares one pair of schemas met by a walk (`tagProperty` and `tagged` are the walk's, taken off it). */
export type ComparePair = (w: Walk, was: Normalized, now: Normalized, field: string, tagProperty: string | undefined, tagged: boolean | undefined) => void;

/** The pairs of schemas a walk has compared, in order, each with its place in that order. */
interface Visits {
  seen: Map<string, number>;
  log: string[];
}

/** What the comparisons in progress depend on, besides the schemas they compare (shared with trial walks). */
interface WalkState {
  /** The earliest pair compared before them that they met again (their findings then depend on the walk). */
  earliest: number;
  /** The components whose presence in `drawn` they asked about. */
  queries: string[];
}

export function newWalk(context: Context, schemaContext: SchemaContext, sink: Raw[], comparePair: ComparePair): Walk {
  return { context, schemaContext, direction: directionOf(schemaContext), visits: { seen: new Map(), log: [] }, state: { earliest: Infinity, queries: [] }, sink, comparePair };
}

export function schemaFinding(
  w: Walk,
  kind: SchemaKind,
  path: string,
  field: string,
  detail: string,
  more: { document?: 'base' | 'revision'; value?: unknown; values?: unknown[]; args?: FindingArgs } = {},
): void {
  const rule = schemaRule(w.schemaContext, kind);
  if (!rule) return;
  w.sink.push({
    rule,
    path,
    document: more.document ?? 'revision',
    field: field || rootLabel(w.schemaContext),
    detail,
    ...(more.value !== undefined ? { value: more.value } : {}),
    ...(more.values !== undefined ? { values: more.values } : {}),
    ...(more.args ? { args: more.args } : {}),
  });
}

function rootLabel(context: SchemaContext): string {
  return context === 'request-property' ? 'request body' : context === 'response-property' ? 'response body' : '';
}

/** A field inside `field` (its items `[]`, its map values `.*`): named from the body when `field` is the body itself. */
export function inside(w: Walk, field: string, suffix: string): string {
  return `${field || rootLabel(w.schemaContext)}${suffix}`;
}

const COMPONENT_ROOT = /^#\/components\/schemas\/([^/]+)$/;

export function componentRoot(path: string): string | undefined {
  const match = COMPONENT_ROOT.exec(path);
  return match ? match[1]!.replace(/~1/g, '/').replace(/~0/g, '~') : undefined;
}

/** Whether `path` is `ancestor` or inside it. */
function within(path: string, ancestor: string): boolean {
  return path === ancestor || path.startsWith(`${ancestor}/`);
}

/** The same component on both sides (or both inline in the operation): a change there is the component's. */
export function samePlace(was: Normalized, now: Normalized): boolean {
  return componentOf(was.path) === componentOf(now.path);
}

function anchorFor(w: Walk, was: Normalized, now: Normalized): string | undefined {
  if (samePlace(was, now)) return undefined;
  if (w.anchor) return within(now.origin, w.anchor) ? now.origin : w.anchor;
  const parent = w.parent ?? now.origin;
  return componentOf(now.origin) === componentOf(parent) ? now.origin : parent;
}

/** Where a change found at `path` in the revision is reported: there, or at the anchor when it lies outside it. */
export function place(w: Walk, path: string): string {
  return !w.anchor || within(path, w.anchor) ? path : w.anchor;
}

/**
 * Where a change of a keyword is reported: where the revision declares it, unless that is in a component the base
 * did not draw on (a reference switched to another component, which itself did not change): then at the schema
 * that refers to it.
 */
export function declared(w: Walk, was: Normalized, now: Normalized, path: string): string {
  const component = componentOf(path);
  let drawn = component === undefined || was.sources.has(component);
  if (!drawn) {
    w.state.queries.push(component!);
    drawn = w.drawn?.has(component!) ?? false;
  }
  return place(w, drawn ? path : now.path);
}

function drawnWith(drawn: ReadonlySet<string> | undefined, sources: ReadonlySet<string>): ReadonlySet<string> {
  if (drawn && [...sources].every((source) => drawn.has(source))) return drawn;
  return new Set([...(drawn ?? []), ...sources]);
}

/** Whether two locations are written alike and reach only components written alike (`Context.unchanged`). */
export function unchangedAt(context: Context, was: Located, now: Located): boolean {
  const plain = (at: Located) => !at.atom && !at.outside && (at.and === undefined || at.and.length === 0);
  return plain(was) && plain(now) && context.unchanged(was.node, now.node);
}

export function compareSchema(w: Walk, was: Located, now: Located, field: string): void {
  if (unchangedAt(w.context, was, now)) return;
  compareNormalized(w, normalize(w.context.base, was), normalize(w.context.revision, now), field);
}

/**
 * Compares two schemas, once per walk (a pair met again is cut: that is what stops recursive schemas). The same
 * components are reached from many bodies and answers, so what a comparison found is remembered for the other
 * walks, with what it depended on besides the pair: its place (anchor, field, tag), the answers of `drawn` it
 * used, and the pairs it compared; one that met a pair compared before it (a recursion cut by an ancestor, or a
 * pair an earlier sibling compared) depended on its walk and is not remembered.
 */
export function compareNormalized(outer: Walk, was: Normalized, now: Normalized, field: string): void {
  const anchor = anchorFor(outer, was, now);
  const { tagProperty, tagged, visits, state } = outer;
  const key = `${outer.schemaContext}\u0000${was.id}\u0000${now.id}\u0000${anchor ?? ''}\u0000${tagProperty ?? ''}\u0000${tagged ? 'tag' : ''}`;
  const met = visits.seen.get(key);
  if (met !== undefined) {
    if (met < state.earliest) state.earliest = met;
    return;
  }
  if (!field) field = now.refName ?? was.refName ?? '';
  const drawn = drawnWith(outer.drawn, was.sources);
  const memoKey = `${key}\u0000${field}\u0000${was.refName ?? ''}\u0000${now.refName ?? ''}`;
  const memos = outer.context.remember ? outer.context.memo.get(memoKey) : undefined;
  const memo = memos?.find(
    (entry) => entry.answers.every(([component, answer]) => drawn.has(component) === answer) && entry.keys.every((known) => !visits.seen.has(known)),
  );
  if (memo) {
    for (const known of memo.keys) {
      visits.seen.set(known, visits.log.length);
      visits.log.push(known);
    }
    for (const raw of memo.raws) outer.sink.push(raw);
    for (const [component] of memo.answers) state.queries.push(component);
    return;
  }
  const start = visits.log.length;
  visits.seen.set(key, start);
  visits.log.push(key);
  const found = outer.sink.length;
  const earliest = state.earliest;
  const queries = state.queries.length;
  state.earliest = Infinity;
  outer.comparePair({ ...outer, anchor, parent: undefined, drawn, tagProperty: undefined, tagged: undefined }, was, now, field, tagProperty, tagged);
  if (state.earliest >= start && outer.context.remember) {
    const entry: Memo = {
      raws: outer.sink.slice(found),
      keys: visits.log.slice(start),
      answers: [...new Set(state.queries.slice(queries))].map((component) => [component, drawn.has(component)]),
    };
    if (memos) memos.push(entry);
    else outer.context.memo.set(memoKey, [entry]);
  }
  state.earliest = Math.min(earliest, state.earliest);
}
