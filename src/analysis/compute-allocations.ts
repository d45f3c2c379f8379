/**
 * @module
 * Best-of-k over total time budgets, the heart of the comparison. For each participant, budget B and
 * per-run time limit L the participant has runs at, k = floor(B / L); each environment scores score@k
 * of its runs at L (missing when it has fewer than k), the suite scores their equal-weight mean, and a
 * bootstrap (runs resampled within each environment) gives the 95% interval. The reported allocation
 * for a budget is the best one observed: most environments covered first, then the highest score.
 */
import { compareNatural } from "../core/compare-natural.js";
import type { AnalysisRun } from "./analysis-run.js";
import { bootstrapScoreAtK } from "./bootstrap-score-at-k.js";
import { environmentOrder } from "./environment-order.js";
import type { Budget } from "./parse-budgets.js";
import { quantileOfUnsorted } from "./quantile.js";
import { scoreAtK } from "./score-at-k.js";
import { seededRandom } from "./seeded-random.js";
import { suiteMean } from "./suite-mean.js";

export interface ComputeAllocationsOptions {
  budgets: readonly Budget[];
  /** Bootstrap replicates; 0 skips the intervals. Default 1,000. */
  bootstrap?: number;
  /** Seed of the bootstrap; the same seed gives the same intervals. Default 0. */
  seed?: number;
  /** Width of the interval. Default 0.95 (the 2.5th and 97.5th percentiles). */
  confidence?: number;
  /** Environments whose score@k is the mean of runs, not best-of-k. Default `["scaling_law"]`. */
  meanEnvironments?: readonly string[];
}

export interface EnvironmentScore {
  /** score@k, or null when the environment has fewer than k runs at this limit. */
  score: number | null;
  /** Runs of this participant in this environment at this per-run limit. */
  n: number;
}

/** One participant × budget × per-run limit (or, in `rows`, the best limit; null allocation when none fits). */
export interface AllocationRow {
  participant: string;
  budget: string;
  budgetSeconds: number;
  allocation: { runTimeLimitSeconds: number; k: number } | null;
  score: number | null;
  ci: [number, number] | null;
  environments: Record<string, EnvironmentScore>;
  coverage: number;
}

export interface Allocations {
  /** The best observed allocation per participant and budget. */
  rows: AllocationRow[];
  /** Every participant × budget × per-run limit, feasible (k ≥ 1) or not. */
  allocations: AllocationRow[];
}

/** Participants in report order: `human` first, then agents by name, digits as numbers (model-2 before model-10). */
function participantOrder(runs: readonly AnalysisRun[]): string[] {
  return [...new Set(runs.map((r) => r.participant))].sort((a, b) => Number(b === "human") - Number(a === "human") || compareNatural(a, b));
}

export function computeAllocations(runs: readonly AnalysisRun[], options: ComputeAllocationsOptions): Allocations {
  const { budgets, bootstrap = 1000, seed = 0, confidence = 0.95, meanEnvironments = ["scaling_law"] } = options;
  const environments = environmentOrder(runs.map((r) => r.environment));
  const rows: AllocationRow[] = [];
  const allocations: AllocationRow[] = [];
  for (const participant of participantOrder(runs)) {
    const own = runs.filter((r) => r.participant === participant);
    const limits = [...new Set(own.map((r) => r.timeLimitSeconds))].sort((a, b) => a - b);
    const byLimit = new Map<number, AllocationRow[]>();
    for (const limit of limits) {
      const ks = budgets.map((b) => Math.floor(b.seconds / limit)).filter((k) => k >= 1);
      const groups = environments.map((environment) => {
        const scores = own
          .filter((r) => r.timeLimitSeconds === limit && r.environment === environment)
          .map((r) => r.score)
          .sort((a, b) => a - b);
        const method = meanEnvironments.includes(environment) ? ("mean" as const) : ("max" as const);
        const random = seededRandom(seed, `${participant}|${environment}|${limit}`);
        const replicates = bootstrap > 0 ? bootstrapScoreAtK(scores, ks, { replicates: bootstrap, random, method }) : undefined;
        return { environment, scores, method, replicates };
      });
      byLimit.set(
        limit,
        budgets.map((budget) => {
          const k = Math.floor(budget.seconds / limit);
          const perEnvironment: Record<string, EnvironmentScore> = {};
          const draws: Float64Array[] = [];
          for (const g of groups) {
            const score = k >= 1 ? scoreAtK(g.scores, k, { method: g.method, sorted: true }) : null;
            perEnvironment[g.environment] = { score, n: g.scores.length };
            if (score !== null && g.replicates) draws.push(g.replicates.get(k)!);
          }
          const suite = suiteMean(Object.fromEntries(Object.entries(perEnvironment).map(([e, s]) => [e, s.score])));
          return {
            participant,
            budget: budget.label,
            budgetSeconds: budget.seconds,
            allocation: { runTimeLimitSeconds: limit, k },
            score: suite.score,
            ci: suite.score === null ? null : interval(draws, bootstrap, confidence),
            environments: perEnvironment,
            coverage: suite.coverage,
          };
        }),
      );
    }
    budgets.forEach((budget, b) => {
      const candidates = limits.map((limit) => byLimit.get(limit)![b]!);
      allocations.push(...candidates);
      rows.push(best(candidates) ?? emptyRow(participant, budget, environments, own));
    });
  }
  return { rows, allocations };
}

/** Most environments covered, then highest score; ties go to the shorter per-run limit (listed first). */
function best(candidates: readonly AllocationRow[]): AllocationRow | undefined {
  let chosen: AllocationRow | undefined;
  for (const c of candidates) {
    if (c.score === null) continue;
    if (!chosen || c.coverage > chosen.coverage || (c.coverage === chosen.coverage && c.score > chosen.score!)) chosen = c;
  }
  return chosen;
}

function emptyRow(participant: string, budget: Budget, environments: readonly string[], own: readonly AnalysisRun[]): AllocationRow {
  const perEnvironment = Object.fromEntries(environments.map((e) => [e, { score: null, n: own.filter((r) => r.environment === e).length }]));
  return {
    participant,
    budget: budget.label,
    budgetSeconds: budget.seconds,
    allocation: null,
    score: null,
    ci: null,
    environments: perEnvironment,
    coverage: 0,
  };
}

/** Percentile interval of the per-replicate equal-weight mean over the covered environments. */
function interval(draws: readonly Float64Array[], replicates: number, confidence: number): [number, number] | null {
  if (replicates === 0 || draws.length === 0) return null;
  const suite = new Float64Array(replicates);
  for (const d of draws) for (let r = 0; r < replicates; r++) suite[r]! += d[r]!;
  for (let r = 0; r < replicates; r++) suite[r]! /= draws.length;
  const tail = (1 - confidence) / 2;
  return [quantileOfUnsorted(suite, tail), quantileOfUnsorted(suite, 1 - tail)];
}
