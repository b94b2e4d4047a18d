// A deprecation as the contract writes it: `deprecated: true` on an operation, a parameter or a schema property, with
// `x-deprecation` (its reason, the date it took effect, its successor) and `x-sunset` (the day from which it may be
// removed). No imports: the server's headers, the usage recorders and the gate read a deprecation alike.

export interface Deprecation {
  reason?: string;
  /** The day it took effect (`YYYY-MM-DD`). */
  since?: string;
  /** What replaces it: an operation id, or `Model.property`. */
  successor?: string;
  /** The day from which it may be removed (`YYYY-MM-DD`). */
  sunset?: string;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined);
const day = (value: unknown) => {
  // YAML reads an unquoted `2027-01-01` as a date under some schemas: both are the day.
  const written = value instanceof Date ? value.toISOString().slice(0, 10) : text(value);
  return written !== undefined && DAY.test(written) ? written : undefined;
};

/** The deprecation of an operation, parameter or schema node, or undefined when it is not deprecated. */
export function deprecationOf(node: unknown): Deprecation | undefined {
  if (!isObject(node) || node.deprecated !== true) return undefined;
  const written = isObject(node['x-deprecation']) ? node['x-deprecation'] : {};
  const deprecation: Deprecation = {};
  const reason = text(written.reason);
  if (reason !== undefined) deprecation.reason = reason;
  const since = day(written.since);
  if (since !== undefined) deprecation.since = since;
  const successor = text(written.successor);
  if (successor !== undefined) deprecation.successor = successor;
  const sunset = day(node['x-sunset']);
  if (sunset !== undefined) deprecation.sunset = sunset;
  return deprecation;
}

/** The first moment of a day (`YYYY-MM-DD`), UTC, in milliseconds: a sunset takes effect as its day begins. */
export const startOfDay = (written: string): number => Date.parse(`${written}T00:00:00Z`);

/** A deprecation in words: `deprecated since 2026-01-01; sunset 2027-01-01: <reason> Use <successor>.` */
export function deprecationText(deprecation: Deprecation): string {
  const since = deprecation.since ? ` since ${deprecation.since}` : '';
  const sunset = deprecation.sunset ? `; sunset ${deprecation.sunset}` : '';
  const reason = deprecation.reason ? `: ${deprecation.reason}` : '';
  const successor = deprecation.successor && !deprecation.reason?.includes(deprecation.successor) ? ` Use ${deprecation.successor}.` : '';
  return `deprecated${since}${sunset}${reason}${successor}`;
}
