/**
 * @module
 * A stored run written as one line of METR's run records, so rebench's runs can sit beside METR's
 * published ones and be read back by the same importer. `score_binarized` is 1 when the run reached the
 * reference solution (normalized score ≥ 1); fields rebench cannot know (human_minutes, task weights)
 * are null. `rebench_normalization` says which constants (which calibration entry) made `score`.
 */
import type { RunSummary } from "../../core/index.js";
import type { AnalysisRun } from "../analysis-run.js";
import { METR_FAMILIES } from "./metr-families.js";
import type { MetrRunRecord } from "./metr-run-record.js";

const FAMILY_OF = new Map(Object.entries(METR_FAMILIES).map(([family, environment]) => [environment as string, family]));

/** The METR record of `run` (from `analysisRunFromStore`) and its stored summary. */
export function toMetrRecord(run: AnalysisRun, summary: RunSummary): MetrRunRecord {
  const family = FAMILY_OF.get(run.environment) ?? run.environment;
  const score = summary.finalRaw === null ? null : run.score;
  const epoch = (iso: string | null) => (iso === null ? null : Date.parse(iso));
  return {
    run_id: run.id,
    task_id: `${family}/${run.task}`,
    task_family: family,
    alias: run.participant,
    model: summary.spec.participant.model ?? summary.spec.participant.alias,
    score,
    score_binarized: score === null ? null : score >= 1 ? 1 : 0,
    time_limit: run.timeLimitSeconds,
    started_at: epoch(summary.startedAt),
    completed_at: epoch(summary.finishedAt),
    fatal_error_from: null,
    human_minutes: null,
    human_score: null,
    human_source: run.kind === "human" ? "rebench" : null,
    dollar_equivalent: run.usage.dollars,
    total_tokens: run.usage.tokens,
    equal_task_weight: null,
    invsqrt_task_weight: null,
    rebench_variant: run.variant ?? null,
    rebench_working_seconds: run.usage.workingSeconds,
    rebench_score_calls: run.usage.scoreCalls,
    rebench_normalization: summary.spec.normalization ?? null,
    rebench_machine_class: summary.spec.machineClass ?? null,
    rebench_provenance: summary.spec.provenance ?? null,
    rebench_usage_by_kind: run.usage.byKind ?? null,
  };
}
