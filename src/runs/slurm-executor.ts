/**
 * @module
 * The Slurm executor, orchestrator side: each run is driven by a Slurm job (`rebench runs drive ID` on a
 * node, which drives it there: src/runs/slurm-job.ts) asking for the GPUs, CPUs and memory its manifest
 * names. The runs to submit that ask for the same (resources, partition, options) go in one job array, one
 * sbatch for all of them: element i drives the i-th (its id is `ARRAYJOB_i`); a run that must continue on
 * the node holding its sandbox gets a job of its own. A job or array is submitted held, recorded in each of
 * its runs (`job_submitted`), then released, so a job never runs unrecorded. This process then waits for
 * the runs to end, reading the shared store, and asks Slurm now and then whether each run's job (or
 * element) is still there: a job that ended before its run (node failure, preemption, `scancel`) is
 * reported, and `rebench runs resume` submits that run again, alone (to the node that holds its sandbox),
 * where it continues from its event log.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { isTerminal, type RunSummary, rebenchHome } from "../core/index.js";
import {
  arrayScript,
  batchScript,
  cancelJob,
  type JobInfo,
  jobActive,
  jobStates,
  MAX_ARRAY_ELEMENTS,
  nodeUsable,
  releaseJob,
  sbatch,
  sbatchArgs,
} from "../slurm/index.js";
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
  /** Called when a run's own job was submitted (a run resubmitted to its node). */
  onSubmitted?: (run: RunSummary, jobId: string) => void;
  /** Called when a job array was submitted: element i (`jobId_i`) drives `runs[i]`. */
  onArraySubmitted?: (runs: readonly RunSummary[], jobId: string) => void;
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
  const args = sbatchArgs({ ...jobRequest(run, context), name: run.id, ...(node ? { node } : {}) });
  const jobId = await submitRecorded(args, batchScript(context.command, ["runs", "drive", run.id]), context, (id, request) =>
    store.append(run.id, { type: "job_submitted", executor: "slurm", jobId: id, request }),
  );
  context.onSubmitted?.(run, jobId);
  return jobId;
}

/**
 * Submit a job (or array) held, `record` it in its runs (given its id and the request without `--hold`), then
 * release it, so that it never runs unrecorded. When recording fails the job is cancelled: held, nothing of it
 * ran, and the runs recorded so far see their job gone and are submitted again.
 */
async function submitRecorded(
  args: string[],
  script: string,
  context: SlurmContext,
  record: (jobId: string, request: string[]) => Promise<unknown>,
): Promise<string> {
  const jobId = await oneSubmissionSlot(() => sbatch({ args, script, env: { ...process.env, REBENCH_DB: context.db } }));
  try {
    await record(
      jobId,
      args.filter((a) => a !== "--hold"),
    );
  } catch (error) {
    await cancelJob(jobId).catch(() => undefined);
    throw error;
  }
  await releaseJob(jobId);
  return jobId;
}

/**
 * Submit one job array for `runs` (which ask for the same resources, partition and options; at most
 * MAX_ARRAY_ELEMENTS of them), at most `throttle` elements running at once: element i drives `runs[i]`, and
 * is recorded in it as its job `ARRAYJOB_i` before the array is released. Returns the array's job id.
 */
export async function submitRunArray(store: RunStore, runs: readonly RunSummary[], context: SlurmContext, throttle?: number): Promise<string> {
  const first = runs[0];
  if (!first || runs.length > MAX_ARRAY_ELEMENTS) throw new Error(`a job array holds 1 to ${MAX_ARRAY_ELEMENTS} runs, not ${runs.length}`);
  const args = sbatchArgs({
    ...jobRequest(first, context),
    name: first.spec.batchId ?? first.id,
    array: { size: runs.length, ...(throttle !== undefined ? { throttle } : {}) },
  });
  const script = arrayScript(
    context.command,
    ["runs", "drive"],
    runs.map((r) => r.id),
  );
  const arrayId = await submitRecorded(args, script, context, (id, request) =>
    pool([...runs.keys()], RECORDING_AT_ONCE, (i) => store.append(runs[i]!.id, { type: "job_submitted", executor: "slurm", jobId: `${id}_${i}`, request })),
  );
  context.onArraySubmitted?.(runs, arrayId);
  return arrayId;
}

/** Appends of `job_submitted` in flight at once while an array's runs are recorded. */
const RECORDING_AT_ONCE = 8;

/** What a run's job asks Slurm for: its manifest's resources, its partition and options, where its output goes. */
function jobRequest(run: RunSummary, context: SlurmContext) {
  const slurm = run.spec.config.slurm;
  const logDir = context.logDir ?? path.join(rebenchHome(), "slurm");
  mkdirSync(logDir, { recursive: true });
  return {
    resources: runEnvironment(run.spec).manifest.resources,
    ...(slurm?.partition ? { partition: slurm.partition } : {}),
    options: slurm?.options ?? [],
    logDir,
  };
}

/**
 * Submit `runs` as job arrays: one per group of runs that ask for the same (sbatch options but for the
 * name and output), of at most MAX_ARRAY_ELEMENTS, each running at most `concurrency` elements at once.
 */
async function submitRunArrays(store: RunStore, runs: readonly RunSummary[], concurrency: number, context: SlurmContext): Promise<void> {
  const groups = new Map<string, RunSummary[]>();
  for (const run of runs) {
    const { logDir: _logDir, ...asks } = jobRequest(run, context);
    const key = JSON.stringify(sbatchArgs({ ...asks, name: "", logDir: "" }));
    groups.set(key, [...(groups.get(key) ?? []), run]);
  }
  for (const group of groups.values()) {
    for (let from = 0; from < group.length; from += MAX_ARRAY_ELEMENTS) {
      await submitRunArray(store, group.slice(from, from + MAX_ARRAY_ELEMENTS), context, concurrency);
    }
  }
}

/**
 * Bring these runs (executor `slurm`, unfinished) to their end: runs whose job is still queued or running
 * are waited for; the others that may start anywhere are submitted as job arrays (one sbatch per group of
 * runs asking for the same; at most `concurrency` elements of an array run at once), and each run that must
 * continue on its sandbox's node gets a job of its own there (at most `concurrency` of those in Slurm at
 * once). Resolves per run with how it ended here: the run ended, or its job ended first.
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
  const outcome = (o: SlurmOutcome): SlurmOutcome => {
    onOutcome?.(o);
    return o;
  };
  try {
    const waited: Array<Promise<SlurmOutcome>> = [];
    const anywhere: Array<{ run: RunSummary; at: number }> = [];
    const toNode: Array<{ run: RunSummary; node: string; at: number }> = [];
    for (const [at, run] of runs.entries()) {
      const current = await store.getRun(run.id);
      const job = current.job ? states.get(current.job.id) : undefined;
      if (isTerminal(current.state)) waited[at] = Promise.resolve(outcome({ kind: "ended", run: current }));
      else if (job && jobActive(job.state)) waited[at] = watch.wait(run.id).then(outcome);
      else {
        const node = await resumeNode(current, context);
        if (node) toNode.push({ run: current, node, at });
        else anywhere.push({ run: current, at });
      }
    }
    // A run is waited for once its new job is recorded: before, its old job's end would count as its job's.
    await submitRunArrays(
      store,
      anywhere.map((a) => a.run),
      concurrency,
      context,
    );
    for (const { run, at } of anywhere) waited[at] = watch.wait(run.id).then(outcome);
    const alone = pool(toNode, concurrency, async ({ run, node }) => {
      await submitRunJob(store, run, context, node);
      return watch.wait(run.id).then(outcome);
    });
    for (const [i, { at }] of toNode.entries()) waited[at] = alone.then((outcomes) => outcomes[i]!);
    return await Promise.all(waited);
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
