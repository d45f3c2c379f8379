/**
 * @module
 * Bootstrap replicates of score@k for one environment: resample its n runs with replacement, recompute
 * score@k. Because the scores are sorted once, a resample is a histogram of drawn positions expanded in
 * order (already sorted, no sort per replicate), and the score@k weights of a size-n sample are computed
 * once per k, so each replicate costs O(n) per k.
 */
import type { RandomSource } from "./seeded-random.js";
import { scoreAtKWeights } from "./score-at-k-weights.js";

export interface BootstrapScoreAtKOptions {
  /** How many resamples. */
  replicates: number;
  random: RandomSource;
  /** As in `scoreAtK`: `max` (best-of-k, default) or `mean` (Scaling Law). */
  method?: "max" | "mean";
}

/**
 * For each k in `ks` with k ≤ n, the score@k of every replicate (in replicate order). `sortedScores`
 * must be ascending. Draws the same resamples for every k, so it costs one set of draws per call.
 */
export function bootstrapScoreAtK(
  sortedScores: ArrayLike<number>,
  ks: readonly number[],
  options: BootstrapScoreAtKOptions,
): Map<number, Float64Array> {
  const { replicates, random, method = "max" } = options;
  const n = sortedScores.length;
  const usable = [...new Set(ks)].filter((k) => k >= 1 && k <= n);
  const out = new Map<number, Float64Array>(usable.map((k) => [k, new Float64Array(replicates)]));
  if (usable.length === 0) return out;
  const weights = usable.map((k) => (method === "mean" ? undefined : scoreAtKWeights(n, k)));
  const series = usable.map((k) => out.get(k)!);
  const counts = new Uint32Array(n);
  const sample = new Float64Array(n);
  for (let r = 0; r < replicates; r++) {
    counts.fill(0);
    for (let j = 0; j < n; j++) counts[Math.floor(random() * n)]! += 1;
    let at = 0;
    let sum = 0;
    for (let i = 0; i < n; i++) {
      const x = sortedScores[i]!;
      for (let c = counts[i]!; c > 0; c--) sample[at++] = x;
      sum += counts[i]! * x;
    }
    for (let m = 0; m < usable.length; m++) {
      const w = weights[m];
      if (w === undefined) {
        series[m]![r] = sum / n;
        continue;
      }
      let total = 0;
      for (let i = usable[m]! - 1; i < n; i++) total += sample[i]! * w[i]!;
      series[m]![r] = total;
    }
  }
  return out;
}
