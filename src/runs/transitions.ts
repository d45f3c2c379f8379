/**
 * @module
 * The run lifecycle as a state machine: queued → starting → running ⇄ paused → scoring → finished, and
 * failed from anywhere before the end. `paused` is entered and left by pause events; the rest by
 * state_changed, run_finished and run_failed events, so the state is always a fold of the log.
 */
import { ConflictError, type RunState } from "../core/index.js";

const ALLOWED: Readonly<Record<RunState, readonly RunState[]>> = {
  queued: ["starting", "failed"],
  starting: ["running", "failed"],
  running: ["paused", "scoring", "failed"],
  paused: ["running", "scoring", "failed"],
  scoring: ["finished", "failed"],
  finished: [],
  failed: [],
  moved: [],
};

export function canTransition(from: RunState, to: RunState): boolean {
  return ALLOWED[from].includes(to);
}

export function assertTransition(runId: string, from: RunState, to: RunState): void {
  if (!canTransition(from, to)) {
    throw new ConflictError(`run ${runId} cannot go from ${from} to ${to}`, {
      hint: `from ${from} a run may go to: ${ALLOWED[from].join(", ") || "nothing (it has ended)"}`,
    });
  }
}
