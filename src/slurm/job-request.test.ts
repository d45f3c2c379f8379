import { execFileSync } from "node:child_process";
import { describe, expect, test } from "vitest";
import { arrayScript, batchScript, sbatchArgs } from "./job-request.js";

const resources = { cpus: 2, memoryGb: 8, gpu: null } as never;

describe("sbatchArgs()", () => {
  test("a run's own job: held, named and logged by the run, to its node when given", () => {
    const args = sbatchArgs({ name: "r1", resources, logDir: "/logs", node: "n7", options: ["--time=01:00:00"] });
    expect(args).toEqual([
      "--hold",
      "--job-name=rebench-r1",
      "--output=/logs/r1-%j.out",
      "--nodes=1",
      "--ntasks=1",
      "--cpus-per-task=2",
      "--mem=8192M",
      "--nodelist=n7",
      "--time=01:00:00",
    ]);
  });

  test("a job array: indices 0 to size-1, throttled only below its size, an output file per element", () => {
    const args = sbatchArgs({ name: "b1", resources, logDir: "/logs", array: { size: 200, throttle: 4 } });
    expect(args.slice(0, 4)).toEqual(["--hold", "--array=0-199%4", "--job-name=rebench-b1", "--output=/logs/b1-%A_%a.out"]);
    expect(sbatchArgs({ name: "b1", resources, logDir: "/logs", array: { size: 3, throttle: 3 } })).toContain("--array=0-2");
    expect(sbatchArgs({ name: "b1", resources, logDir: "/logs", array: { size: 3 } })).toContain("--array=0-2");
  });
});

describe("arrayScript()", () => {
  const ids = ["r0abc", "r1def", "r2ghi"];
  const script = arrayScript(["echo", "rebench"], ["runs", "drive"], ids);
  const element = (index: string | undefined) => {
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, SLURM_ARRAY_JOB_ID: "77" };
    if (index !== undefined) env.SLURM_ARRAY_TASK_ID = index;
    try {
      return { code: 0, out: execFileSync("sh", ["-c", script], { env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }) };
    } catch (error) {
      return { code: (error as { status: number }).status, out: String((error as { stderr: unknown }).stderr) };
    }
  };

  test("element i drives the i-th run", () => {
    for (const [i, id] of ids.entries()) {
      expect(element(String(i))).toEqual({ code: 0, out: `rebench: Slurm job 77_${i} drives run ${id}\nrebench runs drive ${id}\n` });
    }
  });

  test("an index without a run, or none, fails the element and drives nothing", () => {
    expect(element("3")).toMatchObject({ code: 2, out: expect.stringMatching(/element 3 has no run/) });
    expect(element(undefined)).toMatchObject({ code: 2 });
  });

  test("a run's own job execs the command with its run", () => {
    expect(execFileSync("sh", ["-c", batchScript(["echo", "rebench"], ["runs", "drive", "r9"])], { encoding: "utf8" })).toBe("rebench runs drive r9\n");
  });
});
