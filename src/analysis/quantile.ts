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

/**
 * What `quantile` gives for `values` sorted, without sorting them: the two order statistics it interpolates,
 * found by selection (O(n); `values` is reordered). A bootstrap interval needs two quantiles of 1,000
 * values, ~60 times a report, and sorting them was a tenth of the analysis.
 */
export function quantileOfUnsorted(values: Float64Array, p: number): number {
  const n = values.length;
  if (n === 0) throw new RangeError("quantile of an empty sample");
  if (!(p >= 0 && p <= 1)) throw new RangeError(`quantile needs 0 <= p <= 1, got ${p}`);
  const position = p * (n - 1);
  const low = Math.floor(position);
  const fraction = position - low;
  const lower = select(values, low);
  if (low + 1 >= n) return lower;
  // After selecting rank `low`, everything to its right is at least as large: rank low + 1 is their minimum.
  let upper = values[low + 1]!;
  for (let i = low + 2; i < n; i++) if (values[i]! < upper) upper = values[i]!;
  return lower + (upper - lower) * fraction;
}

/** The k-th smallest of `xs` (0-based), moved to xs[k] with nothing larger before it and nothing smaller after. */
function select(xs: Float64Array, k: number): number {
  let left = 0;
  let right = xs.length - 1;
  while (right > left) {
    // Hoare partition around the median of three.
    const middle = (left + right) >>> 1;
    const a = xs[left]!;
    const b = xs[middle]!;
    const c = xs[right]!;
    const pivot = Math.max(Math.min(a, b), Math.min(Math.max(a, b), c));
    let i = left;
    let j = right;
    while (i <= j) {
      while (xs[i]! < pivot) i++;
      while (xs[j]! > pivot) j--;
      if (i <= j) {
        const t = xs[i]!;
        xs[i++] = xs[j]!;
        xs[j--] = t;
      }
    }
    if (k <= j) right = j;
    else if (k >= i) left = i;
    else return xs[k]!;
  }
  return xs[k]!;
}
