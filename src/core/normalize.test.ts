import { describe, expect, test } from "vitest";
import { normalize } from "./normalize.js";

describe("normalize()", () => {
  test("maps start to 0 and reference to 1 when higher is better", () => {
    const c = { start: 0.2, reference: 0.8 };
    expect(normalize(0.2, c)).toBe(0);
    expect(normalize(0.8, c)).toBeCloseTo(1, 12);
    expect(normalize(0.5, c)).toBeCloseTo(0.5, 12);
  });

  test("works unchanged when lower is better (ln ms of the kernel task)", () => {
    const c = { start: 1.5535302804958044, reference: 0.4700036292457356 };
    expect(normalize(c.start, c)).toBe(0);
    expect(normalize(c.reference, c)).toBeCloseTo(1, 12);
    // 0.64 ms, the best agent's kernel: about 1.8 normalized, as in the paper.
    expect(normalize(Math.log(0.64), c)).toBeCloseTo(1.8458, 3);
  });

  test("floors scores worse than the start at 0 in both directions", () => {
    expect(normalize(0.1, { start: 0.2, reference: 0.8 })).toBe(0);
    expect(normalize(3, { start: 2, reference: 1 })).toBe(0);
  });

  test("does not cap scores above the reference", () => {
    expect(normalize(1.4, { start: 0.2, reference: 0.8 })).toBeCloseTo(2, 12);
    expect(normalize(0, { start: 2, reference: 1 })).toBeCloseTo(2, 12);
  });

  test("refuses non-finite raw scores and equal constants", () => {
    expect(() => normalize(Number.NaN, { start: 0, reference: 1 })).toThrow(/non-finite/);
    expect(() => normalize(1, { start: 1, reference: 1 })).toThrow(/equal/);
  });
});
