/**
 * @module
 * Run events: the append-only log every run is made of. The run summary is a fold of these events
 * (`summarize`), written in the same transaction as each event.
 */
import { z } from "zod";
import { EnvironmentId, Participant, RunId, TaskId, Variant } from "./ids.js";
import { Aggregation, Direction } from "./manifest.js";
import { NormalizationConstants } from "./normalize.js";
import { RunState, StopReason } from "./run-state.js";
import { ScoreLogEntry } from "./score.js";
import { UsageLimits } from "./usage.js";

/** Everything fixed when a run is created; copied into the run so analysis never depends on later edits. */
export const RunSpec = z.object({
  participant: Participant,
  environment: EnvironmentId,
  variant: Variant,
  task: TaskId,
  limits: UsageLimits,
  /** The per-run time limit analysis groups by (best-of-k); usually `limits.workingSeconds`. */
  timeLimitSeconds: z.number().positive().optional(),
  direction: Direction,
  aggregation: Aggregation,
  normalization: NormalizationConstants.optional(),
  batchId: z.string().optional(),
  /** Free-form settings of the scaffold, sandbox backend and so on. */
  config: z.record(z.string(), z.unknown()).default({}),
});
export type RunSpec = z.infer<typeof RunSpec>;
export type RunSpecInput = z.input<typeof RunSpec>;

const at = { ts: z.string().datetime({ offset: true }) };

/** `recovery`: the orchestrator was down (from its last event to the restart that reconciled the run). */
export const PauseReason = z.enum(["scoring", "model_retry", "human", "other", "recovery"]);
export type PauseReason = z.infer<typeof PauseReason>;

export const ScoreTrigger = z.enum(["start", "action", "submit", "limit", "manual"]);
export type ScoreTrigger = z.infer<typeof ScoreTrigger>;

export const RunEvent = z.discriminatedUnion("type", [
  z.object({ type: z.literal("run_created"), ...at, spec: RunSpec }),
  z.object({ type: z.literal("state_changed"), ...at, to: RunState, reason: z.string().optional() }),
  z.object({
    type: z.literal("generation"),
    ...at,
    model: z.string(),
    inputTokens: z.number().int().nonnegative(),
    outputTokens: z.number().int().nonnegative(),
    costUsd: z.number().nonnegative(),
    durationMs: z.number().nonnegative().optional(),
    content: z.unknown().optional(),
  }),
  z.object({ type: z.literal("action"), ...at, actionId: z.string(), tool: z.string(), input: z.unknown() }),
  z.object({
    type: z.literal("observation"),
    ...at,
    actionId: z.string(),
    tool: z.string(),
    output: z.unknown(),
  }),
  z.object({ type: z.literal("score_logged"), ...at, entry: ScoreLogEntry, trigger: ScoreTrigger }),
  z.object({ type: z.literal("pause_started"), ...at, reason: PauseReason }),
  z.object({ type: z.literal("pause_ended"), ...at, reason: PauseReason }),
  z.object({
    type: z.literal("time_reported"),
    ...at,
    wallSeconds: z.number().nonnegative(),
    workingSeconds: z.number().nonnegative(),
    pausedSeconds: z.number().nonnegative(),
  }),
  z.object({ type: z.literal("submitted"), ...at, submission: z.string() }),
  z.object({
    type: z.literal("run_finished"),
    ...at,
    stopReason: StopReason,
    /** Which usage limit stopped the run, when stopReason is `limit`. */
    limit: z.string().optional(),
    finalRaw: z.number().finite().nullable(),
    normalized: z.number().finite().nullable(),
  }),
  z.object({ type: z.literal("run_failed"), ...at, error: z.string() }),
  z.object({ type: z.literal("note"), ...at, message: z.string(), data: z.unknown().optional() }),
  /** An orchestrator process took charge of the run (so another one leaves it alone while that pid lives). */
  z.object({ type: z.literal("driver_attached"), ...at, pid: z.number().int().positive(), host: z.string() }),
]);
export type RunEvent = z.infer<typeof RunEvent>;
export type RunEventType = RunEvent["type"];
export type RunEventOf<T extends RunEventType> = Extract<RunEvent, { type: T }>;

/** An event as stored: numbered within its run from 1. */
export const StoredEvent = z.object({ runId: RunId, seq: z.number().int().positive(), event: RunEvent });
export type StoredEvent = z.infer<typeof StoredEvent>;

/** Distributive Omit, so `Omit<RunEvent, "ts">` stays a union. */
export type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
/** An event before the store stamps it: `ts` defaults to now. */
export type NewRunEvent = DistributiveOmit<RunEvent, "ts"> & { ts?: string };
