/**
 * @module
 * Machine classes: the machines whose scores one calibration describes. A variant that asks for a GPU is
 * timed on its GPU, so its class is the GPU model ("NVIDIA H100 80GB HBM3" → "NVIDIA H100"); any other
 * variant runs on the CPU, so its class is the CPU's vendor and family, its generation and the cores it may
 * use ("AMD EPYC" of family 26 model 2 with 2 cores → "AMD EPYC family 26 model 2, 2 cores": cloud VMs name
 * neither model nor generation, and optimize_llm_foundry/mini's start ran in 40 s on a Zen 5 VM against 58 s
 * on the "AMD EPYC" VM that calibrated it). `calibration.json` keeps one entry per class and a
 * run is normalized with the entry of its own machine's class, or not at all.
 */
import type { MachineInfo } from "./machine.js";

/** Whether a variant's class is its GPU's (the manifest asks for a GPU) or its CPU's. */
export type ClassKind = "gpu" | "cpu";

/**
 * The CPU's vendor and family, from `os.cpus()[0].model`: "(R)", "(TM)" and the like dropped; for AMD and
 * Intel the vendor and the next word ("AMD EPYC 9654 96-Core Processor" → "AMD EPYC", "Intel(R) Xeon(R)
 * Platinum 8481C CPU @ 2.70GHz" → "Intel Xeon", "Intel(R) Core(TM) i9-13900K" → "Intel Core"); any other
 * vendor's model as it is, without a clock speed ("Neoverse-N1").
 */
export function cpuFamily(cpuModel: string): string {
  const words = cpuModel
    .replace(/\((R|TM|C)\)/gi, " ")
    .replace(/@.*$/, " ")
    .trim()
    .split(/\s+/)
    .filter(Boolean);
  const vendor = words[0]?.toLowerCase();
  if ((vendor === "amd" || vendor === "intel") && words[1] !== undefined) return `${vendor === "amd" ? "AMD" : "Intel"} ${words[1]}`;
  return words.join(" ") || "unknown CPU";
}

/**
 * The GPU's model, from nvidia-smi's name less its memory (size and kind): "NVIDIA H100 80GB HBM3" →
 * "NVIDIA H100", "NVIDIA A100-SXM4-80GB" → "NVIDIA A100-SXM4". Form factors stay ("NVIDIA H100 PCIe",
 * "NVIDIA H100 NVL"): they differ in clocks and memory bandwidth.
 */
export function gpuFamily(gpuName: string): string {
  return gpuName
    .trim()
    .split(/\s+/)
    .map((word) => word.replace(/-\d+GB$/i, ""))
    .filter((word) => !/^\d+GB$/i.test(word) && !/^HBM\d*e?$/i.test(word))
    .join(" ");
}

/**
 * The class of `machine` for a variant of `kind`: the GPU model, or "FAMILY GENERATION, N cores" ("AMD EPYC
 * family 26 model 2, 2 cores"; "FAMILY, N cores" where the generation is unknown: a system that does not say,
 * or a record made before 2026-12-07, which no probed x86 machine matches); undefined for a GPU variant on a
 * machine without a GPU.
 */
export function machineClass(machine: Pick<MachineInfo, "cpuModel" | "cpuGeneration" | "cores" | "gpu">, kind: ClassKind): string | undefined {
  if (kind === "gpu") return machine.gpu === null ? undefined : gpuFamily(machine.gpu);
  const generation = machine.cpuGeneration === undefined ? "" : ` ${machine.cpuGeneration}`;
  return `${cpuFamily(machine.cpuModel)}${generation}, ${machine.cores} ${machine.cores === 1 ? "core" : "cores"}`;
}
