/**
 * @module
 * What a Slurm job was given, read from the environment slurmd sets for the batch script: the job id (for an
 * element of a job array, `ARRAYJOB_INDEX`, as squeue, scancel and the run's record name it), the node, the GPUs (by index on the node: `SLURM_JOB_GPUS`, else `CUDA_VISIBLE_DEVICES`), the CPUs on the node
 * and the memory. A run's sandbox is held to these, and its GPUs come from here instead of rebench's
 * host-wide leases: the scheduler already gave them to this job alone.
 */
import { InvalidInputError } from "../core/index.js";

export interface SlurmAllocation {
  /** `1234`, or for an element of a job array `1234_5` (the array's job id and the element's index). */
  jobId: string;
  node: string;
  gpus: number[];
  /** CPUs of the job on this node; null when Slurm did not say. */
  cpus: number | null;
  /** Memory of the job on this node in MiB; null when Slurm did not say. */
  memoryMb: number | null;
}

/** The allocation of the job this process runs in, or undefined outside a Slurm job. */
export function slurmAllocation(env: NodeJS.ProcessEnv = process.env): SlurmAllocation | undefined {
  if (!env.SLURM_JOB_ID) return undefined;
  const array = env.SLURM_ARRAY_JOB_ID && env.SLURM_ARRAY_TASK_ID ? `${env.SLURM_ARRAY_JOB_ID}_${env.SLURM_ARRAY_TASK_ID}` : undefined;
  const jobId = array ?? env.SLURM_JOB_ID;
  const cpus = positive(env.SLURM_CPUS_ON_NODE ?? env.SLURM_JOB_CPUS_PER_NODE?.split(/[(,]/)[0]);
  const perNode = positive(env.SLURM_MEM_PER_NODE);
  const perCpu = positive(env.SLURM_MEM_PER_CPU);
  return {
    jobId,
    node: env.SLURMD_NODENAME ?? env.SLURM_NODELIST ?? "",
    gpus: gpuIndices(env.SLURM_JOB_GPUS ?? env.SLURM_STEP_GPUS ?? env.CUDA_VISIBLE_DEVICES ?? ""),
    cpus,
    memoryMb: perNode ?? (perCpu !== null && cpus !== null ? perCpu * cpus : null),
  };
}

function positive(value: string | undefined): number | null {
  const n = Number.parseInt(value ?? "", 10);
  return Number.isInteger(n) && n > 0 ? n : null;
}

/** `0,2` or `0-1,3` as GPU indices; GPU UUIDs (some sites set CUDA_VISIBLE_DEVICES so) are refused. */
export function gpuIndices(text: string): number[] {
  const out: number[] = [];
  for (const part of text
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)) {
    const range = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!range) {
      throw new InvalidInputError(`cannot read the job's GPUs from "${text}": expected indices such as 0,1`, {
        hint: "configure the gpu GRES with device files (gres.conf File=/dev/nvidia[0-N]) so that Slurm sets SLURM_JOB_GPUS",
      });
    }
    const from = Number(range[1]);
    const to = range[2] === undefined ? from : Number(range[2]);
    for (let i = from; i <= to; i++) out.push(i);
  }
  return out;
}
