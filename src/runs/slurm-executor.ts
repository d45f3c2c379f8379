/**
 * @module
 * The Slurm executor, orchestrator side: each run is a Slurm job (`rebench runs drive ID` on a node, which
 * drives it there: src/runs/slurm-job.ts) asking for the GPUs, CPUs and memory its manifest names. The
 * job is submitted held, recorded in the run (`job_submitted`), then released, so a job never runs
 * unrecorded. This process then waits for the runs to end, reading the shared store, and asks Slurm now
 * and then whether each run's job is still there: a job that ended before its run (node failure,
 * preemption, `scancel`) is reported, and `rebench runs resume` submits the run again (to the node that
 * holds its sandbox), where it continues from its event log.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { isTerminal, type RunSummary, rebenchHome } from "../core/index.js";
import { batchScript, cancelJob, type JobInfo, jobActive, jobStates, nodeUsable, releaseJob, sbatch, sbatchArgs } from "../slurm/index.js";
import type { RunStore } from "../store/store.js";
import { pool } from "./pool.js";
import { runEnvironment } from "./run-environment.js";

export interface SlurmContext {
  /** The argv that starts this rebench (node, its flags, the entry script): what each job runs, with `runs drive ID`. */
  command: readonly string[];
  /** The store as the jobs open it (their REBENCH_DB): a SQLite path, or a PostgreSQL URL every node reaches. */
  db: string;
  /** Where the jobs' output goes; default `$REBENCH_HOME/slurm` (it must be visible on the nodes too). */
  logDir?: string;
  /** Milliseconds between reads of the store while waiting; default 1000. */
  pollMs?: number;
  /** Milliseconds between asking Slurm for the jobs' states; default 5000. */
  jobPollMs?: number;
  /** Called when a run's job was submitted. */
  onSubmitted?: (run: RunSummary, jobId: string) => void;
  /** Called when a run's job ended before the run did (it needs `rebench runs resume`). */
  onJobEnded?: (run: RunSummary, job: JobInfo) => void;
  /** Called with lines worth printing (a node gone, a held job released). */
  onNote?: (line: string) => void;
}

/** sbatch calls in flight at once from this process: a batch of hundreds does not start hundreds of them. */
const SUBMITTING_AT_ONCE = 4;
let submitting = 0;
const waitingToSubmit: Array<() => void> = [];

async function oneSubmissionSlot<T>(fn: () => Promise<T>): Promise<T> {
  // A slot freed is handed to the next waiter directly, so that no newcomer takes it in between.
  if (submitting >= SUBMITTING_AT_ONCE) await new Promise<void>((resolve) => waitingToSubmit.push(resolve));
  else submitting += 1;
  try {
    return await fn();
  } finally {
    const next = waitingToSubmit.shift();
    if (next) next();
    else submitting -= 1;
  }
}

export type SlurmOutcome = { kind: "ended"; run: RunSummary } | { kind: "jobEnded"; run: RunSummary; job: JobInfo };

/** Submit a job for `run` (to `node` when given) and record it in the run; returns the job id. */
export async function submitRunJob(store: RunStore, run: RunSummary, context: SlurmContext, node?: string): Promise<string> {
  const env = runEnvironment(run.spec);
  const slurm = run.spec.config.slurm;
  const logDir = context.logDir ?? path.join(rebenchHome(), "slurm");
  mkdirSync(logDir, { recursive: true });
  const args = sbatchArgs({
    runId: run.id,
    resources: env.manifest.resources,
    ...(slurm?.partition ? { partition: slurm.partition } : {}),
    options: slurm?.options ?? [],
    ...(node ? { node } : {}),
    logDir,
  });
  const jobId = await oneSubmissionSlot(() =>
    sbatch({
      args,
      script: batchScript(context.command, ["runs", "drive", run.id]),
      env: { ...process.env, REBENCH_DB: context.db },
    }),
  );
  try {
    await store.append(run.id, { type: "job_submitted", executor: "slurm", jobId, request: args.filter((a) => a !== "--hold") });
  } catch (error) {
    await cancelJob(jobId).catch(() => undefined);
    throw error;
  }
  await releaseJob(jobId);
  context.onSubmitted?.(run, jobId);
  return jobId;
}

/**
 * Bring these runs (executor `slurm`, unfinished) to their end: runs whose job is still queued or running
 * are waited for, the others get a job (at most `concurrency` jobs of them in Slurm at once). Resolves per
 * run with how it ended here: the run ended, or its job ended first.
 */
export async function driveSlurmRuns(
  store: RunStore,
  runs: readonly RunSummary[],
  concurrency: number,
  context: SlurmContext,
  onOutcome?: (outcome: SlurmOutcome) => void,
): Promise<SlurmOutcome[]> {
  const jobIds = runs.flatMap((r) => (r.job ? [r.job.id] : []));
  const states = await jobStates(jobIds);
  const watch = new JobWatch(store, context);
  try {
    return await pool(runs, concurrency, async (run) => {
      const current = await store.getRun(run.id);
      let outcome: SlurmOutcome = { kind: "ended", run: current };
      if (!isTerminal(current.state)) {
        const job = current.job ? states.get(current.job.id) : undefined;
        if (!job || !jobActive(job.state)) await submitRunJob(store, current, context, await resumeNode(current, context));
        outcome = await watch.wait(run.id);
      }
      onOutcome?.(outcome);
      return outcome;
    });
  } finally {
    watch.stop();
  }
}

/**
 * The node a run must continue on: the one its sandbox lives on (its last job's), once it has a sandbox,
 * while that node is up. Otherwise anywhere (a run whose node is gone then fails there, its score log kept).
 */
async function resumeNode(run: RunSummary, context: SlurmContext): Promise<string | undefined> {
  const node = run.job?.node;
  if (!node || run.state === "queued" || run.state === "starting") return undefined;
  if (await nodeUsable(node)) return node;
  context.onNote?.(`run ${run.id}: node ${node}, which holds its sandbox, is not up; submitting it to any node, where it cannot continue\n`);
  return undefined;
}

/** Cancel a run's job if it is still queued or running; resolves once Slurm no longer runs it (or after `waitMs`). */
export async function cancelRunJob(jobId: string, waitMs = 120_000, pollMs = 1000): Promise<JobInfo> {
  await cancelJob(jobId);
  const deadline = Date.now() + waitMs;
  for (;;) {
    const info = (await jobStates([jobId])).get(jobId)!;
    if (!jobActive(info.state) || Date.now() > deadline) return info;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

const CANCEL_GRACE_MS = 120_000;

/** Waits for runs to end, reading the store every `pollMs` and asking Slurm for their jobs every `jobPollMs`. */
class JobWatch {
  readonly #store: RunStore;
  readonly #context: SlurmContext;
  readonly #waiting = new Map<string, (outcome: SlurmOutcome) => void>();
  readonly #timer: NodeJS.Timeout;
  #lastJobPoll = Date.now();
  #ticking = false;

  constructor(store: RunStore, context: SlurmContext) {
    this.#store = store;
    this.#context = context;
    this.#timer = setInterval(() => void this.#tick(), context.pollMs ?? 1000);
  }

  wait(runId: string): Promise<SlurmOutcome> {
    return new Promise((resolve) => this.#waiting.set(runId, resolve));
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  /**
   * Whether `rebench runs cancel` stopped this job and is about to end the run (it does once the job is
   * gone): give it two minutes before calling the job dead.
   */
  async #beingCancelled(run: RunSummary): Promise<boolean> {
    const events = await this.#store.events(run.id, { types: ["job_submitted", "cancel_requested"] });
    const last = events.at(-1)?.event;
    return last?.type === "cancel_requested" && Date.now() - Date.parse(last.ts) < CANCEL_GRACE_MS;
  }

  #settle(runId: string, outcome: SlurmOutcome): void {
    this.#waiting.get(runId)?.(outcome);
    this.#waiting.delete(runId);
  }

  async #tick(): Promise<void> {
    if (this.#ticking || this.#waiting.size === 0) return;
    this.#ticking = true;
    try {
      const open: RunSummary[] = [];
      for (const id of this.#waiting.keys()) {
        const run = await this.#store.getRun(id);
        if (isTerminal(run.state)) this.#settle(id, { kind: "ended", run });
        else open.push(run);
      }
      if (Date.now() - this.#lastJobPoll < (this.#context.jobPollMs ?? 5000) || open.length === 0) return;
      this.#lastJobPoll = Date.now();
      const states = await jobStates(open.flatMap((r) => (r.job ? [r.job.id] : [])));
      for (const run of open) {
        const job = run.job ? states.get(run.job.id) : undefined;
        if (!job) continue;
        if (job.state === "PENDING" && job.reason === "JobHeldUser") {
          // Recorded, but its submitter died before releasing it.
          await releaseJob(job.id);
          this.#context.onNote?.(`run ${run.id}: released its job ${job.id}, left held\n`);
          continue;
        }
        if (jobActive(job.state)) continue;
        // The job wrote the run's last event before it ended: read the run again before calling the job dead.
        const again = await this.#store.getRun(run.id);
        if (isTerminal(again.state)) this.#settle(run.id, { kind: "ended", run: again });
        else if (again.job?.id === job.id && !(await this.#beingCancelled(again))) this.#settle(run.id, { kind: "jobEnded", run: again, job });
      }
    } catch (error) {
      // A store or Slurm that does not answer this time may answer the next; say so once per failure.
      this.#context.onNote?.(`waiting for the runs' jobs: ${(error as Error).message}\n`);
    } finally {
      this.#ticking = false;
    }
  }
}
