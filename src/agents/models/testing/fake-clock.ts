/**
 * @module
 * A clock for retry tests: sleeping returns at once but moves the clock forward by the time asked, and
 * every sleep is recorded, so a test can assert the exact waits (Retry-After, backoff) without waiting.
 */
import type { Clock } from "../retry.js";

export interface FakeClock extends Clock {
  /** Every sleep asked for, in milliseconds. */
  readonly sleeps: number[];
}

/** Starts at the real time; only sleeps move it forward beyond the real passage of time. */
export function fakeClock(): FakeClock {
  let offset = 0;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => Date.now() + offset,
    sleep: async (ms, signal) => {
      signal?.throwIfAborted();
      sleeps.push(ms);
      offset += ms;
    },
  };
}
