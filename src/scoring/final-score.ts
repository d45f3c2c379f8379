/**
 * @module
 * A run's final score: the environment's aggregation (min, max or last valid entry) of the whole score
 * log, normalized with the run's constants. Entries that are not scores never count; a log without a
 * valid entry has no final score.
 */
import { aggregateScoreLog, normalizedFor, type RunSpec, type ScoreLogEntry } from "../core/index.js";

export interface FinalScore {
  finalRaw: number | null;
  normalized: number | null;
  /** Index in the log of the entry that gave the final score. */
  index: number | null;
}

export function finalScore(log: readonly Pick<ScoreLogEntry, "outcome">[], spec: RunSpec): FinalScore {
  const aggregate = aggregateScoreLog(log, spec.aggregation);
  if (aggregate.kind === "noScore") return { finalRaw: null, normalized: null, index: null };
  return { finalRaw: aggregate.raw, normalized: normalizedFor(spec, aggregate.raw), index: aggregate.index };
}
