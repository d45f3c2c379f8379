import { describe, expect, test } from "vitest";
import { UnavailableError } from "../core/index.js";
import { requireResources, resourceShortfall } from "./resource-check.js";

const H200 = { gpu: { countRange: [1, 1] as [number, number], models: ["h200" as const, "h100" as const] }, cpus: 16, memoryGb: 100 };
const TWO = { gpu: { countRange: [2, 8] as [number, number], models: ["h100" as const] }, cpus: 16, memoryGb: 100 };
const CPU_ONLY = { cpus: 2, memoryGb: 8 };

describe("resourceShortfall()", () => {
  test("a variant without a GPU requirement fits any machine", () => {
    expect(resourceShortfall(CPU_ONLY, [])).toBeUndefined();
  });

  test("a GPU variant on a machine without a GPU says what it needs and what the machine has", () => {
    expect(resourceShortfall(H200, [])).toBe("needs a GPU (H200 or H100) and this machine has none (nvidia-smi lists no GPU)");
    expect(resourceShortfall(TWO, ["NVIDIA H100 80GB HBM3"])).toBe("needs 2 GPUs (H100) and this machine has 1 (NVIDIA H100 80GB HBM3)");
  });

  test("enough GPUs fit, whatever their model (timing comparability is calibration's warning)", () => {
    expect(resourceShortfall(H200, ["NVIDIA H200"])).toBeUndefined();
    expect(resourceShortfall(H200, ["NVIDIA A100-SXM4-80GB"])).toBeUndefined();
    expect(resourceShortfall(TWO, ["NVIDIA H100", "NVIDIA H100"])).toBeUndefined();
  });
});

describe("requireResources()", () => {
  test("throws UnavailableError (exit 4) naming the variant, with a hint", () => {
    const call = () => requireResources("optimize_kernel", "gpu", H200, []);
    expect(call).toThrow(UnavailableError);
    expect(call).toThrow("optimize_kernel/gpu needs a GPU (H200 or H100) and this machine has none (nvidia-smi lists no GPU)");
    expect(call).toThrow(expect.objectContaining({ exitCode: 4, hint: expect.stringMatching(/--variant mini/) }));
    expect(() => requireResources("optimize_kernel", "gpu", H200, ["NVIDIA H200"])).not.toThrow();
  });
});
