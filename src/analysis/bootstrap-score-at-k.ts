/**
 * @module
 * Bootstrap replicates of score@k for one environment: resample its n runs with replacement, recompute
 * score@k. The scores are sorted once, so a resample is just how often each sorted position was drawn:
 * a block of c copies of xᵢ starting at sorted position p adds xᵢ · (Wₚ₊c − Wₚ), with W the prefix sums
 * of the score@k weights of a size-n sample (computed once per k). No sort and no copy per replicate:
 * n draws and O(n) arithmetic per k.
 */

import { scoreAtKWeights } from "./score-at-k-weights.js";
import type { RandomSource } from "./seeded-random.js";

export interface BootstrapScoreAtKOptions {
  /** How many resamples. */
  replicates: number;
  random: RandomSource;
  /** As in `scoreAtK`: `max` (best-of-k, default) or `mean` (Scaling Law). */
  method?: "max" | "mean";
}

/**
 * For each k in `ks` with k ≤ n, the score@k of every replicate (in replicate order). `sortedScores`
 * must be ascending. Draws the same resamples for every k: one set of R·n draws per call.
 */
export function bootstrapScoreAtK(sortedScores: ArrayLike<number>, ks: readonly number[], options: BootstrapScoreAtKOptions): Map<number, Float64Array> {
  const { replicates, random, method = "max" } = options;
  const n = sortedScores.length;
  const usable = [...new Set(ks)].filter((k) => k >= 1 && k <= n);
  const out = new Map<number, Float64Array>(usable.map((k) => [k, new Float64Array(replicates)]));
  if (usable.length === 0 || replicates === 0) return out;
  const m = usable.length;
  // prefix[j·(n+1) + p] = sum of the weights of sorted positions < p, for the j-th k (unused for `mean`).
  const prefix = new Float64Array(m * (n + 1));
  if (method === "max") {
    usable.forEach((k, j) => {
      const w = scoreAtKWeights(n, k);
      for (let p = 0; p < n; p++) prefix[j * (n + 1) + p + 1] = prefix[j * (n + 1) + p]! + w[p]!;
    });
  }
  const series = usable.map((k) => out.get(k)!);
  const xs = Float64Array.from(sortedScores);
  const drawn = scratch(replicates * n);
  random.fillIndices(drawn, n);
  const counts = new Uint32Array(n);
  const totals = new Float64Array(m);
  for (let r = 0, q = 0; r < replicates; r++) {
    counts.fill(0);
    for (let j = 0; j < n; j++) counts[drawn[q++]!]! += 1;
    totals.fill(0);
    let at = 0;
    let sum = 0;
    for (let i = 0; i < n; i++) {
      const c = counts[i]!;
      if (c === 0) continue;
      const x = xs[i]!;
      sum += c * x;
      const end = at + c;
      if (method === "max") for (let j = 0, base = 0; j < m; j++, base += n + 1) totals[j]! += x * (prefix[base + end]! - prefix[base + at]!);
      at = end;
    }
    for (let j = 0; j < m; j++) series[j]![r] = method === "max" ? totals[j]! : sum / n;
  }
  return out;
}

// One reusable buffer for the draws: a report bootstraps hundreds of groups, and a fresh large typed
// array per group would only feed the garbage collector. Safe because the function never yields.
let buffer = new Uint32Array(0);
function scratch(length: number): Uint32Array {
  if (buffer.length < length) buffer = new Uint32Array(Math.max(length, buffer.length * 2));
  return buffer.subarray(0, length);
}
