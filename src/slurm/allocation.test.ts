import { describe, expect, test } from "vitest";
import { slurmAllocation } from "./allocation.js";

describe("slurmAllocation()", () => {
  const job = { SLURM_JOB_ID: "1236", SLURMD_NODENAME: "n1", SLURM_CPUS_ON_NODE: "2", SLURM_MEM_PER_NODE: "8192" };

  test("a job of its own is its SLURM_JOB_ID", () => {
    expect(slurmAllocation(job)).toEqual({ jobId: "1236", node: "n1", gpus: [], cpus: 2, memoryMb: 8192 });
  });

  test("an element of a job array is ARRAYJOB_INDEX, as the run records it, not its own job id", () => {
    expect(slurmAllocation({ ...job, SLURM_ARRAY_JOB_ID: "1234", SLURM_ARRAY_TASK_ID: "2" })?.jobId).toBe("1234_2");
  });

  test("outside a job, none", () => {
    expect(slurmAllocation({})).toBeUndefined();
  });
});
