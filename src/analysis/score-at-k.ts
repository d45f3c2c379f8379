/**
 * @module
 * score@k: what a participant scores on one environment when it may make k runs and keep the best,
 * estimated from its n recorded runs without extrapolating. Environments whose score is invisible while
 * working (Scaling Law) take the mean of the k runs instead, whose expectation is the mean of all runs.
 */
import { scoreAtKWeights } from "./score-at-k-weights.js";

export interface ScoreAtKOptions {
  /**
   * `max`: the unbiased expected maximum of k runs drawn without replacement (best-of-k).
   * `mean`: the expected mean of k runs, that is the mean of all runs (Scaling Law).
   * Default `max`.
   */
  method?: "max" | "mean";
  /** Set when `scores` is already sorted ascending, to skip the sort. Default false. */
  sorted?: boolean;
}

/** score@k of `scores`, or null (missing) when there are fewer than k runs. Requires an integer k ≥ 1. */
export function scoreAtK(scores: readonly number[], k: number, options: ScoreAtKOptions = {}): number | null {
  const { method = "max", sorted = false } = options;
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`score@k needs an integer k >= 1, got ${k}`);
  const n = scores.length;
  if (n < k) return null;
  if (method === "mean") return scores.reduce((sum, x) => sum + x, 0) / n;
  const xs = sorted ? scores : [...scores].sort((a, b) => a - b);
  const weights = scoreAtKWeights(n, k);
  let sum = 0;
  for (let i = k - 1; i < n; i++) sum += xs[i]! * weights[i]!;
  return sum;
}
