/**
 * @module
 * Whether a program runs here (`bwrap --version`, `podman --version`), without a shell.
 */
import { spawnSync } from "node:child_process";
import { accessSync, constants, realpathSync } from "node:fs";
import path from "node:path";

export function commandWorks(command: string, args: readonly string[] = ["--version"]): boolean {
  const result = spawnSync(command, args, { stdio: "ignore", timeout: 10_000 });
  return result.error === undefined && result.status === 0;
}

/** The real path of `command` as PATH finds it here (links resolved), or undefined. */
export function resolveCommand(command: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(":")) {
    if (!dir) continue;
    const candidate = path.join(dir, command);
    try {
      accessSync(candidate, constants.X_OK);
      return realpathSync(candidate);
    } catch {
      // not here
    }
  }
  return undefined;
}
