/**
 * @module
 * Delete a local sandbox's folder on the host, whatever the agent made in it. fs.rmSync walks with full paths
 * and fails on a chain of directories longer than PATH_MAX (ENAMETOOLONG), which the agent makes a level at a
 * time; a directory it left unlistable stops a walk without privileges. GNU rm and chmod walk relative to each
 * directory (openat), so they take over when rmSync fails.
 */

import { spawnSync } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { InfrastructureError } from "../../core/index.js";

export function removeTree(dir: string): void {
  try {
    rmSync(dir, { recursive: true, force: true });
    return;
  } catch {
    // below: rm -rf, which no path length stops
  }
  spawnSync("chmod", ["-R", "u+rwx", "--", dir], { stdio: "ignore" }); // unlistable directories, where we are not root
  const rm = spawnSync("rm", ["-rf", "--", dir], { encoding: "utf8", stdio: ["ignore", "ignore", "pipe"] });
  if (existsSync(dir)) throw new InfrastructureError(`could not delete ${dir}: rm -rf exited ${rm.status}: ${rm.stderr.trim().slice(-500)}`);
}
