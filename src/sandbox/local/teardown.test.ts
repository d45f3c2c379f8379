import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { skipOrFail } from "../../../test/helpers/required.js";
import { tempDir } from "../../../test/helpers/tmp.js";
import { SandboxTeardownError } from "../sandbox.js";
import { commandWorks } from "../which.js";
import { LocalBackend } from "./local-backend.js";

const root = tempDir("rebench-local-teardown-");
const backend = new LocalBackend({ root });
const skip = skipOrFail(
  "the local backend",
  !commandWorks("bwrap", ["--version"])
    ? "bubblewrap is not installed (apt-get install bubblewrap)"
    : backend.owners() === undefined
      ? "needs root and the users from scripts/setup-users"
      : undefined,
);
const LIMITS = { memoryMb: 256, processes: 64 };
/** Bound into a sandbox's folder by the failure test (made here: tempDir registers its removal for the file). */
const outside = tempDir("rebench-outside-");

describe.skipIf(skip !== undefined)("local sandbox teardown", () => {
  test("destroy() that cannot remove the folder (a filesystem mounted inside) says what is left and how to remove it; a later destroy() removes it", async () => {
    const sandbox = await backend.create({ id: `mnt${process.pid}`, limits: LIMITS });
    const folder = path.join(root, sandbox.id);
    expect((await sandbox.exec("mkdir mnt")).exitCode).toBe(0);
    writeFileSync(path.join(outside, "keep.txt"), "kept");
    const point = path.join(folder, "home", "workspace", "mnt");
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
    expect(error).toMatchObject({
      left: [folder],
      message: expect.stringContaining(`its folder ${folder} could not be removed: a filesystem is mounted inside it: ${point}`),
      hint: expect.stringMatching(new RegExp(`^as root: findmnt -R ${folder} .*rm -rf --one-file-system ${folder}$`)),
    });
    expect(readFileSync(path.join(outside, "keep.txt"), "utf8")).toBe("kept");
    await sandbox.destroy();
    expect(existsSync(folder)).toBe(false);
    expect(readFileSync(path.join(outside, "keep.txt"), "utf8")).toBe("kept");
  });

  test("remove(id) removes a folder left without its metadata (a creation cut off half-way), its protected files included", async () => {
    const id = `half${process.pid}`;
    const sandbox = await backend.create({ id, limits: LIMITS });
    const folder = path.join(root, id);
    // A namespace running, then the metadata gone: reattach() no longer finds the sandbox.
    expect((await sandbox.exec("sleep 1000 > /dev/null 2>&1 &")).exitCode).toBe(0);
    const initPid = (JSON.parse(readFileSync(path.join(folder, "log", "agent.info.json"), "utf8")) as { "child-pid": number })["child-pid"];
    mkdirSync(path.join(folder, "protected", "hidden"), { recursive: true });
    writeFileSync(path.join(folder, "protected", "hidden", "rows.csv"), "secret\n");
    execFileSync("rm", [path.join(folder, "sandbox.json")]);
    expect(await backend.reattach(id)).toBeUndefined();
    await backend.remove(id);
    expect(existsSync(folder)).toBe(false);
    expect(existsSync(`/proc/${initPid}`) && !readFileSync(`/proc/${initPid}/stat`, "utf8").includes(") Z ")).toBe(false);
    await backend.remove(id); // nothing there: no error
  });
});
