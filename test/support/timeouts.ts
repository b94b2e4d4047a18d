/**
 * A test's timeout, longer when the server runs with its speed mechanisms off (SPEEDUPS_OFF, as `.ci/run` runs the
 * API suites once): express-openapi-validator on its own compiles an operation's schemas together with the whole
 * document on that operation's first request, and spends many times the wrapper's CPU on every later one, so a test
 * that sweeps every operation takes several times as long.
 */
export function timeout(ms: number): number {
  return process.env.SPEEDUPS_OFF ? Math.max(ms * 5, SPEEDUPS_OFF_TIMEOUT) : ms;
}

/** The shortest timeout of a test, and of a hook, with the speed mechanisms off. */
export const SPEEDUPS_OFF_TIMEOUT = 600_000;
