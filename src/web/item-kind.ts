/**
 * @module
 * Which kind of trajectory item each event type is: what the run page groups (a generation opens a model
 * turn; actions and observations are its tool calls and their results), folds (state and time: bookkeeping)
 * and filters by. A record over every event type, so a new type cannot be forgotten here.
 */
import type { RunEventType } from "../core/index.js";
import type { ItemKind } from "./api-types.js";

const KINDS: Record<RunEventType, ItemKind> = {
  run_created: "start",
  state_changed: "state",
  driver_attached: "state",
  job_submitted: "state",
  job_started: "state",
  cancel_requested: "state",
  time_reported: "time",
  generation: "generation",
  action: "action",
  observation: "observation",
  score_logged: "score",
  pause_started: "pause",
  pause_ended: "pause",
  note: "note",
  submitted: "end",
  run_finished: "end",
  run_failed: "end",
  run_moved: "end",
  review: "review",
};

export function itemKind(type: RunEventType | string): ItemKind {
  return KINDS[type as RunEventType] ?? "other";
}
