/**
 * @module
 * The one shape every analysis function reads: a run reduced to what comparing participants needs.
 * Importers (METR's JSON Lines) and the store adapter both produce it, so the same math serves both.
 */

/** A step of a run's score over working time: from `seconds` on, the run's normalized score is `score`. */
export interface ScorePoint {
  seconds: number;
  score: number;
}

export interface AnalysisRun {
  id: string;
  /** What reports group by: the agent's alias, or `human` for every human. */
  participant: string;
  kind: "agent" | "human";
  /** Our environment name (`optimize_kernel`, ...). */
  environment: string;
  /** `mini`, `gpu` or `paper` when known (METR's records are `paper`). */
  variant: string | undefined;
  task: string;
  /** The per-run time limit best-of-k groups by. */
  timeLimitSeconds: number;
  /** Final normalized score (0 = starting solution, 1 = reference); 0 for a run without a valid score. */
  score: number;
  /**
   * Which constants normalized `score`, where known: the calibration entry ("AMD EPYC, 2 cores, 2026-11-29,
   * N=5"), "paper", "shipped", or "calibration" for a stored run of a rebench before machine classes.
   */
  normalizedBy?: string;
  /** Normalized score over working time, where a score log exists (steps, ascending seconds). */
  curve: readonly ScorePoint[] | undefined;
  usage: {
    /** Every token the model read or wrote (core/usage.ts `budgetTokens`: all input kinds + output), when known. */
    tokens: number | null;
    /** Dollars spent on model calls, when known. */
    dollars: number | null;
    /** Working seconds the run used, when known. */
    workingSeconds: number | null;
    /** Protected scoring calls the run made, when known. */
    scoreCalls: number | null;
    /** Tokens and dollars by kind, where the run recorded them (rebench's agent runs; not METR's records). */
    byKind?: UsageByKind;
  };
}

/** Tokens by kind (reasoning is part of the output) and, where every generation priced them, dollars by kind. */
export interface UsageByKind {
  input: number;
  cacheRead: number;
  cacheWrite: number;
  output: number;
  reasoning: number;
  dollars: { input: number; cacheRead: number; cacheWrite: number; output: number } | null;
}
