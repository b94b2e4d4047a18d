// The operations of the contract this server does not implement yet, each with why: the one list that the server
// (answering them from the contract, http/example-answers.ts), the handler table's type, `npm run check`, the coverage
// of `npm test` and `npm run release` read. An operation stays here until its handler answers for real
// (server/docs/code.md, "Operations not implemented yet").
import type { operations } from '../../generated/schema.d.ts';

export const pendingOperations = {} as const satisfies Partial<Record<keyof operations, string>>;

/** The operations listed in `pendingOperations`. */
export type PendingOperation = keyof typeof pendingOperations;
