import { describe, expect, test } from "vitest";
import { describeMachine, type MachineInfo, machineDifference } from "./machine.js";

const cpu: MachineInfo = {
  cpuModel: "AMD EPYC 7B13",
  cores: 2,
  memoryGb: 23.5,
  gpu: null,
  gpuCount: 0,
  os: "Linux 6.1.0 (Debian GNU/Linux 12 (bookworm))",
  rebenchVersion: "0.1.0",
  rebenchCommit: "05738f80ea46",
};
const h200: MachineInfo = { ...cpu, cpuModel: "Intel Xeon Platinum 8480C", cores: 16, gpu: "NVIDIA H200", gpuCount: 1 };

describe("machineDifference()", () => {
  test("a CPU calibration compares the CPU model and the core count", () => {
    expect(machineDifference(cpu, { ...cpu, memoryGb: 64, os: "other", rebenchCommit: null })).toBeUndefined();
    expect(machineDifference(cpu, { ...cpu, cpuModel: " amd  EPYC 7B13 " })).toBeUndefined();
    expect(machineDifference(cpu, { ...cpu, cores: 8 })).toBe("8 cores here, 2 there");
    expect(machineDifference(cpu, { ...cpu, cpuModel: "Intel Core i9" })).toBe("CPU Intel Core i9 here, AMD EPYC 7B13 there");
  });

  test("a GPU calibration compares the GPU model only", () => {
    expect(machineDifference(h200, { ...h200, cpuModel: "AMD EPYC 9654", cores: 32 })).toBeUndefined();
    expect(machineDifference(h200, { ...h200, gpu: "NVIDIA H100 80GB HBM3" })).toBe("GPU NVIDIA H100 80GB HBM3 here, NVIDIA H200 there");
    expect(machineDifference(h200, cpu)).toBe("GPU none here, NVIDIA H200 there");
  });

  test("describeMachine() is one line", () => {
    expect(describeMachine(cpu)).toBe("AMD EPYC 7B13 · 2 cores · 23.5 GB · no GPU");
    expect(describeMachine({ ...h200, gpuCount: 2 })).toBe("Intel Xeon Platinum 8480C · 16 cores · 23.5 GB · 2 × NVIDIA H200");
  });
});
