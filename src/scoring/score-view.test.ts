import { describe, expect, test } from "vitest";
import type { Manifest, ScoreLogEntry } from "../core/index.js";
import { HIDDEN, scoreView, scoreVisible } from "./score-view.js";

const entry = (outcome: ScoreLogEntry["outcome"], message: Record<string, unknown> = {}): ScoreLogEntry => ({
  timestamp: "2026-11-29T12:00:00.000Z",
  elapsedSeconds: 42,
  outcome,
  message,
  details: { secret: "reference output" },
});

const manifest = (visibleToAgent: boolean) =>
  ({ scoring: { direction: "min", aggregation: "min", visibleToAgent, scoreOnUsageLimits: true, logsStartingScore: false } }) as Manifest;

describe("scoreView()", () => {
  test("a visible score shows the value and the message, never the details", () => {
    const view = scoreView(entry({ kind: "scored", value: 1.25 }, { time_ms: 3.49 }), true);
    expect(view).toEqual({ timestamp: "2026-11-29T12:00:00.000Z", elapsedSeconds: 42, outcome: "scored", score: 1.25, message: { time_ms: 3.49 } });
  });

  test("a hidden score carries no value, and a message number equal to it is blanked", () => {
    const view = scoreView(entry({ kind: "scored", value: 1.25 }, { valid: true, leaked: 1.25, nested: [{ again: 1.25 }, 2] }), false);
    expect(view).not.toHaveProperty("score");
    expect(view.message).toEqual({ valid: true, leaked: HIDDEN, nested: [{ again: HIDDEN }, 2] });
    expect(JSON.stringify(view)).not.toMatch(/1\.25/);
  });

  test("entries that are not scores say why, hidden or not", () => {
    expect(scoreView(entry({ kind: "invalid", reason: "wrong output" }), false)).toMatchObject({ outcome: "invalid", reason: "wrong output" });
    expect(scoreView(entry({ kind: "timedOut", afterSeconds: 600 }), true)).toMatchObject({ outcome: "timedOut", reason: "scoring took longer than 600 s" });
    expect(scoreView(entry({ kind: "error", message: "the grader exited with code 1" }), true)).toMatchObject({
      outcome: "error",
      reason: "the grader exited with code 1",
    });
  });
});

describe("scoreVisible()", () => {
  test("hidden for hidden_score and for environments that hide their score", () => {
    expect(scoreVisible(manifest(true), "main")).toBe(true);
    expect(scoreVisible(manifest(true), "hidden_score")).toBe(false);
    expect(scoreVisible(manifest(false), "main")).toBe(false);
  });
});
