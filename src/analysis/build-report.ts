/**
 * @module
 * The whole comparison as one value: best-of-k rows and every allocation (with bootstrap intervals),
 * cost and speed per participant and budget, agents' percentile among human experts, and mean
 * score-over-time curves where score logs exist. Pure: tables, figures and files are drawn from it.
 */
import type { AnalysisRun } from "./analysis-run.js";
import { type AllocationRow, type ComputeAllocationsOptions, computeAllocations } from "./compute-allocations.js";
import { curveValueAt } from "./curve-value-at.js";
import { environmentOrder } from "./environment-order.js";
import { type HumanPercentileOptions, humanPercentile } from "./human-percentile.js";
import { type RunsUsage, runsUsage, type UsageAtBudget, usageAtK } from "./usage-at-budget.js";

export interface BuildReportOptions extends ComputeAllocationsOptions {
  /** How ties with human scores count in percentiles. Default `mean` (see `humanPercentile`). */
  percentileKind?: HumanPercentileOptions["kind"];
}

export interface ReportUsage extends UsageAtBudget {
  participant: string;
  budget: string;
  budgetSeconds: number;
  allocation: AllocationRow["allocation"];
}

export interface ReportPercentile {
  participant: string;
  budget: string;
  /** Mean over environments of the agent's percentile rank among human final scores (0 to 100). */
  percentile: number | null;
  environments: Record<string, number>;
}

export interface ScoreOverTime {
  participant: string;
  environment: string;
  timeLimitSeconds: number;
  /** Runs with a score log that the mean is over. */
  runs: number;
  /** Mean normalized score over those runs: a step function, exact at every step of any run, from 0 to the limit. */
  points: { seconds: number; score: number }[];
}

export interface Report {
  rows: AllocationRow[];
  allocations: AllocationRow[];
  usage: ReportUsage[];
  humanPercentiles: ReportPercentile[];
  scoreOverTime: ScoreOverTime[];
  environments: string[];
  participants: { name: string; kind: "agent" | "human"; runs: number }[];
  settings: { budgets: { label: string; seconds: number }[]; bootstrap: number; seed: number; confidence: number };
}

export function buildReport(runs: readonly AnalysisRun[], options: BuildReportOptions): Report {
  const { bootstrap = 1000, seed = 0, confidence = 0.95, percentileKind = "mean" } = options;
  const { rows, allocations } = computeAllocations(runs, { ...options, bootstrap, seed, confidence });
  const humanScores: Record<string, number[]> = {};
  for (const r of runs) {
    if (r.kind !== "human") continue;
    humanScores[r.environment] ??= [];
    humanScores[r.environment]!.push(r.score);
  }
  const usage: ReportUsage[] = [];
  const usageOf = new Map<string, RunsUsage>();
  const humanPercentiles: ReportPercentile[] = [];
  for (const row of rows) {
    const { participant, budget, budgetSeconds, allocation } = row;
    const covered = Object.entries(row.environments)
      .filter(([, s]) => s.score !== null)
      .map(([e]) => e);
    // The same participant, limit and environments at another budget differ only in k: one pass over the runs.
    const key = JSON.stringify([participant, allocation?.runTimeLimitSeconds ?? null, covered]);
    let perRun = usageOf.get(key);
    if (perRun === undefined) {
      const own = allocation ? runs.filter((r) => r.participant === participant && r.timeLimitSeconds === allocation.runTimeLimitSeconds) : [];
      perRun = runsUsage(own, covered);
      usageOf.set(key, perRun);
    }
    usage.push({ participant, budget, budgetSeconds, allocation, ...usageAtK(perRun, allocation?.k ?? 0) });
    if (participant !== "human" && Object.keys(humanScores).length > 0) {
      const scores = Object.fromEntries(Object.entries(row.environments).map(([e, s]) => [e, s.score]));
      humanPercentiles.push({ participant, budget, ...humanPercentile(scores, humanScores, { kind: percentileKind }) });
    }
  }
  const participants = [...new Set(rows.map((r) => r.participant))].map((name) => {
    const own = runs.filter((r) => r.participant === name);
    return { name, kind: own[0]!.kind, runs: own.length };
  });
  return {
    rows,
    allocations,
    usage,
    humanPercentiles,
    scoreOverTime: scoreOverTime(
      runs,
      participants.map((p) => p.name),
    ),
    environments: environmentOrder(runs.map((r) => r.environment)),
    participants,
    settings: { budgets: options.budgets.map((b) => ({ label: b.label, seconds: b.seconds })), bootstrap, seed, confidence },
  };
}

function scoreOverTime(runs: readonly AnalysisRun[], participants: readonly string[]): ScoreOverTime[] {
  const out: ScoreOverTime[] = [];
  const withCurves = runs.filter((r) => r.curve !== undefined);
  for (const environment of environmentOrder(withCurves.map((r) => r.environment))) {
    for (const participant of participants) {
      const own = withCurves.filter((r) => r.environment === environment && r.participant === participant);
      for (const limit of [...new Set(own.map((r) => r.timeLimitSeconds))].sort((a, b) => a - b)) {
        const group = own.filter((r) => r.timeLimitSeconds === limit);
        const steps = group.flatMap((r) => r.curve!.map((p) => p.seconds)).filter((t) => t < limit);
        const grid = [...new Set([0, ...steps, limit])].sort((a, b) => a - b);
        out.push({
          participant,
          environment,
          timeLimitSeconds: limit,
          runs: group.length,
          points: grid.map((seconds) => ({
            seconds,
            score: group.reduce((sum, r) => sum + curveValueAt(r.curve!, seconds), 0) / group.length,
          })),
        });
      }
    }
  }
  return out;
}
