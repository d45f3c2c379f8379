/**
 * @module
 * The end of a local sandbox, from the host: kill both namespaces and wait until every process in them is
 * gone (nothing may write into the folder while it is removed, and a file a process holds open goes with
 * it), kill what is left in its cgroups, then remove its folder whatever the agent left there
 * (src/sandbox/remove-tree.ts: any depth, any permissions). `LocalSandbox.destroy()` and
 * `LocalBackend.remove(id)` (a folder without its metadata) both end here.
 */

import { removeTree } from "../remove-tree.js";
import { SandboxTeardownError } from "../sandbox.js";
import { stopExecutorAndWait } from "./executor-process.js";
import type { HostDirs } from "./host-dirs.js";
import { type CgroupVersion, sandboxGroups } from "./limit-groups.js";

/** How long to wait for a killed namespace's processes to be gone before removing the folder anyway. */
const NAMESPACE_EXIT_WAIT_MS = 10_000;

export async function tearDownLocalSandbox(dirs: HostDirs, id: string, cgroups: CgroupVersion | boolean): Promise<void> {
  const stopped = await Promise.all([stopExecutorAndWait(dirs, "grader", NAMESPACE_EXIT_WAIT_MS), stopExecutorAndWait(dirs, "agent", NAMESPACE_EXIT_WAIT_MS)]);
  if (cgroups) await sandboxGroups(id, cgroups).destroy();
  const removal = await removeTree(dirs.root);
  if (removal.removed) return;
  const lingering = stopped.includes(false) ? ` (a process of the sandbox was still exiting ${NAMESPACE_EXIT_WAIT_MS / 1000} s after it was killed)` : "";
  throw new SandboxTeardownError(
    `sandbox ${id}: its folder ${dirs.root} could not be removed${lingering}: ${removal.error}`,
    [dirs.root],
    `as root: findmnt -R ${dirs.root} (unmount what is mounted there), then chmod -R u+rwx ${dirs.root}; rm -rf --one-file-system ${dirs.root}`,
  );
}
