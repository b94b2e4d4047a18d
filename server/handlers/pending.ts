// The operations of the contract this server does not implement yet, each with why. One list, read by the server (an
// operation listed here is answered from the contract, server/http/example-answers.ts, and only where that is turned
// on: ANSWER_FROM_CONTRACT), by the type of the handler table (handlers/types.ts: a handler is required for every
// operation but these), by `npm run check` (an operation with neither a handler nor an entry here fails it), by the
// operation coverage of `npm test`, and by `npm run release`, which refuses while any is listed. An operation stays
// here until its handler answers for real: a handler `npm run scaffold` wrote is not one yet (server/docs/code.md,
// "Operations not implemented yet").
import type { operations } from '../../generated/schema.d.ts';

export const pendingOperations = {} as const satisfies Partial<Record<keyof operations, string>>;

/** The operations listed in `pendingOperations`. */
export type PendingOperation = keyof typeof pendingOperations;
