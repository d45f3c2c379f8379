import { describe, expect, test } from "vitest";
import { quantile, quantileOfUnsorted } from "./quantile.js";
import { seededRandom } from "./seeded-random.js";

describe("quantileOfUnsorted()", () => {
  test("equals quantile() of the sorted values, to the bit, with ties and any length", () => {
    const random = seededRandom(3, "quantile");
    for (let trial = 0; trial < 300; trial++) {
      const n = 1 + Math.floor(random.next() * 1200);
      const distinct = 1 + Math.floor(random.next() * 50);
      const values = Float64Array.from({ length: n }, () => (trial % 2 ? Math.floor(random.next() * distinct) / distinct - 0.3 : random.next()));
      const sorted = Float64Array.from(values).sort();
      for (const p of [0, 0.025, 0.5, 0.975, 1, random.next()]) {
        expect(Object.is(quantileOfUnsorted(Float64Array.from(values), p), quantile(sorted, p)), `n=${n} p=${p}`).toBe(true);
      }
    }
  });

  test("rejects what quantile() rejects", () => {
    expect(() => quantileOfUnsorted(new Float64Array(0), 0.5)).toThrow(RangeError);
    expect(() => quantileOfUnsorted(Float64Array.of(1), 1.5)).toThrow(RangeError);
  });
});
