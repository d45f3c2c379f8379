/**
 * @module
 * What the agent sees of a score-log entry. The score value is omitted for `hidden_score` and for
 * environments whose score is hidden (`visibleToAgent: false`); as a safety net, any number in a hidden
 * entry's `message` equal to the score value is blanked too. `details` are never shown, except as a `notice`
 * when the entry was flagged as taken under contention (a timing-sensitive variant on a busy machine).
 */
import { contentionNote, contentionOf, type Manifest, type ScoreLogEntry, type ScoreView, type TaskId } from "../core/index.js";

export type { ScoreView };

/** Whether the agent may see score values in this run. */
export function scoreVisible(manifest: Manifest, task: TaskId): boolean {
  return task !== "hidden_score" && manifest.scoring.visibleToAgent;
}

export const HIDDEN = "(hidden)";

export function scoreView(entry: ScoreLogEntry, visible: boolean): ScoreView {
  const { outcome } = entry;
  const view: ScoreView = {
    timestamp: entry.timestamp,
    elapsedSeconds: entry.elapsedSeconds,
    outcome: outcome.kind,
    message: entry.message,
  };
  switch (outcome.kind) {
    case "scored":
      if (visible) view.score = outcome.value;
      else view.message = redactNumber(entry.message, outcome.value) as Record<string, unknown>;
      break;
    case "invalid":
      view.reason = outcome.reason;
      break;
    case "timedOut":
      view.reason = `scoring took longer than ${outcome.afterSeconds} s`;
      break;
    case "error":
      view.reason = outcome.message;
      break;
  }
  const contention = contentionOf(entry);
  if (contention?.flagged) view.notice = contentionNote(contention);
  return view;
}

function redactNumber(value: unknown, hidden: number): unknown {
  if (typeof value === "number") return value === hidden ? HIDDEN : value;
  if (Array.isArray(value)) return value.map((v) => redactNumber(v, hidden));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactNumber(v, hidden)]));
  }
  return value;
}
