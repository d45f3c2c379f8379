/**
 * @module
 * Scores as values: a scoring call ends in one of four outcomes, never a bare NaN.
 */
import { z } from "zod";

export const ScoreOutcome = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("scored"), value: z.number().finite() }),
  z.object({ kind: z.literal("invalid"), reason: z.string().min(1) }),
  z.object({ kind: z.literal("timedOut"), afterSeconds: z.number().nonnegative() }),
  z.object({ kind: z.literal("error"), message: z.string().min(1) }),
]);
export type ScoreOutcome = z.infer<typeof ScoreOutcome>;

const JsonObject = z.record(z.string(), z.unknown());

/** One row of a run's score log. `message` is shown to the agent; `details` only stored. */
export const ScoreLogEntry = z.object({
  timestamp: z.string().datetime({ offset: true }),
  /** Working seconds since the run started (pauses excluded). */
  elapsedSeconds: z.number().nonnegative(),
  outcome: ScoreOutcome,
  message: JsonObject.default({}),
  details: JsonObject.default({}),
});
export type ScoreLogEntry = z.infer<typeof ScoreLogEntry>;
export type ScoreLogEntryInput = z.input<typeof ScoreLogEntry>;

/** The raw value of an entry, or undefined when the entry is not a valid score. */
export function validRaw(entry: Pick<ScoreLogEntry, "outcome">): number | undefined {
  return entry.outcome.kind === "scored" ? entry.outcome.value : undefined;
}

/**
 * What a grader writes to its result file (the path in `REBENCH_RESULT`); never parsed from stdout.
 * `python/rebench_env/result.py` writes this shape.
 */
export const GraderResult = z.object({
  outcome: ScoreOutcome,
  message: JsonObject.default({}),
  details: JsonObject.default({}),
});
export type GraderResult = z.infer<typeof GraderResult>;
