/**
 * @module
 * The Slurm executor, job side: `rebench runs drive ID` in a run's job drives the run on the node it was
 * given, as an orchestrator would, with the local sandbox held to the job's allocation: the job's GPUs
 * (no host-wide leases: the scheduler gave them to this job alone), its CPUs as a quota, at most its
 * memory. Its `job_started` event records the node's machine class and, for a variant calibrated per class,
 * the constants of that class's calibration entry, which normalize the run's scores. A job that is not the run's latest (the run was submitted again meanwhile) leaves the run alone.
 * When the job is stopped (SIGTERM from `scancel`, preemption, the node going down), the run is left as
 * the log has it, to be continued by `rebench runs resume`; only a stop that `rebench runs cancel` asked
 * for removes the run's sandbox.
 */
import { ConflictError, InvalidInputError, isTerminal, type NewRunEvent, probeMachine, type RunSummary } from "../core/index.js";
import { nodeNormalization } from "../environments/normalization-on.js";
import { getVariant } from "../environments/registry.js";
import type { SlurmAllocation } from "../slurm/index.js";
import type { RunStore } from "../store/store.js";
import { type DriveOptions, driveRun } from "./drive-run.js";
import { backendNameOf, sandboxBackend } from "./sandbox-backends.js";

/** Drive run `runId` in the Slurm job `allocation` describes; returns the run's summary when it ended here. */
export async function driveInSlurmJob(runId: string, allocation: SlurmAllocation, options: DriveOptions): Promise<RunSummary> {
  const { store } = options;
  const run = await store.getRun(runId);
  if (isTerminal(run.state)) return run;
  if (run.job?.id !== allocation.jobId) {
    throw new ConflictError(
      `Slurm job ${allocation.jobId} is not run ${runId}'s job (${run.job ? `its job is ${run.job.id}` : "it has none"}): it leaves the run alone`,
      {
        hint: "`rebench runs show ID` shows the run's job; `rebench runs resume` submits a run whose job is gone",
      },
    );
  }
  await store.append(runId, {
    type: "job_started",
    jobId: allocation.jobId,
    node: allocation.node,
    allocation: { gpus: allocation.gpus, cpus: allocation.cpus, memoryMb: allocation.memoryMb },
    // The node's class, known only now: for a variant calibrated per class, the run's constants are its entry's.
    ...nodeNormalization(run.spec, getVariant(run.spec.environment, run.spec.variant), await probeMachine()),
  });
  return driveRun(runId, {
    ...options,
    gpus: { ...options.gpus, allocated: allocation.gpus },
    allocation: { cpus: allocation.cpus, memoryMb: allocation.memoryMb },
  });
}

/**
 * What a job does when Slurm stops it: remove the run's sandbox when `rebench runs cancel` asked for it
 * (after the job's latest submission); otherwise nothing, so that the run can continue. Returns whether it
 * removed the sandbox.
 */
export async function stopInSlurmJob(store: RunStore, runId: string): Promise<boolean> {
  const events = await store.events(runId, { types: ["job_submitted", "cancel_requested"] });
  if (events.at(-1)?.event.type !== "cancel_requested") return false;
  const run = await store.getRun(runId);
  const sandbox = await sandboxBackend(backendNameOf(run.spec)).reattach(runId);
  await sandbox?.destroy();
  return true;
}

/**
 * Whether `event` may be a sign of the job being stopped rather than of the run's own doing: a command that
 * ended by a signal or with a status above 128 (a shell's report of one), a tool call that failed, a score
 * that is not a valid one (its grader killed), a run that failed. Slurm signals the sandbox's processes along
 * with the job's own, so these can reach the run first: such an event is written only while the job runs.
 */
export function mayBeTheStop(event: NewRunEvent): boolean {
  if (event.type === "run_failed") return true;
  if (event.type === "score_logged") return event.entry.outcome.kind !== "scored";
  if (event.type !== "observation" || typeof event.output !== "object" || event.output === null) return false;
  const output = event.output as { signal?: unknown; exitCode?: unknown; error?: unknown };
  return (
    (typeof output.signal === "string" && output.signal !== "") || (typeof output.exitCode === "number" && output.exitCode > 128) || output.error !== undefined
  );
}

/** The allocation of this process's Slurm job, or an error that says `runs drive` belongs in one. */
export function requireAllocation(allocation: SlurmAllocation | undefined): SlurmAllocation {
  if (!allocation) {
    throw new InvalidInputError("`rebench runs drive` runs inside a run's Slurm job (SLURM_JOB_ID is not set)", {
      hint: "`rebench run ... --executor slurm` submits such jobs; `rebench runs resume` continues a run here",
    });
  }
  return allocation;
}
