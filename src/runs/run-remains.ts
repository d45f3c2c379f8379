/**
 * @module
 * What of a run's sandbox is still on this host after the run ended: whether its backend finds the sandbox
 * again, which of the folders it had (`Sandbox.hostPaths()`, recorded while it lived: a container's volumes
 * are found only through their container) still exist, and the run's staging folders. `rebench exploits`
 * judges `noRemains` with it, for an agent that tries to leave its sandbox (and the hidden data in it) behind.
 */
import { lstat } from "node:fs/promises";
import type { RunSpec } from "../core/index.js";
import { runStagingDirs } from "./materialize.js";
import { backendNameOf, sandboxBackend } from "./sandbox-backends.js";

export interface RunRemains {
  /** The run's backend finds its sandbox again (`reattach`). */
  reattached: boolean;
  /** Those of the given host paths that exist (as anything: a folder, a file, a dangling link). */
  hostPaths: string[];
  /** The run's staging folders (`$TMPDIR/rebench-*-<run>-*`). */
  staging: string[];
}

/** What is left of run `id`'s sandbox; `hostPaths`: the folders it had on this host. */
export async function runRemains(id: string, spec: RunSpec, hostPaths: readonly string[]): Promise<RunRemains> {
  const reattached = (await sandboxBackend(backendNameOf(spec)).reattach(id)) !== undefined;
  const left: string[] = [];
  for (const place of hostPaths) if (await present(place)) left.push(place);
  return { reattached, hostPaths: left, staging: await runStagingDirs(id) };
}

/** Whether something is at `place`; a path that cannot be looked at (EACCES) counts as there. */
async function present(place: string): Promise<boolean> {
  try {
    await lstat(place);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code !== "ENOENT" && code !== "ENOTDIR";
  }
}
