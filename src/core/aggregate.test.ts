import { describe, expect, test } from "vitest";
import { aggregateScoreLog } from "./aggregate.js";
import type { ScoreOutcome } from "./score.js";

const log = (...outcomes: ScoreOutcome[]) => outcomes.map((outcome) => ({ outcome }));
const s = (value: number): ScoreOutcome => ({ kind: "scored", value });
const invalid: ScoreOutcome = { kind: "invalid", reason: "wrong output" };
const timedOut: ScoreOutcome = { kind: "timedOut", afterSeconds: 20 };
const error: ScoreOutcome = { kind: "error", message: "grader crashed" };

describe("aggregateScoreLog()", () => {
  test("min picks the lowest valid entry", () => {
    expect(aggregateScoreLog(log(s(3), s(1), s(2)), "min")).toEqual({ kind: "scored", raw: 1, index: 1 });
  });

  test("max picks the highest valid entry", () => {
    expect(aggregateScoreLog(log(s(3), s(5), s(2)), "max")).toEqual({ kind: "scored", raw: 5, index: 1 });
  });

  test("last picks the last valid entry, skipping later invalid ones", () => {
    expect(aggregateScoreLog(log(s(3), s(1), invalid, timedOut), "last")).toEqual({ kind: "scored", raw: 1, index: 1 });
  });

  test("invalid, timed-out and failed entries never win, even where they would sort first", () => {
    expect(aggregateScoreLog(log(invalid, s(4), error, timedOut), "min")).toEqual({ kind: "scored", raw: 4, index: 1 });
    expect(aggregateScoreLog(log(s(-1), invalid, s(0.5)), "max")).toEqual({ kind: "scored", raw: 0.5, index: 2 });
  });

  test("a log with no valid entry has no score, not a number", () => {
    expect(aggregateScoreLog(log(invalid, timedOut, error), "min")).toEqual({ kind: "noScore", entries: 3 });
    expect(aggregateScoreLog([], "max")).toEqual({ kind: "noScore", entries: 0 });
    expect(aggregateScoreLog([], "last")).toEqual({ kind: "noScore", entries: 0 });
  });

  test("ties keep the earliest entry for min and max", () => {
    expect(aggregateScoreLog(log(s(2), s(2)), "min")).toEqual({ kind: "scored", raw: 2, index: 0 });
    expect(aggregateScoreLog(log(s(2), s(2)), "last")).toEqual({ kind: "scored", raw: 2, index: 1 });
  });
});
