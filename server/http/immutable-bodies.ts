// Answers made from data that never changes (a revision's content, domain/content-presenters.ts): made once, frozen all
// the way down, serialised once, and accepted by the response check once, each compiled response check being wrapped
// (`rememberingAccepted`) to remember the immutable bodies it accepted (server/docs/design.md, "Immutable answers").
import { isImmutable } from '../common/response-bodies.ts';

export { immutableBody, immutableBodySize } from '../common/response-bodies.ts';

/** The response checks (compiled functions) that accepted each immutable body. */
const accepted = new WeakMap<object, WeakSet<object>>();
/** How many checks of immutable bodies ran, and how many were answered from memory (for tests). */
const counts = { checked: 0, remembered: 0 };

export const immutableBodyChecks = () => ({ ...counts });

type Check = ((data: unknown) => boolean) & { errors?: unknown };

/**
 * `validate` (a compiled response check, called as eov calls it: `validate({ response: body })`), remembering the
 * immutable bodies it accepted. `errors` is the last call's, as Ajv's own function keeps it.
 */
export function rememberingAccepted<F extends Check>(validate: F): F {
  const check = function (this: unknown, data: unknown) {
    const body = data !== null && typeof data === 'object' ? (data as { response?: unknown }).response : undefined;
    const remember = body !== null && typeof body === 'object' && isImmutable(body);
    if (remember && accepted.get(body)?.has(validate)) {
      counts.remembered++;
      check.errors = null;
      return true;
    }
    const valid = validate.call(this, data);
    check.errors = validate.errors;
    if (remember) {
      counts.checked++;
      if (valid) {
        let checks = accepted.get(body);
        if (!checks) accepted.set(body, (checks = new WeakSet()));
        checks.add(validate);
      }
    }
    return valid;
  } as F;
  check.errors = null;
  return check;
}
