/**
 * @module
 * The other rebench sandboxes running on this host, for the contention numbers of a scoring call: every
 * local sandbox whose cgroups hold processes (v1 and v2 hierarchies, whichever rebench home made them), and
 * the runs holding GPU leases in this home whose holder is alive. Container sandboxes are not counted (their
 * CPU time is in the machine's busy time all the same). Read-only.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { pidAlive } from "../core/index.js";
import { heldGpus } from "./gpu-leases.js";

const CGROUP_ROOTS = ["/sys/fs/cgroup/memory/rebench", "/sys/fs/cgroup/rebench"];

/** Ids of local sandboxes with at least one process in their agent or grader group. */
export function liveLocalSandboxes(roots: readonly string[] = CGROUP_ROOTS): string[] {
  const ids = new Set<string>();
  for (const root of roots) {
    if (!existsSync(root)) continue;
    let names: string[];
    try {
      names = readdirSync(root, { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => e.name);
    } catch {
      continue;
    }
    for (const id of names) {
      const busy = ["agent", "grader"].some((role) => {
        try {
          return readFileSync(path.join(root, id, role, "cgroup.procs"), "utf8").trim() !== "";
        } catch {
          return false;
        }
      });
      if (busy) ids.add(id);
    }
  }
  return [...ids];
}

/** How many sandboxes other than `ownId` run on this host now (local cgroups, live GPU leases). */
export async function otherSandboxesRunning(ownId: string): Promise<number> {
  const ids = new Set(liveLocalSandboxes());
  for (const held of await heldGpus().catch(() => [])) {
    if (pidAlive(held.lease.pid)) ids.add(held.lease.runId);
  }
  ids.delete(ownId);
  return ids.size;
}
