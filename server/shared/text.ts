// Text that both engines store alike. PostgreSQL refuses the character U+0000 (NUL) in every text value, where
// SQLite keeps it; and neither stores an unpaired surrogate (half of a UTF-16 pair, U+D800 to U+DFFF alone, which a
// JSON string may spell as `\ud800`): both drivers write it as U+FFFD, so what was sent would not come back. So:
//
// - what a client sends (path parameters, query values, strings and property names of a JSON body) holding either is
//   refused with a 400 naming where (`textProblem`, through http/text-input.ts and json-limits.ts): a rule of the API,
//   written in the contract (spec/main.tsp, BadRequestError);
// - a seed file holding either fails the start in one line naming the record and the field (seed-schema.ts);
// - text read from outside (website pages, Git files, fetched OpenAPI sources) has each replaced by U+FFFD as it is
//   read (`storableText`): an import is not refused for a stray byte of someone else's page;
// - the store replaces them too in every string it binds to a statement, on both engines (`storableText`, in
//   store/sqlite/store.ts and store/postgres/store.ts), so that no path missed above reaches PostgreSQL's refusal:
//   the same input is stored the same on both engines, never a 500 on one of them.

const hasWellFormed = typeof (String.prototype as { isWellFormed?: unknown }).isWellFormed === 'function';
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Whether a string is made of whole Unicode characters (no unpaired surrogate). */
function wellFormed(value: string): boolean {
  return hasWellFormed ? (value as unknown as { isWellFormed(): boolean }).isWellFormed() : !LONE_SURROGATE.test(value);
}

/** What keeps a string from being stored alike on both engines, as the end of a 400's message; undefined: nothing. */
export function textProblem(value: string): string | undefined {
  if (value.includes('\u0000')) return 'must not contain the character U+0000 (NUL)';
  if (!wellFormed(value)) return 'must not contain an unpaired surrogate (U+D800 to U+DFFF alone): send whole Unicode characters';
  return undefined;
}

/** `value` with each NUL and each unpaired surrogate replaced by U+FFFD (the same string when it has none). */
export function storableText(value: string): string {
  if (!value.includes('\u0000') && wellFormed(value)) return value;
  const whole = hasWellFormed ? (value as unknown as { toWellFormed(): string }).toWellFormed() : value.replace(new RegExp(LONE_SURROGATE.source, 'g'), '\uFFFD');
  return whole.replaceAll('\u0000', '\uFFFD');
}
