// Waiting on the event loop itself rather than on a timer: a timer a few ms long is a bet that a loaded machine
// can lose (a CI run failed on one), an immediate is not.

/**
 * Resolves in a check phase, after the immediates queued before this call: called from the timers or poll phase,
 * in this turn's check phase; called from a check phase, in the next turn's.
 */
export const checkPhase = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
