/**
 * @module
 * The run summary: one row per run, a pure fold of its events. Stores call `summarize` inside the
 * transaction that appends the event, so the summary is never derived in a slow view.
 */
import { z } from "zod";
import { replacesAggregate } from "./aggregate.js";
import { contentionOf } from "./contention.js";
import { ConflictError, InvalidInputError } from "./errors.js";
import type { RunEventOf, StoredEvent } from "./events.js";
import { RunSpec } from "./events.js";
import { RunId } from "./ids.js";
import { normalize } from "./normalize.js";
import { ReviewVerdict } from "./review.js";
import { RunState, StopReason } from "./run-state.js";
import { validRaw } from "./score.js";
import { type CostByKind, Usage, ZERO_USAGE } from "./usage.js";

export const RunSummary = z.object({
  id: RunId,
  spec: RunSpec,
  state: RunState,
  createdAt: z.string(),
  updatedAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  usage: Usage,
  scoreCalls: z.number().int().nonnegative(),
  validScores: z.number().int().nonnegative(),
  /** Score entries flagged as taken while other work shared the machine (a timing-sensitive variant; contention.ts). */
  contendedScores: z.number().int().nonnegative().default(0),
  /** The aggregate (min / max / last valid) of the score log so far; null while no valid entry exists. */
  currentRaw: z.number().nullable(),
  /** Final raw score and its normalization, set when the run finishes. */
  finalRaw: z.number().nullable(),
  normalized: z.number().nullable(),
  stopReason: StopReason.nullable(),
  error: z.string().nullable(),
  lastSeq: z.number().int().nonnegative(),
  /** The run's latest scheduler job (executor `slurm`), null for a run driven locally. */
  job: z
    .object({
      executor: z.literal("slurm"),
      id: z.string(),
      submittedAt: z.string(),
      /** Where it started, once it did. */
      node: z.string().nullable(),
      startedAt: z.string().nullable(),
    })
    .nullable()
    .default(null),
  /** The latest review's verdict and how many findings it has (`rebench review`); null before any. */
  review: z.object({ verdict: ReviewVerdict, findings: z.number().int().nonnegative(), ts: z.string() }).nullable().default(null),
});
export type RunSummary = z.infer<typeof RunSummary>;

/** Fold one stored event into the summary (`undefined` before the `run_created` event). */
export function summarize(summary: RunSummary | undefined, stored: StoredEvent): RunSummary {
  const { event, seq, runId } = stored;
  if (summary === undefined) {
    if (event.type !== "run_created") {
      throw new InvalidInputError(`run ${runId}: the first event must be run_created, got ${event.type}`);
    }
    return {
      id: runId,
      spec: event.spec,
      state: "queued",
      createdAt: event.ts,
      updatedAt: event.ts,
      startedAt: null,
      finishedAt: null,
      usage: { ...ZERO_USAGE },
      scoreCalls: 0,
      validScores: 0,
      contendedScores: 0,
      currentRaw: null,
      finalRaw: null,
      normalized: null,
      stopReason: null,
      error: null,
      lastSeq: seq,
      job: null,
      review: null,
    };
  }
  if (summary.state === "moved") {
    // A moved run is driven from its new store only: a process that still drives it here stops at its next write.
    throw new ConflictError(`run ${runId} was moved to another store (${summary.error ?? "see its log"}); it goes on there, not here`, {
      hint: "continue it in the store it was moved to (`rebench runs resume --db STORE`)",
    });
  }
  const next: RunSummary = { ...summary, usage: { ...summary.usage }, updatedAt: event.ts, lastSeq: seq };
  switch (event.type) {
    case "run_created":
      throw new InvalidInputError(`run ${runId} already exists`);
    case "state_changed":
      next.state = event.to;
      if (event.to === "running" && next.startedAt === null) next.startedAt = event.ts;
      if ((event.to === "finished" || event.to === "failed") && next.finishedAt === null) next.finishedAt = event.ts;
      break;
    case "generation":
      next.usage.inputTokens += event.inputTokens;
      next.usage.cacheReadTokens += event.cacheReadTokens ?? 0;
      next.usage.cacheWriteTokens += event.cacheWriteTokens ?? 0;
      next.usage.cacheWrite1hTokens += event.cacheWrite1hTokens ?? 0;
      next.usage.outputTokens += event.outputTokens;
      next.usage.reasoningTokens += event.reasoningTokens ?? 0;
      next.usage.costUsd += event.costUsd;
      next.usage.costByKind = addCost(next.usage.costByKind, event);
      break;
    case "action":
      next.usage.actions += 1;
      break;
    case "score_logged": {
      next.scoreCalls += 1;
      if (contentionOf(event.entry)?.flagged) next.contendedScores += 1;
      const raw = validRaw(event.entry);
      if (raw !== undefined) {
        next.validScores += 1;
        if (replacesAggregate(next.currentRaw ?? undefined, raw, next.spec.aggregation)) next.currentRaw = raw;
      }
      break;
    }
    case "time_reported":
      next.usage.wallSeconds = event.wallSeconds;
      next.usage.workingSeconds = event.workingSeconds;
      next.usage.pausedSeconds = event.pausedSeconds;
      break;
    case "run_finished":
      next.state = "finished";
      next.finishedAt ??= event.ts;
      next.stopReason = event.stopReason;
      next.finalRaw = event.finalRaw;
      next.normalized = event.normalized;
      break;
    case "run_failed":
      next.state = "failed";
      next.finishedAt ??= event.ts;
      next.stopReason = "error";
      next.error = event.error;
      break;
    case "run_moved":
      next.state = "moved";
      next.error = `moved to ${event.to}`;
      break;
    case "pause_started":
      if (next.state === "running") next.state = "paused";
      break;
    case "pause_ended":
      if (next.state === "paused") next.state = "running";
      break;
    case "job_submitted":
      next.job = { executor: event.executor, id: event.jobId, submittedAt: event.ts, node: null, startedAt: null };
      break;
    case "job_started":
      if (next.job?.id === event.jobId) next.job = { ...next.job, node: event.node, startedAt: event.ts };
      next.spec = onNode(next.spec, event);
      break;
    case "review":
      next.review = { verdict: event.review.verdict, findings: event.review.findings.length, ts: event.ts };
      break;
    case "observation":
    case "submitted":
    case "note":
    case "driver_attached":
    case "cancel_requested":
      break;
    default: {
      const unreachable: never = event;
      throw new InvalidInputError(`unknown event ${JSON.stringify(unreachable)}`);
    }
  }
  return next;
}

/**
 * The spec as the job's node leaves it: the first node's machine class, and for a variant calibrated per
 * class the constants (or the reason for none) the node's job recorded, in place of those of the creation.
 */
function onNode(spec: RunSpec, event: RunEventOf<"job_started">): RunSpec {
  const machineClass = spec.machineClass ?? event.machineClass;
  const placed = machineClass === undefined ? spec : { ...spec, machineClass };
  if (event.normalization === undefined && event.normalizationMissing === undefined) return placed;
  const { normalization: _constants, normalizationMissing: _missing, ...rest } = placed;
  return {
    ...rest,
    ...(event.normalization ? { normalization: event.normalization } : {}),
    ...(event.normalizationMissing ? { normalizationMissing: event.normalizationMissing } : {}),
  };
}

/** The split so far plus an event's; unknown (null) from the first priced generation that gave none. */
function addCost(split: CostByKind | null, event: { costUsd: number; costByKind?: CostByKind | undefined }): CostByKind | null {
  if (split === null) return null;
  if (event.costByKind === undefined) return event.costUsd > 0 ? null : split;
  const c = event.costByKind;
  return {
    input: split.input + c.input,
    cacheRead: split.cacheRead + c.cacheRead,
    cacheWrite: split.cacheWrite + c.cacheWrite,
    output: split.output + c.output,
  };
}

/**
 * Why a run has no normalized score, one line with the command that makes one; undefined when it has
 * constants. Runs created before machine classes did not record a reason.
 */
export function normalizationMissing(spec: RunSpec): string | undefined {
  if (spec.normalization !== undefined) return undefined;
  return (
    spec.normalizationMissing ??
    `${spec.environment}/${spec.variant} had no normalization constants when the run was created: run \`rebench calibrate ${spec.environment} --variant ${spec.variant} --write\``
  );
}

/** The normalized value of a raw score under a run's constants, or null when it has none. */
export function normalizedFor(spec: RunSpec, raw: number | null): number | null {
  if (raw === null || spec.normalization === undefined) return null;
  return normalize(raw, spec.normalization);
}
