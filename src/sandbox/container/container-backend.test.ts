import { existsSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { tempDir } from "../../../test/helpers/tmp.js";
import { sandboxContract } from "../contract.case.js";
import { terminalContract } from "../terminal.case.js";
import { commandWorks } from "../which.js";
import { ContainerBackend } from "./container-backend.js";
import { findEngine, type PodmanService, startPodmanService } from "./engine.js";
import { sandboxImage } from "./image.js";

// An engine that already runs is used; otherwise this file starts podman's service for itself.
let service: PodmanService | undefined;
let socketPath: string | undefined = (await findEngine())?.socketPath;
let skip: string | undefined;
if (!socketPath) {
  if (!commandWorks("podman", ["--version"])) skip = "no container engine answers and podman is not installed (apt-get install podman runc uidmap)";
  else {
    try {
      service = await startPodmanService(path.join(tempDir("rebench-podman-"), "podman.sock"));
      socketPath = service.api.socketPath;
    } catch (error) {
      skip = `podman's service would not start here: ${error instanceof Error ? error.message : String(error)}`;
    }
  }
}
if (!skip && !existsSync(sandboxImage().tarball)) {
  skip = `the sandbox image is not built: run ${sandboxImage().script} (scripts/bootstrap does, as root)`;
}
afterAll(() => service?.stop());

const backend = () => new ContainerBackend({ socketPath: socketPath! });
if (skip) console.warn(`container sandbox tests skipped: ${skip}`);
sandboxContract("container", backend, { scratch: tempDir(), skip });
terminalContract("container", backend, { scratch: tempDir(), skip });

describe.skipIf(skip !== undefined)("ContainerBackend", () => {
  test("check() probes and reports full isolation through the engine", async () => {
    const check = await backend().check();
    expect(check.problems).toEqual([]);
    expect(check).toMatchObject({
      backend: "container",
      usable: true,
      isolation: { networkBlocked: true, protectedUnreadable: true, limitsApplied: true, runsAsSeparateUser: true },
    });
  });

  test("create() refuses an id already in use", async () => {
    const id = `dup${process.pid}`;
    const sandbox = await backend().create({ id, limits: { memoryMb: 256, processes: 64 } });
    try {
      await expect(backend().create({ id, limits: { memoryMb: 256, processes: 64 } })).rejects.toThrow(/already exists/);
    } finally {
      await sandbox.destroy();
    }
  });
});
