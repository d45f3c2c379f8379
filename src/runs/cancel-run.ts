/**
 * @module
 * `rebench runs cancel ID`: end a run that has not ended, for good. A run of the Slurm executor: the run
 * records the request (`cancel_requested`), its job is cancelled (its `runs drive` removes the sandbox on
 * the node as it stops), then the run fails with the reason. A local run: refused while a live
 * orchestrator drives it (stopping that process is the way: its other runs continue with `rebench runs
 * resume`); otherwise its sandbox on this host is removed (what could not be is noted in the run's log and in
 * the result) and the run fails. Its score log is kept.
 */
import os from "node:os";
import { ConflictError, isTerminal, type RunSummary } from "../core/index.js";
import { type JobInfo, jobActive, jobStates } from "../slurm/index.js";
import type { RunStore } from "../store/store.js";
import { destroyRunSandbox } from "./destroy-run-sandbox.js";
import { liveDriver } from "./ownership.js";
import { backendNameOf, sandboxBackend } from "./sandbox-backends.js";
import { cancelRunJob } from "./slurm-executor.js";

export interface CancelResult {
  run: RunSummary;
  /** The run's job, as Slurm last saw it (Slurm runs). */
  job?: JobInfo;
  /** Things the person should know: a job that did not end in time, a sandbox left on a node. */
  notes: string[];
}

export interface CancelOptions {
  /** Milliseconds to wait for the job to end after scancel; default 120 000. */
  waitMs?: number;
}

export async function cancelRun(store: RunStore, runId: string, options: CancelOptions = {}): Promise<CancelResult> {
  const run = await store.getRun(runId);
  if (isTerminal(run.state)) {
    throw new ConflictError(`run ${run.id} has already ${run.state === "finished" ? "finished" : "failed"}`, {
      hint: "`rebench runs show ID` shows how it ended",
    });
  }
  const by = `${os.userInfo().username}@${os.hostname()}`;
  const notes: string[] = [];
  let job: JobInfo | undefined;
  if (run.spec.config.executor === "slurm") {
    await store.append(run.id, { type: "cancel_requested", by });
    if (run.job) {
      job = (await jobStates([run.job.id])).get(run.job.id)!;
      if (jobActive(job.state)) {
        job = await cancelRunJob(run.job.id, options.waitMs);
        if (jobActive(job.state)) notes.push(`Slurm job ${job.id} is still ${job.state} after scancel`);
      } else if (run.job.node && run.state !== "queued") {
        notes.push(`its job ${run.job.id} had already ended (${job.state}); the run's sandbox on node ${run.job.node}, if any, is left there`);
      }
    }
  } else {
    const driver = await liveDriver(store, run.id);
    if (driver) {
      throw new ConflictError(`run ${run.id} is driven by the live process ${driver.pid} on ${driver.host}`, {
        hint: `stop that orchestrator (kill ${driver.pid} on ${driver.host}); its other runs continue with \`rebench runs resume\`, this one can then be cancelled`,
      });
    }
    const sandbox = await sandboxBackend(backendNameOf(run.spec))
      .reattach(run.id)
      .catch(() => undefined);
    const teardown = await destroyRunSandbox({ id: run.id, summary: run, append: (event) => store.append(run.id, event) }, sandbox);
    if (teardown.kind === "left") notes.push(`its sandbox was not removed: ${teardown.error}; to remove it: ${teardown.hint}`);
  }
  const now = await store.getRun(run.id);
  if (!isTerminal(now.state)) {
    await store.append(run.id, { type: "run_failed", error: `cancelled by ${by} (\`rebench runs cancel\`${run.job ? `, Slurm job ${run.job.id}` : ""})` });
  }
  return { run: await store.getRun(run.id), ...(job ? { job } : {}), notes };
}
