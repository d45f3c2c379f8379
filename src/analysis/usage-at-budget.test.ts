import { describe, expect, test } from "vitest";
import { makeRun } from "./testing/make-run.js";
import { usageAtBudget } from "./usage-at-budget.js";

describe("usageAtBudget()", () => {
  const runs = [
    makeRun("a", "optimize_kernel", 1800, 0.1, { tokens: 100, dollars: 1, workingSeconds: 1800, scoreCalls: 30 }),
    makeRun("a", "optimize_kernel", 1800, 0.2, { tokens: 300, dollars: 3, workingSeconds: 1800, scoreCalls: 10 }),
    makeRun("a", "fix_embedding", 1800, 0.3, { tokens: 1000, dollars: 10, workingSeconds: 900, scoreCalls: 5 }),
    makeRun("a", "rust_codecontests", 1800, 0.3, { tokens: 5000, dollars: 50, workingSeconds: 1800, scoreCalls: 100 }),
  ];

  test("is k times the mean per-run use, averaged over the covered environments", () => {
    const usage = usageAtBudget(runs, 4, ["optimize_kernel", "fix_embedding"]);
    expect(usage.tokens).toBe((4 * (200 + 1000)) / 2);
    expect(usage.dollars).toBe((4 * (2 + 10)) / 2);
    expect(usage.hours).toBeCloseTo((4 * (0.5 + 0.25)) / 2, 12);
    expect(usage.runs).toBe(3);
  });

  test("score calls per hour pool calls and working time over the runs used", () => {
    expect(usageAtBudget(runs, 1, ["optimize_kernel", "fix_embedding"]).scoreCallsPerHour).toBeCloseTo(45 / 1.25, 12);
  });

  test("a rate over less than a minute of working time is unknown, not millions an hour", () => {
    const instant = [makeRun("s", "optimize_kernel", 1800, 0, { workingSeconds: 0.001, scoreCalls: 1 })];
    expect(usageAtBudget(instant, 1, ["optimize_kernel"]).scoreCallsPerHour).toBeNull();
    const minute = [makeRun("s", "optimize_kernel", 1800, 0, { workingSeconds: 60, scoreCalls: 1 })];
    expect(usageAtBudget(minute, 1, ["optimize_kernel"]).scoreCallsPerHour).toBe(60);
  });

  test("unknown usage stays unknown rather than zero", () => {
    const bare = [makeRun("h", "optimize_kernel", 28800, 0.5, { workingSeconds: 28800 })];
    expect(usageAtBudget(bare, 1, ["optimize_kernel"])).toEqual({ tokens: null, dollars: null, hours: 8, scoreCallsPerHour: null, byKind: null, runs: 1 });
  });

  test("tokens and dollars by kind are averaged like the totals, over the runs that record them", () => {
    const kinds = (input: number, usd: number | null) => ({
      byKind: {
        input,
        cacheRead: 10 * input,
        cacheWrite: input / 2,
        output: input / 4,
        reasoning: input / 8,
        dollars: usd === null ? null : { input: usd, cacheRead: usd, cacheWrite: usd, output: usd },
      },
    });
    const priced = [
      makeRun("a", "optimize_kernel", 1800, 0.1, kinds(800, 1)),
      makeRun("a", "optimize_kernel", 1800, 0.2, kinds(1600, 3)),
      makeRun("a", "fix_embedding", 1800, 0.3, kinds(400, 2)),
      makeRun("a", "fix_embedding", 1800, 0.3),
    ];
    const usage = usageAtBudget(priced, 2, ["optimize_kernel", "fix_embedding"]);
    expect(usage.byKind).toEqual({
      input: (2 * (1200 + 400)) / 2,
      cacheRead: (2 * (12000 + 4000)) / 2,
      cacheWrite: 1600 / 2,
      output: 800 / 2,
      reasoning: 400 / 2,
      dollars: { input: 4, cacheRead: 4, cacheWrite: 4, output: 4 },
    });
    const unpriced = [...priced, makeRun("a", "fix_embedding", 1800, 0.3, kinds(400, null))];
    expect(usageAtBudget(unpriced, 2, ["optimize_kernel", "fix_embedding"]).byKind?.dollars).toBeNull();
  });
});
