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
  const m = usable.length;
  // One block of R values per k, each block the Map's value for its k.
  const flat = new Float64Array(m * replicates);
  const out = new Map<number, Float64Array>(usable.map((k, j) => [k, flat.subarray(j * replicates, (j + 1) * replicates)]));
  if (m === 0 || replicates === 0) return out;
  const xs = Float64Array.from(sortedScores);
  const drawn = scratch(replicates * n);
  random.fillIndices(drawn, n);
  if (method === "mean") {
    meanReplicates(drawn, xs, replicates, flat);
    for (let j = 1; j < m; j++) flat.copyWithin(j * replicates, 0, replicates);
    return out;
  }
  // prefix[j·(n+1) + p] = sum of the weights of sorted positions < p, for the j-th k.
  const prefix = new Float64Array(m * (n + 1));
  for (let j = 0; j < m; j++) {
    const w = scoreAtKWeights(n, usable[j]!);
    for (let p = 0; p < n; p++) prefix[j * (n + 1) + p + 1] = prefix[j * (n + 1) + p]! + w[p]!;
  }
  maxReplicates(drawn, xs, prefix, m, replicates, flat);
  return out;
}

// The two loops where a report spends its time, kept small, of typed arrays and numbers only: V8 optimizes
// them in a few milliseconds and never has to drop the optimized code (a larger function with closures,
// Maps and both methods took 50-100 ms of compiler time, twice, in every report).

/**
 * Best-of-k of each replicate, for m values of k: into out[j·R + r]. A replicate counts its draws per sorted
 * position, lists the positions drawn (score, start of its block) and sums over that list once per k, each
 * sum adding the same terms in the same order as a walk over every position would.
 */
function maxReplicates(drawn: Uint32Array, xs: Float64Array, prefix: Float64Array, m: number, replicates: number, out: Float64Array): void {
  const n = xs.length;
  const counts = new Uint32Array(n);
  const values = new Float64Array(n);
  const starts = new Uint32Array(n + 1);
  for (let r = 0, q = 0; r < replicates; r++) {
    for (let j = 0; j < n; j++) counts[drawn[q++]!]! += 1;
    let d = 0;
    let at = 0;
    for (let i = 0; i < n; i++) {
      const c = counts[i]!;
      if (c === 0) continue;
      counts[i] = 0;
      values[d] = xs[i]!;
      starts[d++] = at;
      at += c;
    }
    starts[d] = at;
    for (let j = 0, base = 0; j < m; j++, base += n + 1) {
      let total = 0;
      for (let t = 0; t < d; t++) total += values[t]! * (prefix[base + starts[t + 1]!]! - prefix[base + starts[t]!]!);
      out[j * replicates + r] = total;
    }
  }
}

/** The mean of each replicate: into out[r]. */
function meanReplicates(drawn: Uint32Array, xs: Float64Array, replicates: number, out: Float64Array): void {
  const n = xs.length;
  const counts = new Uint32Array(n);
  for (let r = 0, q = 0; r < replicates; r++) {
    for (let j = 0; j < n; j++) counts[drawn[q++]!]! += 1;
    let sum = 0;
    for (let i = 0; i < n; i++) {
      const c = counts[i]!;
      if (c === 0) continue;
      counts[i] = 0;
      sum += c * xs[i]!;
    }
    out[r] = sum / n;
  }
}

// One reusable buffer for the draws: a report bootstraps hundreds of groups, and a fresh large typed
// array per group would only feed the garbage collector. Safe because the function never yields.
let buffer = new Uint32Array(0);
function scratch(length: number): Uint32Array {
  if (buffer.length < length) buffer = new Uint32Array(Math.max(length, buffer.length * 2));
  return buffer.subarray(0, length);
}
