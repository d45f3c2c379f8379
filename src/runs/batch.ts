/**
 * @module
 * A batch: N runs of one (participant, environment, variant, task, time limit), at most `concurrency` at a
 * time. Running a batch again with the same id is its restart: runs already finished are kept, unfinished
 * ones are reconciled and continued (unless a live orchestrator drives them), missing ones are created.
 * With the Slurm executor each run is a job of its own (src/runs/slurm-executor.ts) and this process waits
 * for them; a run whose job is still queued or running is waited for, not submitted again.
 */
import {
  ConflictError,
  type Executor,
  InvalidInputError,
  isTerminal,
  type Participant,
  type RunSummary,
  type SlurmConfig,
  type TaskId,
  type UsageLimits,
  type Variant,
} from "../core/index.js";
import { type DriveOptions, driveRun } from "./drive-run.js";
import { claimRun, liveDriver } from "./ownership.js";
import { pool } from "./pool.js";
import { newRunSpec } from "./run-environment.js";
import { driveSlurmRuns, type SlurmContext } from "./slurm-executor.js";

export interface BatchSpec {
  /** Stable id: running the batch again with it restarts the batch. */
  id: string;
  participant: Participant;
  environment: string;
  variant: Variant;
  task: TaskId;
  /** The time limit analysis groups by; also the working-time limit unless `limits` sets one. */
  timeLimitSeconds: number;
  /** Further budgets: wall time, tokens, cost, actions. */
  limits?: UsageLimits;
  runs: number;
  concurrency: number;
  /** Sandbox backend name; default `local`. */
  sandbox?: string;
  /** Default `local` (this process drives the runs); `slurm`: a Slurm job array, an element per run, with these options. */
  executor?: Executor;
  slurm?: SlurmConfig;
  config?: Record<string, unknown>;
}

export interface BatchOptions extends DriveOptions {
  /** Called after each run ends. */
  onRunEnded?: (run: RunSummary) => void;
  /** How to submit and watch Slurm jobs; needed for executor `slurm`. */
  slurm?: SlurmContext;
}

export async function runBatch(batch: BatchSpec, options: BatchOptions): Promise<RunSummary[]> {
  const { store } = options;
  const existing = await store.listRuns({ batchId: batch.id });
  for (const run of existing) {
    const { spec } = run;
    if ((spec.config.executor ?? "local") !== (batch.executor ?? "local")) {
      throw new ConflictError(`batch ${batch.id} holds runs of the ${spec.config.executor ?? "local"} executor`, { hint: "use another batch id" });
    }
    if (spec.environment !== batch.environment || spec.variant !== batch.variant || spec.participant.alias !== batch.participant.alias) {
      throw new ConflictError(`batch ${batch.id} already holds runs of ${spec.participant.alias} on ${spec.environment}/${spec.variant}`, {
        hint: "use another batch id",
      });
    }
  }
  const spec = await newRunSpec({
    environment: batch.environment,
    variant: batch.variant,
    task: batch.task,
    participant: batch.participant,
    limits: { workingSeconds: batch.timeLimitSeconds, ...batch.limits },
    timeLimitSeconds: batch.timeLimitSeconds,
    batchId: batch.id,
    config: {
      ...batch.config,
      sandbox: batch.sandbox ?? "local",
      driver: "orchestrator",
      ...(batch.executor === "slurm" ? { executor: "slurm" as const, slurm: batch.slurm ?? { options: [] } } : {}),
    },
  });
  if (batch.executor === "slurm" && !options.slurm) throw new InvalidInputError("a Slurm batch needs the Slurm executor's settings");
  const runs = [...existing];
  while (runs.length < batch.runs) runs.push(await store.createRun(spec));
  if (batch.executor === "slurm") {
    const open = runs.filter((run) => !isTerminal(run.state));
    await driveSlurmRuns(store, open, batch.concurrency, options.slurm!, (outcome) => {
      if (outcome.kind === "ended") options.onRunEnded?.(outcome.run);
      else options.slurm!.onJobEnded?.(outcome.run, outcome.job);
    });
    return store.listRuns({ batchId: batch.id });
  }
  const mine: RunSummary[] = [];
  for (const run of runs) {
    if (isTerminal(run.state) || (await liveDriver(store, run.id))) continue;
    await claimRun(store, run.id);
    mine.push(run);
  }
  await pool(mine, batch.concurrency, async (run) => {
    const ended = await driveRun(run.id, options);
    options.onRunEnded?.(ended);
  });
  return store.listRuns({ batchId: batch.id });
}
