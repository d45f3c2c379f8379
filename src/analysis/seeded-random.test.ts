import { describe, expect, test } from "vitest";
import { seededRandom } from "./seeded-random.js";

describe("seededRandom()", () => {
  test("the same seed and stream give the same numbers; another seed or stream gives others", () => {
    const draw = (seed: number, stream: string) => {
      const random = seededRandom(seed, stream);
      const indices = new Uint32Array(50);
      random.fillIndices(indices, 1000);
      return [...Array.from({ length: 5 }, () => random.next()), ...indices];
    };
    expect(draw(1, "a")).toEqual(draw(1, "a"));
    expect(draw(1, "a")).not.toEqual(draw(2, "a"));
    expect(draw(1, "a")).not.toEqual(draw(1, "b"));
  });

  test("next() stays in [0, 1) with a mean near 1/2", () => {
    const random = seededRandom(3);
    let sum = 0;
    for (let i = 0; i < 100_000; i++) {
      const u = random.next();
      expect(u >= 0 && u < 1).toBe(true);
      sum += u;
    }
    expect(sum / 100_000).toBeCloseTo(0.5, 2);
  });

  test("fillIndices() draws every integer in [0, n) equally often, for small, odd and large n", () => {
    for (const n of [1, 7, 1000, 100_003]) {
      const draws = new Uint32Array(n === 100_003 ? 2_000_000 : 700_000);
      seededRandom(5, `n${n}`).fillIndices(draws, n);
      const counts = new Float64Array(n);
      for (const d of draws) counts[d]! += 1;
      expect(draws.reduce((m, d) => Math.max(m, d), 0)).toBeLessThan(n);
      const expected = draws.length / n;
      // Chi-square statistic over n − 1 degrees of freedom: mean n − 1, sd sqrt(2(n − 1)); allow 5 sd.
      const chi = counts.reduce((acc, c) => acc + (c - expected) ** 2 / expected, 0);
      expect(chi, `n = ${n}`).toBeLessThan(n - 1 + 5 * Math.sqrt(2 * Math.max(1, n - 1)) + 1);
    }
  });

  test("fillIndices() rejects n outside [1, 2^32)", () => {
    expect(() => seededRandom(1).fillIndices(new Uint32Array(1), 0)).toThrow(RangeError);
  });
});
