/**
 * @module
 * The weights of the unbiased expected maximum of k of n (without replacement): with scores sorted
 * ascending, `E[max] = Σᵢ xᵢ · C(i−1, k−1) / C(n, k)`. Computed by a ratio recurrence from the top
 * (`wₙ = k/n`, `wᵢ₋₁ = wᵢ · (i−k)/(i−1)`), so nothing overflows for n in the thousands: the weights only
 * shrink going down and the ones that underflow are negligible next to the rest.
 */

/** Weights for ascending positions 1..n (index 0..n−1); all zero below position k. Requires 1 ≤ k ≤ n. */
export function scoreAtKWeights(n: number, k: number): Float64Array {
  if (!Number.isInteger(n) || !Number.isInteger(k) || k < 1 || k > n) {
    throw new RangeError(`score@k weights need integers 1 <= k <= n, got n=${n}, k=${k}`);
  }
  const weights = new Float64Array(n);
  let w = k / n; // C(n−1, k−1) / C(n, k)
  for (let i = n; i >= k; i--) {
    weights[i - 1] = w;
    w = (w * (i - k)) / (i - 1);
  }
  return weights;
}
