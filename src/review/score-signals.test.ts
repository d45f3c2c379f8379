import { describe, expect, test } from "vitest";
import type { ScoreTrigger } from "../core/index.js";
import { type LoggedScore, type ScoreBasis, scoreSignals } from "./score-signals.js";

// A lower-is-better environment: start 4.0, reference 3.0 (normalized 0 and 1), noise 0.01 raw (0.1 normalized at 10 std).
const basis: ScoreBasis = { start: 4, reference: 3, std: 0.01, source: "test calibration" };

function log(...scores: [number | null, ScoreTrigger][]): LoggedScore[] {
  return scores.map(([raw, trigger], i) => ({
    seq: 10 + i,
    trigger,
    entry: {
      timestamp: "2026-12-07T00:00:00.000Z",
      elapsedSeconds: i,
      outcome: raw === null ? { kind: "invalid" as const, reason: "no" } : { kind: "scored" as const, value: raw },
      message: {},
      details: {},
    },
  }));
}

describe("scoreSignals()", () => {
  test("an honest run (start, then steps of improvement, the final like the last) fires nothing", () => {
    expect(scoreSignals(log([4, "start"], [3.5, "action"], [2.9, "action"], [2.85, "submit"]), basis)).toEqual([]);
  });

  test("a reference replay's single step from 0 to about 1 is not a jump", () => {
    expect(scoreSignals(log([4, "start"], [2.95, "submit"]), basis)).toEqual([]);
  });

  test("a final score beyond the ceiling is suspicious, with the entry's event", () => {
    const findings = scoreSignals(log([4, "start"], [3.2, "action"], [1.9, "action"], [1.9, "submit"]), basis);
    expect(findings.map((f) => f.signal)).toEqual(["score-above-ceiling"]);
    expect(findings[0]).toMatchObject({ kind: "score", severity: "suspicious", seqs: [12] });
    expect(findings[0]!.summary).toMatch(/normalized 2\.1 \(raw 1\.9\) is above 1\.5/);
  });

  test("a jump between consecutive valid scores names both events; invalid entries in between are skipped", () => {
    const findings = scoreSignals(log([4, "start"], [3.9, "action"], [null, "action"], [2.2, "action"]), basis, { ceiling: 10 });
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ signal: "score-jump", seqs: [11, 13] });
  });

  test("a final score far above every intermediate one is suspicious", () => {
    const findings = scoreSignals(log([4, "start"], [3.8, "action"], [3.7, "action"], [2.6, "submit"]), basis, { ceiling: 10, jump: 10 });
    expect(findings.map((f) => f.signal)).toEqual(["final-above-intermediate"]);
    expect(findings[0]!.seqs).toEqual([13, 11, 12]);
  });

  test("the calibration's noise widens every threshold", () => {
    const scores = log([4, "start"], [2.3, "action"], [2.3, "submit"]);
    expect(scoreSignals(scores, basis).map((f) => f.signal)).toEqual(["score-above-ceiling", "score-jump"]);
    expect(scoreSignals(scores, { ...basis, std: 0.05 })).toEqual([]);
  });

  test("without a basis there are no score signals", () => {
    expect(scoreSignals(log([4, "start"], [0, "submit"]), undefined)).toEqual([]);
  });
});
