// Test only: a process whose host clock is wrong. Imported before the server (`startInstance(env, { imports:
// [SKEWED_CLOCK] })`), it moves this process's wall clock, `Date.now()` and `new Date()`, by
// DOCS_TEST_CLOCK_SKEW_MS milliseconds (negative: behind), as a host whose clock drifted would. The server has no such
// setting: this stands for the machine, so that a test shows what the server does with a wrong clock (its job leases
// are measured by the database's, and do not move). Timers, which run on a monotonic clock, are left alone.
import { fileURLToPath } from 'node:url';

/** The path to give `--import` (startInstance's `imports`). */
export const SKEWED_CLOCK = fileURLToPath(import.meta.url);

const skew = Number(process.env.DOCS_TEST_CLOCK_SKEW_MS ?? '0');
if (Number.isFinite(skew) && skew !== 0) {
  const RealDate = Date;
  const now = () => RealDate.now() + skew;
  class SkewedDate extends RealDate {
    constructor(...args: unknown[]) {
      if (args.length === 0) super(now());
      else super(...(args as ConstructorParameters<DateConstructor>));
    }

    static override now(): number {
      return now();
    }
  }
  globalThis.Date = SkewedDate as DateConstructor;
}
