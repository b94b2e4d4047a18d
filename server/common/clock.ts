// Time comes from a clock, so that tests can move it (for example across the 7 days a deleted space is kept).
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/**
 * `clock`, counting how many times it is read: the server knows from it which answers were made without the time
 * (http/list-page-cache.ts). Every read of the time in the server goes through its context's clock.
 */
export function countingClock(clock: Clock): Clock & { readonly reads: number } {
  let reads = 0;
  return {
    now: () => {
      reads++;
      return clock.now();
    },
    get reads() {
      return reads;
    },
  };
}

/** A clock tests set and advance by hand. */
export class ManualClock implements Clock {
  private current: number;
  constructor(start: Date | string = '2026-01-01T00:00:00.000Z') {
    this.current = new Date(start).getTime();
  }
  now(): Date {
    return new Date(this.current);
  }
  advance(milliseconds: number): void {
    this.current += milliseconds;
  }
  set(to: Date | string): void {
    this.current = new Date(to).getTime();
  }
}

export const DAY = 24 * 60 * 60 * 1000;
