import { describe, expect, test } from "vitest";
import { InvalidInputError } from "../core/index.js";
import { gpuRequest } from "./container/container-setup.js";
import { gpuDeviceNodes } from "./gpu-devices.js";

const host = (nodes: string[]) => (path: string) => nodes.includes(path);

describe("GPU device nodes", () => {
  test("the GPUs asked for and the driver's shared nodes the host has, nothing for no GPU", () => {
    const exists = host(["/dev/nvidia0", "/dev/nvidia1", "/dev/nvidia2", "/dev/nvidiactl", "/dev/nvidia-uvm"]);
    expect(gpuDeviceNodes([2, 0], exists)).toEqual(["/dev/nvidia2", "/dev/nvidia0", "/dev/nvidiactl", "/dev/nvidia-uvm"]);
    expect(gpuDeviceNodes([], () => true)).toEqual([]);
  });

  test("a GPU the host lacks is an input error that says what to check", () => {
    expect(() => gpuDeviceNodes([1], host(["/dev/nvidia0", "/dev/nvidiactl"]))).toThrow(/GPU 1 has no device node \/dev\/nvidia1/);
    expect(() => gpuDeviceNodes([-1], () => true)).toThrow(InvalidInputError);
  });

  test("the container backend asks the engine for exactly the GPUs given", () => {
    expect(gpuRequest([])).toEqual({});
    expect(gpuRequest([0, 1])).toEqual({ DeviceRequests: [{ Driver: "nvidia", DeviceIDs: ["0", "1"], Capabilities: [["gpu"]] }] });
  });
});
