/**
 * @module
 * A clock for retry tests: sleeping returns at once but moves the clock forward by the time asked, and
 * every sleep is recorded, so a test can assert the exact waits (Retry-After, backoff) without waiting.
 * Real time does not move it, so durations measured with it count only the sleeps.
 */
import type { Clock } from "../retry.js";

export interface FakeClock extends Clock {
  /** Every sleep asked for, in milliseconds. */
  readonly sleeps: number[];
}

/** Starts at `start` (default the real time) and moves only when something sleeps, so intervals are exact. */
export function fakeClock(start: number = Date.now()): FakeClock {
  let now = start;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => now,
    sleep: async (ms, signal) => {
      signal?.throwIfAborted();
      sleeps.push(ms);
      now += ms;
    },
  };
}
