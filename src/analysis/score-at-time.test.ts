import { describe, expect, test } from "vitest";
import type { ScoreOutcome } from "../core/index.js";
import { scoreAtTime } from "./score-at-time.js";
import { scoreCurve } from "./score-curve.js";

const at = (elapsedSeconds: number, outcome: ScoreOutcome) => ({ elapsedSeconds, outcome });
const s = (value: number): ScoreOutcome => ({ kind: "scored", value });
const invalid: ScoreOutcome = { kind: "invalid", reason: "wrong output" };
// Lower is better (ln ms): start 2 → 0, reference 1 → 1.
const kernel = { aggregation: "min" as const, normalization: { start: 2, reference: 1 } };
// Higher is better, last valid entry counts (Scaling Law): start 0.2 → 0, reference 0.8 → 1.
const scaling = { aggregation: "last" as const, normalization: { start: 0.2, reference: 0.8 } };

describe("scoreAtTime()", () => {
  const log = [at(60, s(1.5)), at(120, invalid), at(300, s(1.8)), at(600, s(0.5)), at(900, { kind: "timedOut", afterSeconds: 20 })];

  test("is 0 before the first valid entry", () => {
    expect(scoreAtTime(log, 0, kernel)).toBe(0);
    expect(scoreAtTime(log, 59.9, kernel)).toBe(0);
    expect(scoreAtTime([at(10, invalid)], 100, kernel)).toBe(0);
  });

  test("is the best valid score logged at or before t, normalized, for lower-is-better scores", () => {
    expect(scoreAtTime(log, 60, kernel)).toBeCloseTo(0.5, 12);
    expect(scoreAtTime(log, 400, kernel)).toBeCloseTo(0.5, 12); // 1.8 is worse than 1.5
    expect(scoreAtTime(log, 600, kernel)).toBeCloseTo(1.5, 12); // uncapped above the reference
    expect(scoreAtTime(log, 10_000, kernel)).toBeCloseTo(1.5, 12);
  });

  test("takes the last valid score for Scaling Law, even when it is worse", () => {
    const guesses = [at(100, s(0.5)), at(200, s(0.35)), at(300, invalid)];
    expect(scoreAtTime(guesses, 150, scaling)).toBeCloseTo(0.5, 12);
    expect(scoreAtTime(guesses, 300, scaling)).toBeCloseTo(0.25, 12);
  });

  test("clamps scores worse than the starting solution to 0", () => {
    expect(scoreAtTime([at(5, s(3))], 10, kernel)).toBe(0);
  });

  test("reads an out-of-order log by elapsed time", () => {
    expect(scoreAtTime([at(600, s(1)), at(60, s(1.5))], 300, kernel)).toBeCloseTo(0.5, 12);
  });
});

describe("scoreCurve()", () => {
  test("has a step only where the score changes", () => {
    const log = [at(10, s(1.5)), at(20, s(1.6)), at(30, s(1.5)), at(40, s(1.25)), at(40, s(1.0))];
    expect(scoreCurve(log, kernel)).toEqual([
      { seconds: 10, score: 0.5 },
      { seconds: 40, score: 1 },
    ]);
  });
});
