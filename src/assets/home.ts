/**
 * @module
 * Where assets live: `<rebench home>/assets`, the home being `$REBENCH_HOME` or `~/.rebench`
 * (the same rule as `rebench_env.assets.assets_home` in Python).
 */
import os from "node:os";
import path from "node:path";

export function rebenchHome(): string {
  return process.env.REBENCH_HOME || path.join(os.homedir(), ".rebench");
}

export function assetsHome(home: string = rebenchHome()): string {
  return path.join(home, "assets");
}
