import { describe, expect, test } from "vitest";
import type { RunEvent, RunSpec } from "./events.js";
import { type RunSummary, summarize } from "./run-summary.js";
import { budgetTokens, exceededLimit } from "./usage.js";

const spec: RunSpec = {
  participant: { kind: "agent", alias: "test-model", scaffold: "replay" },
  environment: "optimize_kernel",
  variant: "mini",
  task: "main",
  limits: { workingSeconds: 1800 },
  direction: "min",
  aggregation: "min",
  config: {},
};
const ts = (s: number) => new Date(Date.UTC(2026, 10, 29, 12, 0, s)).toISOString();

function fold(events: RunEvent[]): RunSummary {
  let summary: RunSummary | undefined;
  events.forEach((event, i) => {
    summary = summarize(summary, { runId: "r0000000001", seq: i + 1, event });
  });
  return summary!;
}

describe("summarize()", () => {
  test("sums the token kinds and the cost by kind; the split becomes unknown at the first priced generation without one", () => {
    const kinds = { cacheReadTokens: 5000, cacheWriteTokens: 300, cacheWrite1hTokens: 100, reasoningTokens: 15 };
    const split = { input: 0.001, cacheRead: 0.0015, cacheWrite: 0.0012, output: 0.0003 };
    const events: RunEvent[] = [
      { type: "run_created", ts: ts(0), spec },
      { type: "generation", ts: ts(1), model: "m", inputTokens: 10, outputTokens: 20, ...kinds, costUsd: 0.004, costByKind: split },
      { type: "generation", ts: ts(2), model: "m", inputTokens: 10, outputTokens: 20, ...kinds, costUsd: 0.004, costByKind: split },
    ];
    const summary = fold(events);
    expect(summary.usage).toMatchObject({
      inputTokens: 20,
      cacheReadTokens: 10_000,
      cacheWriteTokens: 600,
      cacheWrite1hTokens: 200,
      outputTokens: 40,
      reasoningTokens: 30,
      costUsd: 0.008,
    });
    expect(summary.usage.costByKind).toEqual({ input: 0.002, cacheRead: 0.003, cacheWrite: 0.0024, output: 0.0006 });
    // Every input kind and the output count against --tokens; the reasoning is inside the output.
    expect(budgetTokens(summary.usage)).toBe(20 + 10_000 + 600 + 40);
    expect(exceededLimit(summary.usage, { tokens: 10_660 })).toBe("tokens");
    expect(exceededLimit(summary.usage, { tokens: 10_661 })).toBeUndefined();
    const unpriced = fold([...events, { type: "generation", ts: ts(3), model: "replay", inputTokens: 1, outputTokens: 1, costUsd: 0.5 }]);
    expect(unpriced.usage.costByKind).toBeNull();
    expect(fold([...events, { type: "generation", ts: ts(3), model: "free", inputTokens: 1, outputTokens: 1, costUsd: 0 }]).usage.costByKind).not.toBeNull();
  });

  test("folds usage, state and the running aggregate of the score log", () => {
    const summary = fold([
      { type: "run_created", ts: ts(0), spec },
      { type: "state_changed", ts: ts(1), to: "running" },
      { type: "generation", ts: ts(2), model: "m", inputTokens: 100, outputTokens: 20, costUsd: 0.01 },
      { type: "action", ts: ts(3), actionId: "a1", tool: "score", input: {} },
      {
        type: "score_logged",
        ts: ts(4),
        trigger: "action",
        entry: { timestamp: ts(4), elapsedSeconds: 4, outcome: { kind: "scored", value: 2 }, message: {}, details: {} },
      },
      {
        type: "score_logged",
        ts: ts(5),
        trigger: "action",
        entry: { timestamp: ts(5), elapsedSeconds: 5, outcome: { kind: "invalid", reason: "wrong" }, message: {}, details: {} },
      },
      {
        type: "score_logged",
        ts: ts(6),
        trigger: "action",
        entry: { timestamp: ts(6), elapsedSeconds: 6, outcome: { kind: "scored", value: 1.5 }, message: {}, details: {} },
      },
      { type: "time_reported", ts: ts(7), wallSeconds: 7, workingSeconds: 5, pausedSeconds: 2 },
    ]);
    expect(summary.state).toBe("running");
    expect(summary.startedAt).toBe(ts(1));
    expect(summary.usage).toMatchObject({ inputTokens: 100, outputTokens: 20, costUsd: 0.01, actions: 1, workingSeconds: 5, pausedSeconds: 2 });
    expect(summary.scoreCalls).toBe(3);
    expect(summary.validScores).toBe(2);
    expect(summary.currentRaw).toBe(1.5);
    expect(summary.lastSeq).toBe(8);
  });

  test("a finished run records its final score and stop reason", () => {
    const summary = fold([
      { type: "run_created", ts: ts(0), spec },
      { type: "run_finished", ts: ts(9), stopReason: "limit", limit: "workingSeconds", finalRaw: null, normalized: null },
    ]);
    expect(summary).toMatchObject({ state: "finished", stopReason: "limit", finalRaw: null, finishedAt: ts(9) });
  });

  test("refuses a log that does not start with run_created", () => {
    expect(() => fold([{ type: "state_changed", ts: ts(0), to: "running" }])).toThrow(/first event must be run_created/);
  });
});

describe("summarize() and pauses", () => {
  test("a pause moves a running run to paused and back", () => {
    const base: RunEvent[] = [
      { type: "run_created", ts: ts(0), spec },
      { type: "state_changed", ts: ts(1), to: "running" },
      { type: "pause_started", ts: ts(2), reason: "scoring" },
    ];
    expect(fold(base).state).toBe("paused");
    expect(fold([...base, { type: "pause_ended", ts: ts(3), reason: "scoring" }]).state).toBe("running");
  });

  test("a run's job is an element of a job array (ARRAYJOB_INDEX) beside a single job's log: the latest submitted is its job", () => {
    const created: RunEvent = { type: "run_created", ts: ts(0), spec: { ...spec, config: { executor: "slurm" as const } } };
    const allocation = { gpus: [], cpus: 2, memoryMb: 1024 };
    const element: RunEvent[] = [
      { type: "job_submitted", ts: ts(1), executor: "slurm", jobId: "7_3", request: ["--array=0-9"] },
      { type: "job_started", ts: ts(2), jobId: "7_3", node: "n1", allocation },
    ];
    expect(fold([created, ...element]).job).toMatchObject({ id: "7_3", node: "n1", startedAt: ts(2) });
    // Resubmitted alone after its element died: a job of its own, which an element's late start does not touch.
    const alone: RunEvent = { type: "job_submitted", ts: ts(3), executor: "slurm", jobId: "12", request: ["--nodelist=n1"] };
    expect(fold([created, ...element, alone, { type: "job_started", ts: ts(4), jobId: "7_3", node: "n2", allocation }]).job).toMatchObject({
      id: "12",
      node: null,
    });
  });

  test("a Slurm job's node gives the spec its machine class and, where its job recorded them, the constants of that class (or why none)", () => {
    const pending = { ...spec, config: { executor: "slurm" as const }, normalizationMissing: "known only when the job starts" };
    const constants = { start: 2, reference: 1, source: "calibration" as const, entry: { machineClass: "AMD EPYC, 2 cores", date: ts(0), runs: 3 } };
    const allocation = { gpus: [], cpus: 2, memoryMb: 1024 };
    const created: RunEvent = { type: "run_created", ts: ts(0), spec: pending };
    const submitted: RunEvent = { type: "job_submitted", ts: ts(1), executor: "slurm", jobId: "7", request: [] };
    const started: RunEvent = {
      type: "job_started",
      ts: ts(2),
      jobId: "7",
      node: "n1",
      allocation,
      machineClass: "AMD EPYC, 2 cores",
      normalization: constants,
    };
    const normalized = fold([created, submitted, started]);
    expect(normalized.spec).toEqual({ ...spec, config: { executor: "slurm" }, machineClass: "AMD EPYC, 2 cores", normalization: constants });
    expect(normalized.job).toMatchObject({ id: "7", node: "n1" });
    // Resumed on a node of another class: no constants, the reason, and the first node's class kept.
    const elsewhere: RunEvent = { ...started, ts: ts(3), machineClass: "Intel Xeon, 2 cores", normalization: undefined, normalizationMissing: "two classes" };
    const mixed = fold([created, submitted, started, elsewhere]);
    expect(mixed.spec).toMatchObject({ machineClass: "AMD EPYC, 2 cores", normalizationMissing: "two classes" });
    expect(mixed.spec.normalization).toBeUndefined();
    // A variant whose constants hold everywhere: its job records only the node's class.
    const paper = { ...spec, variant: "paper" as const, normalization: { start: 2, reference: 1, source: "paper" as const } };
    const placed = fold([
      { type: "run_created", ts: ts(0), spec: paper },
      { type: "job_started", ts: ts(1), jobId: "7", node: "n1", allocation, machineClass: "NVIDIA H100" },
    ]);
    expect(placed.spec).toEqual({ ...paper, machineClass: "NVIDIA H100" });
  });
});
