/**
 * @module
 * Read a score curve at one working time: the value of the last step at or before t, 0 before the first.
 */
import type { ScorePoint } from "./analysis-run.js";

/** The curve's score at elapsed working time `seconds` (binary search over the ascending steps). */
export function curveValueAt(curve: readonly ScorePoint[], seconds: number): number {
  let low = 0;
  let high = curve.length; // first index whose step starts after `seconds`
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (curve[mid]!.seconds <= seconds) low = mid + 1;
    else high = mid;
  }
  return low === 0 ? 0 : curve[low - 1]!.score;
}
