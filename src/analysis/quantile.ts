/**
 * @module
 * Quantiles of a sorted sample with linear interpolation between order statistics (numpy's default,
 * `method="linear"`), so bootstrap intervals can be checked against a numpy pipeline.
 */

/** The p-quantile (0 ≤ p ≤ 1) of `sorted` (ascending, non-empty). */
export function quantile(sorted: ArrayLike<number>, p: number): number {
  const n = sorted.length;
  if (n === 0) throw new RangeError("quantile of an empty sample");
  if (!(p >= 0 && p <= 1)) throw new RangeError(`quantile needs 0 <= p <= 1, got ${p}`);
  const position = p * (n - 1);
  const low = Math.floor(position);
  const high = Math.min(low + 1, n - 1);
  const fraction = position - low;
  return sorted[low]! + (sorted[high]! - sorted[low]!) * fraction;
}
