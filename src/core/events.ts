/**
 * @module
 * Run events: the append-only log every run is made of. The run summary is a fold of these events
 * (`summarize`), written in the same transaction as each event.
 */
import { z } from "zod";
import { EnvironmentId, Participant, RunId, TaskId, Variant } from "./ids.js";
import { Aggregation, Direction } from "./manifest.js";
import { NormalizationConstants } from "./normalize.js";
import { ReplayStep } from "./replay-step.js";
import { Review } from "./review.js";
import { RunState, StopReason } from "./run-state.js";
import { ScoreLogEntry } from "./score.js";
import { CostByKind, LimitName, UsageLimits } from "./usage.js";

/** The tools an agent calls, as action and observation events record them. */
export const ToolName = z.enum(["bash", "python", "score", "score_log", "submit"]);
export type ToolName = z.infer<typeof ToolName>;

/** Where a run's orchestrator code runs: in the process that started it (`local`), or in a Slurm job of its own. */
export const Executor = z.enum(["local", "slurm"]);
export type Executor = z.infer<typeof Executor>;

/** What a run's Slurm jobs ask for beyond the manifest's resources (`--partition`, `--slurm-option`), kept for resubmission. */
export const SlurmConfig = z.object({
  partition: z.string().min(1).optional(),
  /** Further sbatch options, each one argument (`--time=02:00:00`, `--account=ml`). */
  options: z.array(z.string()).default([]),
});
export type SlurmConfig = z.infer<typeof SlurmConfig>;

/** Who drives a run: an agent through the orchestrator (resumable), `rebench start`/`score`, or `rebench human`. */
export const RunDriver = z.enum(["orchestrator", "cli", "human"]);
export type RunDriver = z.infer<typeof RunDriver>;

/**
 * How a run is carried out, beside what it is (the rest of RunSpec). Every key is typed, except the
 * scaffold's own settings (`agent`), which the scaffold validates. Keys of an older rebench are dropped on
 * reading.
 */
export const RunConfig = z.object({
  /** The sandbox backend (src/runs/sandbox-backends.ts); default `local`. */
  sandbox: z.string().min(1).optional(),
  /** Default `orchestrator`. */
  driver: RunDriver.optional(),
  /** The scaffold's settings (`rebench run --agent-config`): each scaffold parses its own. */
  agent: z.record(z.string(), z.unknown()).optional(),
  /** Default `local`: the orchestrator drives the run itself; `slurm`: a Slurm job does, an element of its batch's job array (docs/gpus-and-clusters.md). */
  executor: Executor.optional(),
  /** The Slurm jobs' options, for executor `slurm`. */
  slurm: SlurmConfig.optional(),
  /** The host directory a `rebench start` run's workspace lives in (driver `cli`). */
  dir: z.string().optional(),
  /** What a `replay` run plays: the variant's reference (default), the starting solution, or these steps. */
  actions: z.union([z.literal("reference"), z.literal("start"), z.array(ReplayStep)]).optional(),
});
export type RunConfig = z.infer<typeof RunConfig>;

/**
 * The version of the event schema this rebench writes (recorded in every run's provenance). 3: generation
 * events carry the token kinds (cache reads and writes, reasoning) beside input and output, and runs driven
 * by a scheduler record job_submitted, job_started and cancel_requested.
 */
export const EVENT_SCHEMA_VERSION = 3;

/**
 * Where a run's scores come from: the rebench that created it (version and git commit, `-dirty` when the
 * checkout had changes), a digest of the files its environment variant ships, and the event schema version.
 * Absent in runs created before rebench recorded it.
 */
export const Provenance = z.object({
  rebenchVersion: z.string(),
  rebenchCommit: z.string().nullable(),
  /** sha256 over the variant's workspace and protected folders (path and content of every file). */
  environmentDigest: z.string(),
  eventSchemaVersion: z.number().int().positive(),
});
export type Provenance = z.infer<typeof Provenance>;

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
  /**
   * Start and reference raw scores: for a `mini` or `gpu` run the calibration.json entry of `machineClass`
   * (its `entry` says which), for `paper` the paper's. Absent when there is none (`normalizationMissing` says why).
   */
  normalization: NormalizationConstants.optional(),
  /**
   * The class of the machine the run is scored on (core/machine-class.ts), recorded from when calibrations
   * were kept per class; absent in older runs. A run a Slurm job drives has it from its first job's
   * `job_started` (the summary's spec; the `run_created` event's has none).
   */
  machineClass: z.string().min(1).optional(),
  /** Why the run has no normalization constants, with the command that makes them (one line). */
  normalizationMissing: z.string().min(1).optional(),
  batchId: z.string().optional(),
  config: RunConfig.default({}),
  provenance: Provenance.optional(),
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
    /** Input at the full price (for events before schema 3: all input). Kinds as in core/usage.ts. */
    inputTokens: z.number().int().nonnegative(),
    cacheReadTokens: z.number().int().nonnegative().optional(),
    cacheWriteTokens: z.number().int().nonnegative().optional(),
    cacheWrite1hTokens: z.number().int().nonnegative().optional(),
    /** All output, reasoning included. */
    outputTokens: z.number().int().nonnegative(),
    reasoningTokens: z.number().int().nonnegative().optional(),
    costUsd: z.number().nonnegative(),
    /** `costUsd` by token kind, where the client priced each. */
    costByKind: CostByKind.optional(),
    durationMs: z.number().nonnegative().optional(),
    content: z.unknown().optional(),
  }),
  z.object({ type: z.literal("action"), ...at, actionId: z.string(), tool: ToolName, input: z.unknown() }),
  z.object({
    type: z.literal("observation"),
    ...at,
    actionId: z.string(),
    tool: ToolName,
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
    limit: LimitName.optional(),
    finalRaw: z.number().finite().nullable(),
    normalized: z.number().finite().nullable(),
  }),
  z.object({ type: z.literal("run_failed"), ...at, error: z.string() }),
  /**
   * `rebench store copy --move-unfinished` copied the run, unfinished, to the store `to` (a SQLite path or a
   * PostgreSQL URL without its password), where it goes on: here it ends, and its log takes no more events.
   */
  z.object({ type: z.literal("run_moved"), ...at, to: z.string().min(1) }),
  z.object({ type: z.literal("note"), ...at, message: z.string(), data: z.unknown().optional() }),
  /** An orchestrator process took charge of the run (so another one leaves it alone while that pid lives). */
  z.object({ type: z.literal("driver_attached"), ...at, pid: z.number().int().positive(), host: z.string() }),
  /** A scheduler job was submitted to drive the run (executor `slurm`); the latest one is the run's job. */
  z.object({
    type: z.literal("job_submitted"),
    ...at,
    executor: z.literal("slurm"),
    /** `1234`, a job of the run's own; `1234_5`, element 5 of the job array 1234 (a batch's runs share one array). */
    jobId: z.string().min(1),
    /** The sbatch options it was submitted with. */
    request: z.array(z.string()),
  }),
  /**
   * The run's job started on a node, with this allocation (GPUs by index on that node, CPUs, memory), and
   * the node's machine class; for a variant calibrated per class, the constants the run gets from that
   * class's entry, or why it gets none (the summary's spec takes them: core/run-summary.ts).
   */
  z.object({
    type: z.literal("job_started"),
    ...at,
    jobId: z.string().min(1),
    node: z.string(),
    allocation: z.object({
      gpus: z.array(z.number().int().nonnegative()),
      cpus: z.number().int().positive().nullable(),
      memoryMb: z.number().int().positive().nullable(),
    }),
    machineClass: z.string().min(1).optional(),
    normalization: NormalizationConstants.optional(),
    normalizationMissing: z.string().min(1).optional(),
  }),
  /** `rebench runs cancel` asked the run's job to stop for good (its sandbox is removed, the run fails). */
  z.object({ type: z.literal("cancel_requested"), ...at, by: z.string() }),
  /** `rebench review` examined the finished run (src/review, docs/review.md); the latest review is the run's verdict. */
  z.object({ type: z.literal("review"), ...at, review: Review }),
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
