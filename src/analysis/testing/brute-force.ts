/**
 * @module
 * Independent reference values for the analysis tests: the expected maximum (or mean) of k of n runs by
 * enumerating every k-subset, written as plainly as possible so it cannot share a bug with `scoreAtK`.
 */

/** Mean over all k-subsets of `scores` of their max (or mean). Exponential: small n only. */
export function bruteForceScoreAtK(scores: readonly number[], k: number, method: "max" | "mean" = "max"): number | null {
  if (k > scores.length) return null;
  let total = 0;
  let subsets = 0;
  const visit = (start: number, chosen: number[]) => {
    if (chosen.length === k) {
      total += method === "max" ? Math.max(...chosen) : chosen.reduce((a, b) => a + b, 0) / k;
      subsets += 1;
      return;
    }
    for (let i = start; i < scores.length; i++) visit(i + 1, [...chosen, scores[i]!]);
  };
  visit(0, []);
  return total / subsets;
}
