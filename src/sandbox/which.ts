/**
 * @module
 * Whether a program runs here (`bwrap --version`, `podman --version`), without a shell.
 */
import { spawnSync } from "node:child_process";

export function commandWorks(command: string, args: readonly string[] = ["--version"]): boolean {
  const result = spawnSync(command, args, { stdio: "ignore", timeout: 10_000 });
  return result.error === undefined && result.status === 0;
}
