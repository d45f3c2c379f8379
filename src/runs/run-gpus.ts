/**
 * @module
 * Which host GPUs a run's sandbox gets: a host-wide lease (src/sandbox/gpu-leases.ts) on the lowest free
 * ones, waiting while every GPU is leased to other runs, released when the run's sandbox is destroyed
 * (src/runs/destroy-run-sandbox.ts).
 * Leases live in `$REBENCH_HOME/gpu-leases`, shared by every rebench process of this home. A run driven by
 * an orchestrator holds its lease through that process (a crash frees it: the pid is gone; the run resumed
 * later leases its sandbox's GPUs again); a run started by `rebench start` outlives its process, so its
 * lease lives as long as its sandbox does and `rebench score --submit` (another process) releases it.
 */
import { InfrastructureError, pidAlive } from "../core/index.js";
import { acquireGpus, adoptRunGpus, type GpuLease, type GpuLeaseRecord, type HeldGpu } from "../sandbox/gpu-leases.js";
import { machineGpus } from "./resource-check.js";
import type { RunLog } from "./run-log.js";
import { sandboxBackend } from "./sandbox-backends.js";

export interface RunGpuOptions {
  /**
   * GPUs a scheduler gave this process's job alone (a Slurm job's SLURM_JOB_GPUS): the run takes them as
   * they are, without host-wide leases, which the scheduler's allocation replaces.
   */
  allocated?: readonly number[];
  /** The host's GPU indices; default nvidia-smi's (0..n-1), none without it. */
  hostGpus?: readonly number[];
  /** How many runs may share one GPU (default 1: a GPU per run); for variants whose score times nothing. */
  runsPerGpu?: number;
  /** Called once when the run has to wait for a GPU, with a line to print and the leases in the way. */
  onWait?: (message: string, held: readonly HeldGpu[]) => void;
  /** Milliseconds between attempts while waiting; default 1000. */
  pollMs?: number;
  signal?: AbortSignal;
}

/**
 * Lease `count` GPUs for run `runId`. `keepWithSandbox`: the backend name, when the lease must outlive
 * this process for as long as the run's sandbox exists (`rebench start`).
 */
export async function leaseRunGpus(runId: string, count: number, options: RunGpuOptions = {}, keepWithSandbox?: string): Promise<GpuLease> {
  if (count === 0) return { gpus: [], release: async () => undefined };
  if (options.allocated) {
    if (options.allocated.length < count) {
      throw new InfrastructureError(
        `run ${runId} needs ${count} GPU(s) and its job was allocated ${options.allocated.length} (${options.allocated.join(", ") || "none"})`,
        {
          hint: "the cluster's gpu GRES must set SLURM_JOB_GPUS (gres.conf File=/dev/nvidia...); check `scontrol show node`",
        },
      );
    }
    return { gpus: options.allocated.slice(0, count), release: async () => undefined };
  }
  const hostGpus = options.hostGpus ?? machineGpus().map((_, index) => index);
  return acquireGpus(count, {
    hostGpus,
    runId,
    isLive: leaseHolderAlive,
    ...(options.runsPerGpu === undefined ? {} : { slots: options.runsPerGpu }),
    ...(keepWithSandbox ? { sandbox: keepWithSandbox } : {}),
    ...(options.pollMs === undefined ? {} : { pollMs: options.pollMs }),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onWait ? { onWait: (held: readonly HeldGpu[]) => options.onWait!(waitingLine(runId, count, hostGpus.length, held), held) } : {}),
  });
}

/** Log which host GPUs the run got: a note whose `data.gpus` lists the indices, and `data.runsPerGpu` when runs share them (`rebench runs show --events`). */
export function noteLeasedGpus(log: RunLog, runsPerGpu = 1): (gpus: readonly number[]) => Promise<void> {
  return async (gpus) => {
    const shared = runsPerGpu > 1 ? ` (shared: up to ${runsPerGpu} runs a GPU)` : "";
    await log.append({
      type: "note",
      message: `host GPU${gpus.length === 1 ? "" : "s"} ${gpus.join(", ")} leased to this run${shared}`,
      data: { gpus, ...(runsPerGpu > 1 ? { runsPerGpu } : {}) },
    });
  };
}

/**
 * A run continuing after its orchestrator died keeps the GPUs its sandbox was given (its latest `data.gpus`
 * note): lease them to this process again, and note any that another run took meanwhile (now shared).
 */
export async function readoptRunGpus(log: RunLog, options: Pick<RunGpuOptions, "allocated"> = {}): Promise<void> {
  let gpus: readonly number[] = [];
  for (const { event } of await log.store.events(log.id, { types: ["note"] })) {
    const data = event.type === "note" ? (event.data as { gpus?: unknown } | undefined) : undefined;
    if (Array.isArray(data?.gpus) && data.gpus.every((g) => Number.isInteger(g))) gpus = data.gpus as number[];
  }
  if (options.allocated) {
    // A scheduler's job: its allocation, not a lease, decides. A sandbox made by an earlier job keeps its GPUs.
    const outside = gpus.filter((g) => !options.allocated!.includes(g));
    if (outside.length > 0) {
      await log.append({
        type: "note",
        message: `this run's sandbox keeps GPU${outside.length === 1 ? "" : "s"} ${outside.join(", ")} of its first job, outside this job's allocation (${options.allocated.join(", ") || "none"})`,
        data: { allocated: options.allocated },
      });
    }
    return;
  }
  const clashes = await adoptRunGpus(log.id, gpus, { isLive: leaseHolderAlive });
  for (const { gpu, lease } of clashes) {
    await log.append({
      type: "note",
      message: `host GPU ${gpu} of this run's sandbox was leased to run ${lease.runId} while the run was down: the two share it`,
    });
  }
}

/** A lease holds while its process lives, or, for a `rebench start` run, while the run's sandbox exists. */
async function leaseHolderAlive(lease: GpuLeaseRecord): Promise<boolean> {
  if (pidAlive(lease.pid)) return true;
  if (!lease.sandbox) return false;
  try {
    return (await sandboxBackend(lease.sandbox).reattach(lease.runId)) !== undefined;
  } catch {
    return false;
  }
}

function waitingLine(runId: string, count: number, hostCount: number, held: readonly HeldGpu[]): string {
  const holders = [...new Set(held.map((h) => h.lease.runId))].join(", ");
  const what = count === 1 ? "a free GPU" : `${count} free GPUs`;
  const busy = new Set(held.map((h) => h.gpu)).size;
  return `run ${runId} is waiting for ${what} (${busy} of ${hostCount} held by run${held.length === 1 ? "" : "s"} ${holders})\n`;
}
