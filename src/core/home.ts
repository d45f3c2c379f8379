/**
 * @module
 * rebench's home folder on this machine: `$REBENCH_HOME`, else `~/.rebench`. The run store, sandboxes,
 * assets, caches and the container image live below it (Python's `rebench_env.assets.assets_home` follows
 * the same rule).
 */
import os from "node:os";
import path from "node:path";

export function rebenchHome(): string {
  return process.env.REBENCH_HOME || path.join(os.homedir(), ".rebench");
}
