/**
 * @module
 * A stored run as an analysis run: the spec says who, where and under which limit; the final raw score
 * is normalized with the run's own constants (the calibration entry of its machine's class, recorded when
 * it was created); the score log becomes a score-over-time curve. Runs that cannot be compared come back
 * as a reason instead (unfinished, no time limit, no constants, with why and the command that makes them).
 */
import { budgetTokens, normalizationLabel, normalizationMissing, normalizedFor, type RunSummary, type ScoreLogEntry } from "../core/index.js";
import type { AnalysisRun } from "./analysis-run.js";
import { scoreCurve } from "./score-curve.js";

export type StoredRunResult = { kind: "run"; run: AnalysisRun } | { kind: "skipped"; reason: string };

export function analysisRunFromStore(summary: RunSummary, scoreLog: readonly ScoreLogEntry[]): StoredRunResult {
  const { spec } = summary;
  if (summary.state !== "finished") return { kind: "skipped", reason: `not finished (${summary.state})` };
  const timeLimitSeconds = spec.timeLimitSeconds ?? spec.limits.workingSeconds;
  if (timeLimitSeconds === undefined) return { kind: "skipped", reason: "no per-run time limit" };
  const normalization = spec.normalization;
  if (normalization === undefined) {
    return { kind: "skipped", reason: `no normalized score: ${normalizationMissing(spec)}` };
  }
  const human = spec.participant.kind === "human";
  const { usage } = summary;
  return {
    kind: "run",
    run: {
      id: summary.id,
      participant: human ? "human" : spec.participant.alias,
      kind: spec.participant.kind,
      environment: spec.environment,
      variant: spec.variant,
      task: spec.task,
      timeLimitSeconds,
      // A finished run without a valid score scores as the starting solution: 0.
      score: normalizedFor(spec, summary.finalRaw) ?? 0,
      normalizedBy: normalizationLabel(normalization),
      curve: scoreLog.length > 0 ? scoreCurve(scoreLog, { aggregation: spec.aggregation, normalization }) : undefined,
      usage: {
        tokens: human ? null : budgetTokens(usage),
        dollars: human ? null : usage.costUsd,
        workingSeconds: usage.workingSeconds,
        scoreCalls: summary.scoreCalls,
        ...(human
          ? {}
          : {
              byKind: {
                input: usage.inputTokens,
                cacheRead: usage.cacheReadTokens,
                cacheWrite: usage.cacheWriteTokens,
                output: usage.outputTokens,
                reasoning: usage.reasoningTokens,
                dollars: usage.costByKind,
              },
            }),
      },
    },
  };
}
