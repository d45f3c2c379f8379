/**
 * @module
 * The machine a measurement was taken on, as `rebench calibrate` records it, and whether two machines are
 * the same for timing purposes: the same GPU model where the measurement used a GPU, else the same CPU
 * model and core count. Timing scores from different machines are not comparable.
 */
import { z } from "zod";

export const MachineInfo = z.object({
  /** `os.cpus()[0].model`, e.g. "AMD EPYC 7B13". */
  cpuModel: z.string().min(1),
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

/** One line: "AMD EPYC 7B13 · 2 cores · 23.4 GB · no GPU". */
export function describeMachine(machine: MachineInfo): string {
  const gpu = machine.gpu === null ? "no GPU" : `${machine.gpuCount > 1 ? `${machine.gpuCount} × ` : ""}${machine.gpu}`;
  return `${machine.cpuModel} · ${machine.cores} cores · ${machine.memoryGb} GB · ${gpu}`;
}

/**
 * Why `current` does not count as the machine `recorded` was measured on, or undefined when it does: a
 * recording with a GPU compares GPU models; one without compares CPU model and core count.
 */
export function machineDifference(recorded: MachineInfo, current: MachineInfo): string | undefined {
  if (recorded.gpu !== null) {
    return sameName(recorded.gpu, current.gpu) ? undefined : `GPU ${current.gpu ?? "none"} here, ${recorded.gpu} there`;
  }
  const differences = [
    sameName(recorded.cpuModel, current.cpuModel) ? undefined : `CPU ${current.cpuModel} here, ${recorded.cpuModel} there`,
    recorded.cores === current.cores ? undefined : `${current.cores} cores here, ${recorded.cores} there`,
  ].filter((d): d is string => d !== undefined);
  return differences.length === 0 ? undefined : differences.join("; ");
}

function sameName(a: string, b: string | null): boolean {
  return b !== null && a.trim().replace(/\s+/g, " ").toLowerCase() === b.trim().replace(/\s+/g, " ").toLowerCase();
}
