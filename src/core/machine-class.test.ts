import { describe, expect, test } from "vitest";
import type { MachineInfo } from "./machine.js";
import { cpuFamily, gpuFamily, machineClass } from "./machine-class.js";
import { cpuGenerationOf } from "./probe-machine.js";

const machine = (cpuModel: string, cores: number, gpu: string | null = null, cpuGeneration?: string): MachineInfo => ({
  cpuModel,
  ...(cpuGeneration === undefined ? {} : { cpuGeneration }),
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

  test("machineClass() tells CPU generations apart where the machine records one", () => {
    // The 2-core AMD EPYC VMs: optimize_llm_foundry/mini's start 40 s on this Zen 5 one, 58 s on the one that calibrated it.
    const zen5 = machine("AMD EPYC", 2, null, "family 26 model 2");
    expect(machineClass(zen5, "cpu")).toBe("AMD EPYC family 26 model 2, 2 cores");
    expect(machineClass(machine("AMD EPYC", 2, null, "family 25 model 1"), "cpu")).not.toBe(machineClass(zen5, "cpu"));
    expect(machineClass(machine("AMD EPYC", 2), "cpu")).not.toBe(machineClass(zen5, "cpu")); // an entry from before generations
    expect(machineClass(machine("Intel(R) Xeon(R) Processor", 2, null, "family 6 model 143"), "cpu")).toBe("Intel Xeon family 6 model 143, 2 cores");
    expect(machineClass(machine("AMD EPYC", 2, "NVIDIA H100 80GB HBM3", "family 26 model 2"), "gpu")).toBe("NVIDIA H100");
  });

  test("cpuGenerationOf() reads the first processor's family and model from /proc/cpuinfo, nothing where they are missing", () => {
    const processor = (n: number, family: number, model: number) =>
      `processor\t: ${n}\nvendor_id\t: AuthenticAMD\ncpu family\t: ${family}\nmodel\t\t: ${model}\nmodel name\t: AMD EPYC\nstepping\t: 1\n`;
    expect(cpuGenerationOf(`${processor(0, 26, 2)}\n${processor(1, 25, 1)}\n`)).toEqual({ cpuGeneration: "family 26 model 2" });
    expect(cpuGenerationOf("processor\t: 0\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\nCPU part\t: 0xd0c\n")).toEqual({});
    expect(cpuGenerationOf("")).toEqual({});
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
