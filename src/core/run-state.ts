/**
 * @module
 * The states of a run. `src/runs` drives the transitions; the store records them as events.
 */
import { z } from "zod";

/** `moved`: `rebench store copy --move-unfinished` handed the run to another store, where it goes on (docs/runs.md). */
export const RUN_STATES = ["queued", "starting", "running", "paused", "scoring", "finished", "failed", "moved"] as const;
export const RunState = z.enum(RUN_STATES);
export type RunState = z.infer<typeof RunState>;

export const TERMINAL_STATES: ReadonlySet<RunState> = new Set(["finished", "failed", "moved"]);

export function isTerminal(state: RunState): boolean {
  return TERMINAL_STATES.has(state);
}

/** Why a run ended. */
export const StopReason = z.enum(["submitted", "limit", "cancelled", "error"]);
export type StopReason = z.infer<typeof StopReason>;
