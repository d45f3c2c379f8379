/**
 * @module
 * A run's normalized score over working time, from its score log: at each elapsed time the best valid
 * score logged so far (the last valid one for environments that aggregate by `last`, i.e. Scaling Law),
 * normalized. Invalid, timed-out and failed entries never count; before the first valid entry it is 0.
 */
import { type Aggregation, type NormalizationConstants, normalize, type ScoreLogEntry, validRaw } from "../core/index.js";
import type { ScorePoint } from "./analysis-run.js";

export interface ScoreCurveOptions {
  /** How the log becomes a score: `min`/`max` keep the best so far, `last` the latest valid entry. */
  aggregation: Aggregation;
  normalization: Pick<NormalizationConstants, "start" | "reference">;
}

/** The steps of the curve, ascending in seconds; a step only where the score changes. */
export function scoreCurve(log: readonly Pick<ScoreLogEntry, "elapsedSeconds" | "outcome">[], options: ScoreCurveOptions): ScorePoint[] {
  const entries = log.map((entry, index) => ({ entry, index })).sort((a, b) => a.entry.elapsedSeconds - b.entry.elapsedSeconds || a.index - b.index);
  const points: ScorePoint[] = [];
  let current: number | undefined;
  for (const { entry } of entries) {
    const raw = validRaw(entry);
    if (raw === undefined) continue;
    // Normalization maps "better" to "higher" in either direction, so the best raw score is the highest normalized one.
    const value = normalize(raw, options.normalization);
    const next = options.aggregation === "last" || current === undefined ? value : Math.max(current, value);
    if (next === current) continue;
    current = next;
    const last = points[points.length - 1];
    if (last && last.seconds === entry.elapsedSeconds) last.score = next;
    else points.push({ seconds: entry.elapsedSeconds, score: next });
  }
  return points;
}
