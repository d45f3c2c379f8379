/**
 * @module
 * The run as every `--json` output and the viewer's HTTP API show it: one vocabulary (`runId`, `rawScore`,
 * `normalizedScore`, ...) for `rebench run`, `runs list`, `runs show`, `runs resume`, `calibrate` and
 * `/api/runs`, so a consumer reads one shape wherever it got the run. It is made from the stored summary
 * (run-summary.ts) and flat: the run's spec, which holds the environment's instructions and set-up, is
 * `runs show --json`'s alone. docs/runs.md ("Runs as JSON") describes it and
 * docs/schemas/run-record.schema.json is its JSON Schema (scripts/write-schemas.ts).
 */
import { z } from "zod";
import { ParticipantKind } from "./ids.js";
import { NormalizationConstants } from "./normalize.js";
import { ReviewVerdict } from "./review.js";
import { RunState, StopReason } from "./run-state.js";
import { normalizationMissing, type RunSummary } from "./run-summary.js";
import { budgetTokens, CostByKind } from "./usage.js";

export const RunRecord = z
  .object({
    runId: z.string().describe("the run's id (`rebench runs show RUN_ID`)"),
    batchId: z.string().nullable().describe("the batch of `rebench run` (or calibrate, exploits) that created it; null for a run started alone"),
    environment: z.string(),
    variant: z.string(),
    task: z.string(),
    participant: z.string().describe("the participant's alias: what reports group runs by"),
    participantKind: ParticipantKind,
    scaffold: z.string().nullable(),
    model: z.string().nullable().describe("PROVIDER:MODEL of a scaffold that calls a model; null otherwise"),
    state: RunState,
    stopReason: StopReason.nullable(),
    error: z.string().nullable().describe("why a failed run failed"),
    createdAt: z.string(),
    updatedAt: z.string(),
    startedAt: z.string().nullable(),
    finishedAt: z.string().nullable(),
    rawScore: z
      .number()
      .nullable()
      .describe("the final raw score: the aggregate of the score log, set when the run finishes; null before, or with no valid entry"),
    rawScoreSoFar: z.number().nullable().describe("the aggregate of the score log's valid entries so far (the live score); null while there is none"),
    normalizedScore: z.number().nullable().describe("rawScore normalized (0 the starting solution, 1 the reference); null without rawScore or constants"),
    normalization: NormalizationConstants.nullable().describe(
      "the constants that normalize the run's scores (`entry`: the calibration.json entry); null when there are none",
    ),
    normalizationMissing: z.string().nullable().describe("why there is no normalization, with the command that makes one; null when there is"),
    machineClass: z.string().nullable().describe("the class of the machine the run was scored on; null where not recorded"),
    timeLimitSeconds: z.number().nullable().describe("the working-time limit; null for none"),
    workingSeconds: z.number().nonnegative(),
    pausedSeconds: z.number().nonnegative(),
    wallSeconds: z.number().nonnegative(),
    tokens: z.number().int().nonnegative().describe("what `--tokens` counts: input of every kind plus output"),
    tokensByKind: z.object({
      input: z.number().int().nonnegative(),
      cacheRead: z.number().int().nonnegative(),
      cacheWrite: z.number().int().nonnegative(),
      cacheWrite1h: z.number().int().nonnegative(),
      output: z.number().int().nonnegative(),
      reasoning: z.number().int().nonnegative(),
    }),
    costUsd: z.number().nonnegative(),
    costByKind: CostByKind.nullable().describe("costUsd by token kind; null once a model call did not say"),
    actions: z.number().int().nonnegative(),
    scoreCalls: z.number().int().nonnegative(),
    validScores: z.number().int().nonnegative(),
    contendedScores: z.number().int().nonnegative().describe("score entries taken while other work shared the machine: not comparable"),
    job: z
      .object({
        executor: z.literal("slurm"),
        id: z.string(),
        state: z.string().nullable().describe("Slurm's state of the job (RUNNING, COMPLETED, ...); null where Slurm's commands do not answer here"),
        submittedAt: z.string(),
        node: z.string().nullable(),
        startedAt: z.string().nullable(),
      })
      .nullable()
      .describe("the run's latest Slurm job; null for a run driven locally"),
    review: z
      .object({
        verdict: ReviewVerdict,
        findings: z.number().int().nonnegative(),
        ts: z.string(),
      })
      .nullable()
      .describe("the latest `rebench review` of the run: clean, suspicious or hack, and how many findings; null before any (docs/review.md)"),
    orphaned: z
      .string()
      .nullable()
      .describe(
        "why the run needs `rebench runs resume`: it has not ended and its orchestrator is gone (src/store/orphaned-run.ts); null otherwise, and where it was not checked (a driver on another host, a static export)",
      ),
  })
  .strict();
export type RunRecord = z.infer<typeof RunRecord>;

/**
 * The record of a stored run; `jobState`: its Slurm job's state where it was asked (null: not known here);
 * `orphaned`: why it needs `runs resume`, where that was checked.
 */
export function runRecord(run: RunSummary, known: { jobState?: string | null; orphaned?: string | null } = {}): RunRecord {
  const { spec, usage } = run;
  return {
    runId: run.id,
    batchId: spec.batchId ?? null,
    ...specIdentity(spec),
    state: run.state,
    stopReason: run.stopReason,
    error: run.error,
    createdAt: run.createdAt,
    updatedAt: run.updatedAt,
    startedAt: run.startedAt,
    finishedAt: run.finishedAt,
    rawScore: run.finalRaw,
    rawScoreSoFar: run.currentRaw,
    normalizedScore: run.normalized,
    normalization: spec.normalization ?? null,
    normalizationMissing: normalizationMissing(spec) ?? null,
    machineClass: spec.machineClass ?? null,
    timeLimitSeconds: spec.timeLimitSeconds ?? spec.limits.workingSeconds ?? null,
    workingSeconds: usage.workingSeconds,
    pausedSeconds: usage.pausedSeconds,
    wallSeconds: usage.wallSeconds,
    tokens: budgetTokens(usage),
    tokensByKind: {
      input: usage.inputTokens,
      cacheRead: usage.cacheReadTokens,
      cacheWrite: usage.cacheWriteTokens,
      cacheWrite1h: usage.cacheWrite1hTokens,
      output: usage.outputTokens,
      reasoning: usage.reasoningTokens,
    },
    costUsd: usage.costUsd,
    costByKind: usage.costByKind,
    actions: usage.actions,
    scoreCalls: run.scoreCalls,
    validScores: run.validScores,
    contendedScores: run.contendedScores,
    job: run.job ? { ...run.job, state: known.jobState ?? null } : null,
    review: run.review,
    orphaned: known.orphaned ?? null,
  };
}

/** What a run was and who ran it, under the run record's names (also the Inspect export's metadata). */
export function specIdentity(spec: RunSummary["spec"]) {
  return {
    environment: spec.environment,
    variant: spec.variant,
    task: spec.task,
    participant: spec.participant.alias,
    participantKind: spec.participant.kind,
    scaffold: spec.participant.scaffold ?? null,
    model: spec.participant.model ?? null,
  };
}
