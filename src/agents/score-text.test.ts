import { describe, expect, test } from "vitest";
import type { ScoreView } from "../core/index.js";
import { scoreLogText, scoreText } from "./score-text.js";

const view: ScoreView = { timestamp: "2026-12-01T00:00:00.000Z", elapsedSeconds: 30, outcome: "scored", score: -2.93125, message: { ms: 53 } };

describe("scoreText()", () => {
  test("gives the value, which way is better and the grader's message on one line", () => {
    expect(scoreText(view, "min")).toBe('score -2.93125 (lower is better)  {"ms":53}');
  });

  test("puts rebench's notice about a contended scoring on a line of its own, for agents and the human shell alike", () => {
    const noted = { ...view, notice: "other work used 1.3 of 2 CPUs of this machine while this was scored" };
    expect(scoreText(noted, "min")).toBe(
      'score -2.93125 (lower is better)  {"ms":53}\nnote: other work used 1.3 of 2 CPUs of this machine while this was scored',
    );
    expect(scoreLogText([noted], "min")).toMatch(/^1\. at 30 s: score -2\.93125 .*\nnote: other work used 1\.3 of 2 CPUs/);
  });
});
