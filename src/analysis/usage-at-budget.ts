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

/**
 * Usage of `runs` (one participant, one per-run limit) spent k at a time in each of `environments`
 * (those with a score at this allocation).
 */
export function usageAtBudget(runs: readonly AnalysisRun[], k: number, environments: readonly string[]): UsageAtBudget {
  const used = runs.filter((r) => environments.includes(r.environment));
  const perEnvironment = (pick: (r: AnalysisRun) => number | null): number | null => {
    const means: number[] = [];
    for (const environment of environments) {
      const values = used
        .filter((r) => r.environment === environment)
        .map(pick)
        .filter((v): v is number => v !== null);
      if (values.length > 0) means.push(values.reduce((a, b) => a + b, 0) / values.length);
    }
    return means.length === 0 ? null : (k * means.reduce((a, b) => a + b, 0)) / means.length;
  };
  let calls = 0;
  let seconds = 0;
  for (const r of used) {
    if (r.usage.scoreCalls === null || r.usage.workingSeconds === null) continue;
    calls += r.usage.scoreCalls;
    seconds += r.usage.workingSeconds;
  }
  const workingSeconds = perEnvironment((r) => r.usage.workingSeconds);
  const kind = (pick: (k: UsageByKind) => number | undefined) => perEnvironment((r) => (r.usage.byKind ? (pick(r.usage.byKind) ?? null) : null));
  const input = kind((k) => k.input);
  const byKind: UsageByKind | null =
    input === null
      ? null
      : {
          input,
          cacheRead: kind((k) => k.cacheRead)!,
          cacheWrite: kind((k) => k.cacheWrite)!,
          output: kind((k) => k.output)!,
          reasoning: kind((k) => k.reasoning)!,
          dollars: dollarsByKind(used, kind),
        };
  return {
    tokens: perEnvironment((r) => r.usage.tokens),
    dollars: perEnvironment((r) => r.usage.dollars),
    hours: workingSeconds === null ? null : workingSeconds / 3600,
    scoreCallsPerHour: seconds >= MIN_RATE_SECONDS ? calls / (seconds / 3600) : null,
    byKind,
    runs: used.length,
  };
}

/** Dollars by kind, when every run with token kinds also has them (else the split would not add up). */
function dollarsByKind(runs: readonly AnalysisRun[], kind: (pick: (k: UsageByKind) => number | undefined) => number | null): UsageByKind["dollars"] {
  if (runs.some((r) => r.usage.byKind !== undefined && r.usage.byKind.dollars === null)) return null;
  const input = kind((k) => k.dollars?.input);
  if (input === null) return null;
  return { input, cacheRead: kind((k) => k.dollars?.cacheRead)!, cacheWrite: kind((k) => k.dollars?.cacheWrite)!, output: kind((k) => k.dollars?.output)! };
}
