/**
 * @module
 * The machine a measurement was taken on, as `rebench calibrate` records it. Which machines one
 * measurement describes is its class (machine-class.ts).
 */
import { z } from "zod";

export const MachineInfo = z.object({
  /** `os.cpus()[0].model`, e.g. "AMD EPYC 7B13". */
  cpuModel: z.string().min(1),
  /**
   * The CPU's generation as its vendor numbers it (/proc/cpuinfo's `cpu family` and `model` on x86), e.g.
   * "family 26 model 2" (AMD Zen 5): cloud VMs often name only "AMD EPYC" or "Intel(R) Xeon(R) Processor",
   * whose generations differ in speed and vector units. Absent where the system does not say, and in
   * records made before 2026-12-07.
   */
  cpuGeneration: z.string().min(1).optional(),
  /** Logical CPUs this process may use (`os.availableParallelism()`). */
  cores: z.number().int().positive(),
  memoryGb: z.number().positive(),
  /** The first GPU's name as nvidia-smi reports it ("NVIDIA H200"), null without one. */
  gpu: z.string().min(1).nullable(),
  gpuCount: z.number().int().nonnegative(),
  /** Kernel and distribution, e.g. "Linux 6.1.0-18-amd64 (Debian GNU/Linux 12 (bookworm))". */
  os: z.string().min(1),
  /** rebench's package version. */
  rebenchVersion: z.string().min(1),
  /** The git commit of the rebench checkout ("-dirty" when it has uncommitted changes); null outside git. */
  rebenchCommit: z.string().min(1).nullable(),
});
export type MachineInfo = z.infer<typeof MachineInfo>;

/** One line: "AMD EPYC 7B13 (family 25 model 1) · 2 cores · 23.4 GB · no GPU". */
export function describeMachine(machine: MachineInfo): string {
  const gpu = machine.gpu === null ? "no GPU" : `${machine.gpuCount > 1 ? `${machine.gpuCount} × ` : ""}${machine.gpu}`;
  const generation = machine.cpuGeneration === undefined ? "" : ` (${machine.cpuGeneration})`;
  return `${machine.cpuModel}${generation} · ${machine.cores} cores · ${machine.memoryGb} GB · ${gpu}`;
}
