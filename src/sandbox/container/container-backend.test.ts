import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { skipOrFail } from "../../../test/helpers/required.js";
import { tempDir } from "../../../test/helpers/tmp.js";
import { sandboxContract } from "../contract.case.js";
import { jailContract } from "../jail.case.js";
import { type Sandbox, SandboxTeardownError } from "../sandbox.js";
import { terminalContract } from "../terminal.case.js";
import { commandWorks } from "../which.js";
import { ContainerBackend } from "./container-backend.js";
import { containerName } from "./container-setup.js";
import { DockerApi } from "./docker-api.js";
import { findEngine, type PodmanService, startPodmanService } from "./engine.js";
import { ensureImage, sandboxImage } from "./image.js";

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
// Where bootstrap ran as root and installed podman, the container backend is offered: it must work.
skip = skipOrFail("the container backend", skip, process.getuid?.() === 0 && commandWorks("podman", ["--version"]));

const backend = () => new ContainerBackend({ socketPath: socketPath! });
/** Bound into a volume's folder by the failure test (made here: tempDir registers its removal for the file). */
const outside = tempDir("rebench-outside-");
if (skip) console.warn(`container sandbox tests skipped: ${skip}`);
/** The host folders of a container sandbox's volumes (the engine runs on this host). */
async function volumeFolders(sandbox: Sandbox): Promise<string[]> {
  const info = await new DockerApi(socketPath!).json<{ Mounts?: { Type?: string; Source?: string }[] | null }>(
    "GET",
    `/containers/${containerName(sandbox.id)}/json`,
  );
  return (info.Mounts ?? []).flatMap((m) => (m.Type === "volume" && m.Source ? [m.Source] : []));
}
sandboxContract("container", backend, { scratch: tempDir(), skip, hostPaths: volumeFolders });
terminalContract("container", backend, { scratch: tempDir(), skip });
jailContract("container", backend, { skip });

describe.skipIf(skip !== undefined)("ContainerBackend", () => {
  test("check() probes and reports full isolation through the engine", async () => {
    const check = await backend().check();
    expect(check.problems).toEqual([]);
    expect(check).toMatchObject({
      backend: "container",
      usable: true,
      isolation: { networkBlocked: true, protectedUnreadable: true, limitsApplied: true, runsAsSeparateUser: true, jailHolds: true },
    });
  });

  test("ensureImage() imports the image into an engine whose storage is empty, as on a fresh machine", async () => {
    // podman's own service in an empty storage: the import writes progress to the service's output, which
    // killed a service whose output pipes were closed (the engine then refused every connection).
    const dir = tempDir("rebench-podman-empty-");
    const fresh = await startPodmanService(path.join(dir, "podman.sock"), { storageDir: dir });
    try {
      const reference = await ensureImage(fresh.api);
      expect(reference).toBe(sandboxImage().reference);
      expect(await fresh.api.ping()).toBe(true);
      await expect(fresh.api.json("GET", `/images/${encodeURIComponent(reference)}/json`)).resolves.toMatchObject({});
    } finally {
      fresh.stop();
    }
  }, 120_000);

  test("destroy() that cannot remove a volume (a filesystem mounted in its host folder) names it and how; a later destroy() removes it", async () => {
    const sandbox = await backend().create({ id: `mnt${process.pid}`, limits: { memoryMb: 256, processes: 64 } });
    const folders = await volumeFolders(sandbox);
    const workspace = folders.find((f) => existsSync(path.join(f, "workspace")))!;
    expect(workspace).toBeDefined();
    const point = path.join(workspace, "mnt");
    mkdirSync(point);
    execFileSync("mount", ["--bind", outside, point]);
    let error: unknown;
    try {
      error = await sandbox.destroy().then(
        () => undefined,
        (e: unknown) => e,
      );
    } finally {
      execFileSync("umount", [point]);
    }
    expect(error).toBeInstanceOf(SandboxTeardownError);
    const { left, hint, message } = error as SandboxTeardownError;
    expect(
      left.some((l) => l.startsWith("volume ") && l.endsWith(`(${workspace})`)),
      `${message}\n${left.join("\n")}`,
    ).toBe(true);
    expect(hint).toMatch(/^podman (rm -f -v rebench-|volume rm -f )/);
    expect(existsSync(workspace)).toBe(true);
    await sandbox.destroy();
    for (const folder of folders) expect(existsSync(folder), folder).toBe(false);
    expect(await backend().reattach(sandbox.id)).toBeUndefined();
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
