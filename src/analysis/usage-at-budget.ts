/**
 * @module
 * Cost and speed beside a score: what one environment's attempt at a total budget uses when it is
 * spent as k runs at the per-run limit L (k times the mean use of one run, averaged over the covered
 * environments), and how often the participant scored its work (score calls per working hour; the
 * paper found agents submit and test solutions over ten times as often as humans).
 */
import type { AnalysisRun, UsageByKind } from "./analysis-run.js";

/**
 * Below this much pooled working time a rate per hour is noise, not a measurement (a replayed starting
 * solution scores once in a few milliseconds: 3,600,000 calls an hour), so it is left unknown.
 */
export const MIN_RATE_SECONDS = 60;

export interface UsageAtBudget {
  /** Expected tokens per environment for k runs; null when no run records tokens. */
  tokens: number | null;
  /** Expected dollars per environment for k runs; null when no run records cost. */
  dollars: number | null;
  /** Expected working hours per environment for k runs; null when no run records working time. */
  hours: number | null;
  /** Score calls per working hour over the runs that record both; null when none does or they worked under MIN_RATE_SECONDS in all. */
  scoreCallsPerHour: number | null;
  /** Expected tokens and dollars per environment by kind, over the runs that record them; null when none does. */
  byKind: UsageByKind | null;
  /** Runs the numbers are drawn from. */
  runs: number;
}

/** What `usageAtBudget` needs of some runs, whatever k: per metric the mean of each environment that records it. */
export interface RunsUsage {
  /** Per metric, the mean over the runs of each environment (in the order given) that record it. */
  means: Record<Metric, number[]>;
  /** Whether some run has token kinds without dollars by kind (then the dollars are not split). */
  unpricedKinds: boolean;
  calls: number;
  seconds: number;
  runs: number;
}

const METRICS = {
  tokens: (r: AnalysisRun) => r.usage.tokens,
  dollars: (r: AnalysisRun) => r.usage.dollars,
  workingSeconds: (r: AnalysisRun) => r.usage.workingSeconds,
  input: (r: AnalysisRun) => r.usage.byKind?.input ?? null,
  cacheRead: (r: AnalysisRun) => r.usage.byKind?.cacheRead ?? null,
  cacheWrite: (r: AnalysisRun) => r.usage.byKind?.cacheWrite ?? null,
  output: (r: AnalysisRun) => r.usage.byKind?.output ?? null,
  reasoning: (r: AnalysisRun) => r.usage.byKind?.reasoning ?? null,
  dollarsInput: (r: AnalysisRun) => r.usage.byKind?.dollars?.input ?? null,
  dollarsCacheRead: (r: AnalysisRun) => r.usage.byKind?.dollars?.cacheRead ?? null,
  dollarsCacheWrite: (r: AnalysisRun) => r.usage.byKind?.dollars?.cacheWrite ?? null,
  dollarsOutput: (r: AnalysisRun) => r.usage.byKind?.dollars?.output ?? null,
} satisfies Record<string, (r: AnalysisRun) => number | null>;
type Metric = keyof typeof METRICS;
const METRIC_NAMES = Object.keys(METRICS) as Metric[];

/**
 * One pass over `runs` (one participant, one per-run limit) for the environments in `environments`: the
 * part of `usageAtBudget` that does not depend on k, so a report computes it once per participant and limit
 * rather than once per budget. Each mean adds its runs' values in run order, as a sum over a filter would.
 */
export function runsUsage(runs: readonly AnalysisRun[], environments: readonly string[]): RunsUsage {
  const index = new Map(environments.map((e, i) => [e, i]));
  const sums = new Map(METRIC_NAMES.map((m) => [m, { sum: new Float64Array(environments.length), n: new Uint32Array(environments.length) }]));
  let calls = 0;
  let seconds = 0;
  let used = 0;
  let unpricedKinds = false;
  for (const r of runs) {
    const e = index.get(r.environment);
    if (e === undefined) continue;
    used += 1;
    if (r.usage.byKind !== undefined && r.usage.byKind.dollars === null) unpricedKinds = true;
    if (r.usage.scoreCalls !== null && r.usage.workingSeconds !== null) {
      calls += r.usage.scoreCalls;
      seconds += r.usage.workingSeconds;
    }
    for (const m of METRIC_NAMES) {
      const v = METRICS[m](r);
      if (v === null) continue;
      const s = sums.get(m)!;
      s.sum[e]! += v;
      s.n[e]! += 1;
    }
  }
  const means = {} as Record<Metric, number[]>;
  for (const m of METRIC_NAMES) {
    const { sum, n } = sums.get(m)!;
    means[m] = [];
    for (let e = 0; e < environments.length; e++) if (n[e]! > 0) means[m].push(sum[e]! / n[e]!);
  }
  return { means, unpricedKinds, calls, seconds, runs: used };
}

/** `runsUsage` spent k runs at a time in each environment. */
export function usageAtK(usage: RunsUsage, k: number): UsageAtBudget {
  const at = (m: Metric): number | null => {
    const means = usage.means[m];
    return means.length === 0 ? null : (k * means.reduce((a, b) => a + b, 0)) / means.length;
  };
  const workingSeconds = at("workingSeconds");
  const input = at("input");
  // Dollars by kind, when every run with token kinds also has them (else the split would not add up).
  const dollarsInput = usage.unpricedKinds ? null : at("dollarsInput");
  const byKind: UsageByKind | null =
    input === null
      ? null
      : {
          input,
          cacheRead: at("cacheRead")!,
          cacheWrite: at("cacheWrite")!,
          output: at("output")!,
          reasoning: at("reasoning")!,
          dollars:
            dollarsInput === null
              ? null
              : { input: dollarsInput, cacheRead: at("dollarsCacheRead")!, cacheWrite: at("dollarsCacheWrite")!, output: at("dollarsOutput")! },
        };
  return {
    tokens: at("tokens"),
    dollars: at("dollars"),
    hours: workingSeconds === null ? null : workingSeconds / 3600,
    scoreCallsPerHour: usage.seconds >= MIN_RATE_SECONDS ? usage.calls / (usage.seconds / 3600) : null,
    byKind,
    runs: usage.runs,
  };
}

/**
 * Usage of `runs` (one participant, one per-run limit) spent k at a time in each of `environments`
 * (those with a score at this allocation).
 */
export function usageAtBudget(runs: readonly AnalysisRun[], k: number, environments: readonly string[]): UsageAtBudget {
  return usageAtK(runsUsage(runs, environments), k);
}
