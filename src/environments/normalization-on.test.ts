import { describe, expect, test } from "vitest";
import type { MachineInfo, RunSpec } from "../core/index.js";
import { nodeNormalization } from "./normalization-on.js";
import { getVariant } from "./registry.js";

const machine = (cpuModel: string): MachineInfo => ({
  cpuModel,
  cores: 2,
  memoryGb: 8,
  gpu: null,
  gpuCount: 0,
  os: "Linux",
  rebenchVersion: "0.1.0",
  rebenchCommit: null,
});
const EPYC = machine("AMD EPYC 7B13");
const XEON = machine("Intel(R) Xeon(R) CPU @ 2.20GHz");
const spec = (variant: "mini" | "paper", machineClass?: string): RunSpec => ({
  participant: { kind: "agent", alias: "a" },
  environment: "optimize_kernel",
  variant,
  task: "main",
  limits: {},
  direction: "min",
  aggregation: "min",
  config: { executor: "slurm" },
  ...(machineClass ? { machineClass } : {}),
});

// optimize_kernel/mini has calibration entries for "AMD EPYC, 2 cores" (no generation recorded) and "AMD EPYC family 26
// model 2, 2 cores", none for an Intel Xeon (environments/optimize_kernel/calibration.json).
describe("nodeNormalization()", () => {
  const mini = getVariant("optimize_kernel", "mini");

  test("a variant calibrated per class gets the entry of its node's class, or none and the command that makes it", () => {
    expect(nodeNormalization(spec("mini"), mini, EPYC)).toMatchObject({
      machineClass: "AMD EPYC, 2 cores",
      normalization: { source: "calibration", entry: { machineClass: "AMD EPYC, 2 cores" } },
    });
    const xeon = nodeNormalization(spec("mini"), mini, XEON);
    expect(xeon.normalization).toBeUndefined();
    expect(xeon).toMatchObject({ machineClass: "Intel Xeon, 2 cores", normalizationMissing: expect.stringMatching(/no calibration for Intel Xeon, 2 cores/) });
  });

  test("an entry whose CPU generation was not recorded normalizes no machine that records one", () => {
    const oldOnly = { ...mini, calibrations: { "AMD EPYC, 2 cores": mini.calibrations["AMD EPYC, 2 cores"]! } };
    const zen5 = nodeNormalization(spec("mini"), oldOnly, { ...EPYC, cpuGeneration: "family 26 model 2" });
    expect(zen5.normalization).toBeUndefined();
    expect(zen5).toMatchObject({
      machineClass: "AMD EPYC family 26 model 2, 2 cores",
      normalizationMissing: expect.stringMatching(
        /no calibration for AMD EPYC family 26 model 2, 2 cores \(only AMD EPYC, 2 cores, of a CPU generation not recorded\): run `rebench calibrate optimize_kernel --variant mini --write`/,
      ),
    });
    // Another generation of the same name matches neither entry.
    const zen3 = nodeNormalization(spec("mini"), mini, { ...EPYC, cpuGeneration: "family 25 model 1" });
    expect(zen3.normalization).toBeUndefined();
    expect(zen3.normalizationMissing).toMatch(/no calibration for AMD EPYC family 25 model 1, 2 cores/);
    expect(nodeNormalization(spec("mini"), mini, { ...EPYC, cpuGeneration: "family 26 model 2" }).normalization).toMatchObject({
      entry: { machineClass: "AMD EPYC family 26 model 2, 2 cores" },
    });
  });

  test("a run resumed on a node of another class than its first gets no constants", () => {
    const resumed = nodeNormalization(spec("mini", "Intel Xeon, 2 cores"), mini, EPYC);
    expect(resumed.normalization).toBeUndefined();
    expect(resumed.normalizationMissing).toMatch(/two machine classes \(Intel Xeon, 2 cores, then AMD EPYC, 2 cores\)/);
    expect(nodeNormalization(spec("mini", "AMD EPYC, 2 cores"), mini, EPYC).normalization).toBeDefined();
  });

  test("a variant whose constants hold on every machine records only the node's class", () => {
    const h100 = { ...EPYC, gpu: "NVIDIA H100 80GB HBM3", gpuCount: 1 };
    expect(nodeNormalization(spec("paper"), getVariant("optimize_kernel", "paper"), h100)).toEqual({ machineClass: "NVIDIA H100" });
  });
});
