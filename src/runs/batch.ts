/**
 * @module
 * A batch: N runs of one (participant, environment, variant, task, time limit), at most `concurrency` at a
 * time. Running a batch again with the same id is its restart: runs already finished are kept, unfinished
 * ones are reconciled and continued (unless a live orchestrator drives them), missing ones are created.
 */
import { ConflictError, type Participant, type RunSummary, type TaskId, type UsageLimits, type Variant, isTerminal } from "../core/index.js";
import { type DriveOptions, driveRun } from "./drive-run.js";
import { claimRun, liveDriver } from "./ownership.js";
import { pool } from "./pool.js";
import { newRunSpec } from "./run-environment.js";

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
  config?: Record<string, unknown>;
}

export interface BatchOptions extends DriveOptions {
  /** Called after each run ends. */
  onRunEnded?: (run: RunSummary) => void;
}

export async function runBatch(batch: BatchSpec, options: BatchOptions): Promise<RunSummary[]> {
  const { store } = options;
  const existing = await store.listRuns({ batchId: batch.id });
  for (const run of existing) {
    const { spec } = run;
    if (spec.environment !== batch.environment || spec.variant !== batch.variant || spec.participant.alias !== batch.participant.alias) {
      throw new ConflictError(`batch ${batch.id} already holds runs of ${spec.participant.alias} on ${spec.environment}/${spec.variant}`, {
        hint: "use another batch id",
      });
    }
  }
  const spec = newRunSpec({
    environment: batch.environment,
    variant: batch.variant,
    task: batch.task,
    participant: batch.participant,
    limits: { workingSeconds: batch.timeLimitSeconds, ...batch.limits },
    timeLimitSeconds: batch.timeLimitSeconds,
    batchId: batch.id,
    config: { ...batch.config, sandbox: batch.sandbox ?? "local", driver: "orchestrator" },
  });
  const runs = [...existing];
  while (runs.length < batch.runs) runs.push(await store.createRun(spec));
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
