/**
 * @module
 * `rebench runs resume`: reconcile and continue every unfinished agent run whose orchestrator is gone
 * (killed, crashed, the machine rebooted), at most `concurrency` at a time. Runs driven by a live
 * orchestrator and human runs (driven by `rebench score` from a shell) are left alone, and so are runs this
 * process cannot drive (environment, sandbox backend or scaffold missing here): they are reported as skipped.
 * Runs of the Slurm executor are Slurm's to run: one whose job is still queued or running is waited for;
 * one whose job is gone (node failure, preemption, `scancel`), or that never got one, is submitted again,
 * to the node that holds its sandbox, and its job continues it from the log.
 */
import { isTerminal, RebenchError, RUN_STATES, type RunState, type RunSummary } from "../core/index.js";
import { type DriveOptions, driveRun } from "./drive-run.js";
import { claimRun, liveDriver } from "./ownership.js";
import { pool } from "./pool.js";
import { driveSlurmRuns, type SlurmContext } from "./slurm-executor.js";

export interface ResumeOptions extends DriveOptions {
  concurrency?: number;
  /** Only these runs (default: all unfinished). */
  runIds?: readonly string[];
  onRunEnded?: (run: RunSummary) => void;
  /** Called once the runs to continue are known (and claimed), before any is driven. */
  onStart?: (runs: readonly RunSummary[]) => void;
  /** How to submit and watch Slurm jobs, for runs of the Slurm executor (skipped without it). */
  slurm?: SlurmContext;
}

export interface ResumeReport {
  resumed: RunSummary[];
  /** Runs left alone, and why; `failed`: one that could not be continued (an error, its Slurm job ended first). */
  skipped: Array<{ run: RunSummary; why: string; failed?: boolean }>;
}

const UNFINISHED: readonly RunState[] = RUN_STATES.filter((s) => !isTerminal(s));

export async function resumeRuns(options: ResumeOptions): Promise<ResumeReport> {
  const { store } = options;
  const candidates = options.runIds ? await Promise.all(options.runIds.map((id) => store.getRun(id))) : await store.listRuns({ states: UNFINISHED });
  const todo: RunSummary[] = [];
  const slurmTodo: RunSummary[] = [];
  const skipped: ResumeReport["skipped"] = [];
  for (const run of candidates) {
    if (isTerminal(run.state)) {
      skipped.push({ run, why: `already ${run.state}` });
      continue;
    }
    if (run.spec.config.driver === "cli") {
      skipped.push({ run, why: "a human run: it continues with `rebench score --dir DIR`" });
      continue;
    }
    if (run.spec.config.driver === "human") {
      skipped.push({ run, why: "a human run of `rebench human`: its terminal closed with the process that ran it" });
      continue;
    }
    if (run.spec.config.executor === "slurm") {
      if (options.slurm) slurmTodo.push(run);
      else skipped.push({ run, why: "a run of the Slurm executor: resume it where Slurm's commands work" });
      continue;
    }
    const driver = await liveDriver(store, run.id);
    if (driver) {
      skipped.push({ run, why: `driven by the live process ${driver.pid} on ${driver.host}` });
      continue;
    }
    await claimRun(store, run.id);
    todo.push(run);
  }
  options.onStart?.([...todo, ...slurmTodo]);
  const onCluster =
    slurmTodo.length === 0
      ? Promise.resolve([])
      : driveSlurmRuns(store, slurmTodo, options.concurrency ?? slurmTodo.length, options.slurm!, (outcome) => {
          if (outcome.kind === "ended") options.onRunEnded?.(outcome.run);
        });
  const results = await pool(todo, options.concurrency ?? 4, async (run) => {
    try {
      const ended = await driveRun(run.id, options);
      options.onRunEnded?.(ended);
      return ended;
    } catch (error) {
      if (!(error instanceof RebenchError)) throw error;
      skipped.push({ run, why: error.hint ? `${error.message} (${error.hint})` : error.message, failed: true });
      return undefined;
    }
  });
  const resumed = results.filter((r): r is RunSummary => r !== undefined);
  for (const outcome of await onCluster) {
    if (outcome.kind === "ended") resumed.push(outcome.run);
    else {
      skipped.push({
        run: outcome.run,
        why: `its Slurm job ${outcome.job.id} ended (${outcome.job.state}) before the run did: \`rebench runs resume\` submits it again`,
        failed: true,
      });
    }
  }
  return { resumed, skipped };
}
