// Text that both engines store alike: no U+0000 (NUL), which PostgreSQL refuses in text, and no unpaired surrogate,
// which neither engine stores. `textProblem` names where a request's text holds either (a 400, a rule of the contract);
// `storableText` replaces each with U+FFFD in text read from outside and in every string the store binds
// (server/docs/limits.md, "Text").

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
