/**
 * @module
 * The NVIDIA device nodes a sandbox needs to use some of the host's GPUs: `/dev/nvidiaN` for each GPU
 * given (CUDA then sees only those, numbered from 0 in that order) and the driver's shared nodes
 * (`nvidiactl`, `nvidia-uvm`, `nvidia-uvm-tools`, `nvidia-modeset`, `nvidia-caps/`) where the host has them.
 * Driver libraries need nothing: they live under /usr, which both backends already provide.
 */
import { existsSync } from "node:fs";
import { InvalidInputError } from "../core/index.js";

const SHARED_NODES = ["/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools", "/dev/nvidia-modeset", "/dev/nvidia-caps"];

/** Host device paths to bind for `gpus`; throws when a GPU's node does not exist (the index is wrong, or no driver). */
export function gpuDeviceNodes(gpus: readonly number[], exists: (path: string) => boolean = existsSync): string[] {
  if (gpus.length === 0) return [];
  const own = gpus.map((index) => {
    if (!Number.isInteger(index) || index < 0) throw new InvalidInputError(`GPU index ${index} is not a non-negative integer`);
    const node = `/dev/nvidia${index}`;
    if (!exists(node)) {
      throw new InvalidInputError(`GPU ${index} has no device node ${node} on this machine`, {
        hint: "check `nvidia-smi` (is the NVIDIA driver loaded?) and ask only for GPUs it lists",
      });
    }
    return node;
  });
  return [...own, ...SHARED_NODES.filter((node) => exists(node))];
}
