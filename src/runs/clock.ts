/**
 * @module
 * Time as a dependency: every timestamp and budget of a run reads a Clock, so tests of working time
 * advance a ManualClock instead of sleeping.
 */

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that moves only when told to (tests, simulations). */
export class ManualClock implements Clock {
  #ms: number;
  constructor(startMs: number = Date.UTC(2026, 10, 29, 12, 0, 0)) {
    this.#ms = startMs;
  }
  now(): number {
    return this.#ms;
  }
  advance(seconds: number): void {
    this.#ms += seconds * 1000;
  }
}

export function isoAt(clock: Clock): string {
  return new Date(clock.now()).toISOString();
}
