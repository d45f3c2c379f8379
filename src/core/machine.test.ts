import { describe, expect, test } from "vitest";
import { describeMachine, type MachineInfo } from "./machine.js";

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

describe("describeMachine()", () => {
  test("describeMachine() is one line", () => {
    expect(describeMachine(cpu)).toBe("AMD EPYC 7B13 · 2 cores · 23.5 GB · no GPU");
    expect(describeMachine({ ...h200, gpuCount: 2 })).toBe("Intel Xeon Platinum 8480C · 16 cores · 23.5 GB · 2 × NVIDIA H200");
    expect(describeMachine({ ...cpu, cpuModel: "AMD EPYC", cpuGeneration: "family 26 model 2" })).toBe(
      "AMD EPYC (family 26 model 2) · 2 cores · 23.5 GB · no GPU",
    );
  });
});
