import { describe, expect, test } from "vitest";
import type { AnalysisRun } from "./analysis-run.js";
import { normalizedByNotes } from "./normalized-by-notes.js";

const run = (environment: string, variant: string | undefined, normalizedBy: string | undefined): AnalysisRun => ({
  id: `${environment}-${Math.random()}`,
  participant: "a",
  kind: "agent",
  environment,
  variant,
  task: "main",
  timeLimitSeconds: 1800,
  score: 0.5,
  ...(normalizedBy === undefined ? {} : { normalizedBy }),
  curve: undefined,
  usage: { tokens: null, dollars: null, workingSeconds: null, scoreCalls: null },
});

describe("normalizedByNotes()", () => {
  test("says, per environment variant, which entries normalized how many runs", () => {
    const epyc = "AMD EPYC, 2 cores, 2026-11-29, N=5";
    const xeon = "Intel Xeon, 2 cores, 2026-12-06, N=5";
    expect(
      normalizedByNotes([
        run("optimize_kernel", "mini", xeon),
        run("optimize_kernel", "mini", epyc),
        run("optimize_kernel", "mini", epyc),
        run("optimize_kernel", "paper", "paper"),
        run("fix_embedding", undefined, undefined),
      ]),
    ).toEqual([
      "fix_embedding/unknown normalized by unknown (1 run).",
      `optimize_kernel/mini normalized by ${epyc} (2 runs); ${xeon} (1 run).`,
      "optimize_kernel/paper normalized by paper (1 run).",
    ]);
    expect(normalizedByNotes([])).toEqual([]);
  });
});
