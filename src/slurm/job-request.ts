/**
 * @module
 * The sbatch options of a run's job, from the variant's manifest (its GPUs, CPUs and memory) and the
 * user's `--partition` and `--slurm-option`s, which come last so that they win over rebench's. The job is
 * submitted held, so that the run records the job id before the job can start.
 */
import type { Resources } from "../core/index.js";
import { shellJoin } from "../core/index.js";

export interface JobRequest {
  runId: string;
  resources: Resources;
  partition?: string;
  /** Further sbatch options, each one argument. */
  options?: readonly string[];
  /** The node the job must run on (a resumed run's sandbox lives there). */
  node?: string;
  /** Where the job's output goes: `<logDir>/<runId>-<jobid>.out`. */
  logDir: string;
}

/** The sbatch options, without `--parsable` (added by sbatch()). */
export function sbatchArgs(request: JobRequest): string[] {
  const { resources } = request;
  const gpus = resources.gpu?.countRange[0] ?? 0;
  return [
    "--hold",
    `--job-name=rebench-${request.runId}`,
    `--output=${request.logDir}/${request.runId}-%j.out`,
    "--nodes=1",
    "--ntasks=1",
    `--cpus-per-task=${resources.cpus}`,
    `--mem=${Math.ceil(resources.memoryGb * 1024)}M`,
    ...(gpus > 0 ? [`--gres=gpu:${gpus}`] : []),
    ...(request.partition ? [`--partition=${request.partition}`] : []),
    ...(request.node ? [`--nodelist=${request.node}`] : []),
    ...(request.options ?? []),
  ];
}

/** The batch script: exec `command` (the rebench that submitted it, as argv) with `args`. */
export function batchScript(command: readonly string[], args: readonly string[]): string {
  return `#!/bin/sh\n# a rebench run's job: drives the run on this node (docs/gpus-and-clusters.md)\nexec ${shellJoin([...command, ...args])}\n`;
}
