import { describe, expect, test } from "vitest";
import { scoreAtK } from "./score-at-k.js";
import { seededRandom } from "./seeded-random.js";
import { bruteForceScoreAtK } from "./testing/brute-force.js";

/** C(n, k) exactly. */
function binomial(n: number, k: number): bigint {
  let c = 1n;
  for (let i = 1; i <= k; i++) c = (c * BigInt(n - k + i)) / BigInt(i);
  return c;
}

/** The expected max with exact integer binomials: Σ xᵢ C(i−1,k−1) / C(n,k), scaled to keep 40 digits. */
function exactScoreAtK(sortedScaledIntegers: readonly bigint[], k: number, scale: number): number {
  const n = sortedScaledIntegers.length;
  let numerator = 0n;
  sortedScaledIntegers.forEach((x, i) => {
    if (i + 1 >= k) numerator += x * binomial(i, k - 1);
  });
  const digits = 10n ** 40n;
  return Number((numerator * digits) / binomial(n, k)) / Number(digits) / scale;
}

describe("scoreAtK()", () => {
  test("equals brute-force enumeration of every k-subset on small cases, ties included", () => {
    const cases: number[][] = [
      [0.3],
      [0.5, 0.5],
      [0, 1, 0.25],
      [0.2, 0.2, 0.2, 0.9],
      [1.8, 0, 0, 0.4, 0.4, 1.1],
      [0.7, 0.1, 0.7, 0.3, 0.7, 0, 1.2],
      [0, 0, 0, 0, 0],
    ];
    for (const scores of cases) {
      for (let k = 1; k <= scores.length; k++) {
        expect(scoreAtK(scores, k)).toBeCloseTo(bruteForceScoreAtK(scores, k)!, 12);
      }
    }
  });

  test("equals brute force on 200 random samples with n up to 10", () => {
    const random = seededRandom(7, "score-at-k");
    for (let trial = 0; trial < 200; trial++) {
      const n = 1 + Math.floor(random.next() * 10);
      // Round to a coarse grid so ties are common.
      const scores = Array.from({ length: n }, () => Math.round(random.next() * 8) / 4);
      const k = 1 + Math.floor(random.next() * n);
      expect(scoreAtK(scores, k)).toBeCloseTo(bruteForceScoreAtK(scores, k)!, 12);
    }
  });

  test("k = 1 is the mean and k = n is the maximum", () => {
    const scores = [0.4, 1.3, 0, 0.9];
    expect(scoreAtK(scores, 1)).toBeCloseTo(2.6 / 4, 14);
    expect(scoreAtK(scores, 4)).toBe(1.3);
  });

  test("an environment with fewer than k runs is missing, never extrapolated", () => {
    expect(scoreAtK([0.5, 0.7], 3)).toBeNull();
    expect(scoreAtK([], 1)).toBeNull();
    expect(scoreAtK([0.5, 0.7], 3, { method: "mean" })).toBeNull();
  });

  test("all-zero runs score exactly 0 for every k", () => {
    for (let k = 1; k <= 6; k++) expect(scoreAtK([0, 0, 0, 0, 0, 0], k)).toBe(0);
  });

  test("the mean method (Scaling Law) is the mean of all runs for every k ≤ n, as brute force says", () => {
    const scores = [0.2, 0.9, 0.4, 0.4, 0];
    for (let k = 1; k <= 5; k++) {
      expect(scoreAtK(scores, k, { method: "mean" })).toBeCloseTo(bruteForceScoreAtK(scores, k, "mean")!, 14);
    }
  });

  test("unsorted input gives the same value as sorted input", () => {
    expect(scoreAtK([0.9, 0.1, 0.5], 2)).toBe(scoreAtK([0.1, 0.5, 0.9], 2, { sorted: true }));
  });

  test("stays exact for n in the hundreds, where C(n, k) overflows a double", () => {
    const random = seededRandom(3, "large");
    const n = 1200; // C(1200, 600) ≈ 10^359, beyond Number.MAX_VALUE
    const integers = Array.from({ length: n }, () => BigInt(Math.floor(random.next() * 2000))).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const scores = integers.map((x) => Number(x) / 1000);
    for (const k of [1, 2, 16, 64, 300, 600, 1199, 1200]) {
      const value = scoreAtK(scores, k, { sorted: true })!;
      expect(Number.isFinite(value)).toBe(true);
      expect(value).toBeCloseTo(exactScoreAtK(integers, k, 1000), 10);
    }
  });

  test("rejects k that is not a positive integer", () => {
    expect(() => scoreAtK([1, 2], 0)).toThrow(RangeError);
    expect(() => scoreAtK([1, 2], 1.5)).toThrow(RangeError);
  });
});
