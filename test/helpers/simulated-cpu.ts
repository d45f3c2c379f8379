/**
 * @module
 * A vitest setup file: with `REBENCH_TEST_CPU_MODEL` set, `os.cpus()` in the test processes reports that
 * model, so `probeMachine()` (and so the machine class that picks a calibration entry) sees another CPU:
 * CI gets an AMD EPYC or an Intel Xeon, and a test must pass or skip cleanly on either.
 * `REBENCH_TEST_CPU_MODEL="Intel(R) Xeon(R) CPU @ 2.20GHz" npx vitest run FILE` runs FILE as on a Xeon of
 * this machine's cores. Only this process's view changes: the CLI run as a separate process
 * (`rebenchProcess`, a Slurm job) and the sandboxes still see the real CPU.
 */
import os from "node:os";
import { vi } from "vitest";

const model = process.env.REBENCH_TEST_CPU_MODEL;
if (model) {
  const cpus = os.cpus.bind(os);
  vi.spyOn(os, "cpus").mockImplementation(() => cpus().map((cpu) => ({ ...cpu, model })));
}
