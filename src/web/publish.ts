/**
 * @module
 * What a published copy (`rebench serve --export DIR`) leaves out, decided in one place: the score values
 * of runs whose task hides them (`hidden_score`: the agent never saw them, so neither do readers), the
 * graders' `details` (kept in the store, never shown to the agent: they hold hidden data such as the true
 * optimum), and what came from an environment's protected files (the reference solution a `replay` run of
 * the reference plays). The live server shows everything to whoever may open it.
 */
import type { RunEvent, RunSpec, RunSummary, ScoreLogEntry } from "../core/index.js";

export const HIDDEN = "(hidden)";

/** Whether a run's score values are hidden from its agent, and so from a published copy. */
export function scoresHidden(spec: RunSpec): boolean {
  return spec.task === "hidden_score";
}

/** Whether the run's actions are an environment's reference solution (protected files). */
export function playsReference(spec: RunSpec): boolean {
  return spec.participant.scaffold === "replay" && (spec.config.actions ?? "reference") === "reference";
}

/** One line per kind of thing a published copy of this run leaves out. */
export function withheldNotes(spec: RunSpec): string[] {
  const notes = ["Graders' details (stored, never shown to the agent) are left out."];
  if (scoresHidden(spec)) notes.push("This run's task hides score values from the agent: they are left out here too.");
  if (playsReference(spec)) notes.push("This run replays the environment's protected reference solution: the code of its actions is left out.");
  return notes;
}

export function publicSummary(summary: RunSummary): RunSummary {
  if (!scoresHidden(summary.spec)) return summary;
  return { ...summary, currentRaw: null, finalRaw: null, normalized: null };
}

export function publicEntry(entry: ScoreLogEntry, spec: RunSpec): ScoreLogEntry {
  const { details: _details, ...rest } = entry;
  if (!scoresHidden(spec) || entry.outcome.kind !== "scored") return { ...rest, details: {} };
  const value = entry.outcome.value;
  return { ...rest, outcome: { kind: "scored", value: Number.NaN }, message: redactNumber(entry.message, value) as Record<string, unknown>, details: {} };
}

export function publicEvent(event: RunEvent, spec: RunSpec): RunEvent {
  switch (event.type) {
    case "score_logged":
      return { ...event, entry: publicEntry(event.entry, spec) };
    case "run_finished":
      return scoresHidden(spec) ? { ...event, finalRaw: null, normalized: null } : event;
    case "action":
      if (!playsReference(spec) || event.tool === "submit" || event.tool === "score" || event.tool === "score_log") return event;
      return { ...event, input: `(left out: a step of the environment's protected reference solution, ${JSON.stringify(event.input).length} characters)` };
    default:
      return event;
  }
}

function redactNumber(value: unknown, hidden: number): unknown {
  if (typeof value === "number") return value === hidden ? HIDDEN : value;
  if (Array.isArray(value)) return value.map((v) => redactNumber(v, hidden));
  if (typeof value === "object" && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactNumber(v, hidden)]));
  return value;
}
