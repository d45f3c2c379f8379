/**
 * @module
 * The sbatch options of a run's job, or of a batch's job array, from the variant's manifest (its GPUs, CPUs
 * and memory) and the user's `--partition` and `--slurm-option`s, which come last so that they win over
 * rebench's. The job is submitted held, so that the runs record the job id before the job can start. A job
 * array's batch script holds its runs' ids: element `SLURM_ARRAY_TASK_ID` = i drives the i-th.
 */
import type { Resources } from "../core/index.js";
import { shellJoin } from "../core/index.js";

/**
 * The most elements of one job array: Slurm's default MaxArraySize (1001) allows indices 0 to 1000. A group of
 * more runs is submitted as several arrays.
 */
export const MAX_ARRAY_ELEMENTS = 1000;

export interface JobRequest {
  /** The job's name after `rebench-`, and its output file's: the run's id, or for an array its batch's. */
  name: string;
  resources: Resources;
  partition?: string;
  /** Further sbatch options, each one argument. */
  options?: readonly string[];
  /** The node the job must run on (a resumed run's sandbox lives there). */
  node?: string;
  /** Where the job's output goes: `<logDir>/<name>-<jobid>.out`, for an array's element `<logDir>/<name>-<arrayjob>_<index>.out`. */
  logDir: string;
  /** A job array of `size` elements (indices 0 to size-1), at most `throttle` of them running at once when given. */
  array?: { size: number; throttle?: number };
}

/** The sbatch options, without `--parsable` (added by sbatch()). */
export function sbatchArgs(request: JobRequest): string[] {
  const { resources, array } = request;
  const gpus = resources.gpu?.countRange[0] ?? 0;
  const throttle = array?.throttle !== undefined && array.throttle < array.size ? `%${array.throttle}` : "";
  return [
    "--hold",
    ...(array ? [`--array=0-${array.size - 1}${throttle}`] : []),
    `--job-name=rebench-${request.name}`,
    `--output=${request.logDir}/${request.name}-${array ? "%A_%a" : "%j"}.out`,
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

/**
 * The batch script of a job array: element i (`SLURM_ARRAY_TASK_ID`) execs `command` with `args` and the
 * i-th of `runIds` (`rebench runs drive RUN`); an index without a run fails the element.
 */
export function arrayScript(command: readonly string[], args: readonly string[], runIds: readonly string[]): string {
  const cases = runIds.map((id, i) => `  ${i}) run=${shellJoin([id])} ;;\n`).join("");
  return (
    "#!/bin/sh\n" +
    "# a rebench batch's job array: element i drives the i-th run below on its node (docs/gpus-and-clusters.md)\n" +
    'case "$SLURM_ARRAY_TASK_ID" in\n' +
    cases +
    '  *) echo "rebench: job array element ${SLURM_ARRAY_TASK_ID:-?} has no run" >&2; exit 2 ;;\n' +
    "esac\n" +
    'echo "rebench: Slurm job ${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID} drives run $run"\n' +
    `exec ${shellJoin([...command, ...args])} "$run"\n`
  );
}
