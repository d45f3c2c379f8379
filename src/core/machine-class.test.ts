import { describe, expect, test } from "vitest";
import type { MachineInfo } from "./machine.js";
import { cpuFamily, gpuFamily, machineClass } from "./machine-class.js";

const machine = (cpuModel: string, cores: number, gpu: string | null = null): MachineInfo => ({
  cpuModel,
  cores,
  memoryGb: 23.5,
  gpu,
  gpuCount: gpu === null ? 0 : 1,
  os: "Linux",
  rebenchVersion: "0.1.0",
  rebenchCommit: null,
});

describe("machine classes", () => {
  test("cpuFamily() keeps the vendor and family of AMD and Intel CPUs, as calibration.json files and os.cpus() name them", () => {
    expect(cpuFamily("AMD EPYC")).toBe("AMD EPYC");
    expect(cpuFamily("AMD EPYC 7B13")).toBe("AMD EPYC");
    expect(cpuFamily("AMD EPYC 9654 96-Core Processor")).toBe("AMD EPYC");
    expect(cpuFamily("AMD Ryzen 9 5950X 16-Core Processor")).toBe("AMD Ryzen");
    expect(cpuFamily("Intel(R) Xeon(R) Processor")).toBe("Intel Xeon");
    expect(cpuFamily("Intel(R) Xeon(R) Platinum 8481C CPU @ 2.70GHz")).toBe("Intel Xeon");
    expect(cpuFamily("Intel(R) Core(TM) i9-13900K")).toBe("Intel Core");
    expect(cpuFamily("  intel(r)  xeon(r) gold 6338 ")).toBe("Intel xeon");
  });

  test("cpuFamily() keeps another vendor's model as it is, without its clock", () => {
    expect(cpuFamily("Neoverse-N1")).toBe("Neoverse-N1");
    expect(cpuFamily("Apple M2 Pro")).toBe("Apple M2 Pro");
    expect(cpuFamily("QEMU Virtual CPU version 2.5+ @ 2.0GHz")).toBe("QEMU Virtual CPU version 2.5+");
    expect(cpuFamily("")).toBe("unknown CPU");
  });

  test("gpuFamily() drops the memory from nvidia-smi's name and keeps the form factor", () => {
    expect(gpuFamily("NVIDIA H100 80GB HBM3")).toBe("NVIDIA H100");
    expect(gpuFamily("NVIDIA H200")).toBe("NVIDIA H200");
    expect(gpuFamily("NVIDIA H100 PCIe")).toBe("NVIDIA H100 PCIe");
    expect(gpuFamily("NVIDIA H100 NVL")).toBe("NVIDIA H100 NVL");
    expect(gpuFamily("NVIDIA A100-SXM4-80GB")).toBe("NVIDIA A100-SXM4");
    expect(gpuFamily("NVIDIA H200 141GB HBM3e")).toBe("NVIDIA H200");
  });

  test("machineClass() is the GPU model for a GPU variant and the CPU family with the cores for any other", () => {
    const h100 = machine("Intel(R) Xeon(R) Platinum 8480+", 16, "NVIDIA H100 80GB HBM3");
    expect(machineClass(h100, "gpu")).toBe("NVIDIA H100");
    expect(machineClass(h100, "cpu")).toBe("Intel Xeon, 16 cores");
    expect(machineClass(machine("AMD EPYC", 2), "cpu")).toBe("AMD EPYC, 2 cores");
    expect(machineClass(machine("Intel(R) Xeon(R) Processor", 2), "cpu")).toBe("Intel Xeon, 2 cores");
    expect(machineClass(machine("AMD EPYC 7B13", 1), "cpu")).toBe("AMD EPYC, 1 core");
    expect(machineClass(machine("AMD EPYC", 2), "gpu")).toBeUndefined();
  });

  test("two machines of one class get one class, whatever else differs", () => {
    const a = machineClass(machine("AMD EPYC 7B13", 2), "cpu");
    const other: MachineInfo = { ...machine("AMD EPYC 9654 96-Core Processor", 2), memoryGb: 4, os: "other" };
    const b = machineClass(other, "cpu");
    expect(a).toBe(b);
    expect(machineClass(machine("AMD EPYC", 4), "cpu")).not.toBe(a);
    expect(machineClass(machine("Intel(R) Xeon(R) Processor", 2), "cpu")).not.toBe(a);
  });
});
