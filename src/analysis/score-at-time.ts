/**
 * @module
 * The score of a run at elapsed working time t: the best valid score logged at or before t (the last
 * valid one for Scaling Law), normalized; 0 before the first valid entry.
 */
import type { ScoreLogEntry } from "../core/index.js";
import { curveValueAt } from "./curve-value-at.js";
import { type ScoreCurveOptions, scoreCurve } from "./score-curve.js";

/** Normalized score of `log` at `seconds` of working time. */
export function scoreAtTime(log: readonly Pick<ScoreLogEntry, "elapsedSeconds" | "outcome">[], seconds: number, options: ScoreCurveOptions): number {
  return curveValueAt(scoreCurve(log, options), seconds);
}
