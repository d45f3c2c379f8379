/**
 * @module
 * A TypeScript entry point of the repository run as a real child process (through tsx), and its end: for
 * the tests that kill or outlive an orchestrator (recovery, a lost executor, moving a run between stores).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { REPO_ROOT } from "./cli.js";

/** `script` (relative to the repository) with `args`, in `env`; its output is piped for `finished`. */
export function node(script: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, ["--import", "tsx", script, ...args], { cwd: REPO_ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
}

/** How the child ended, with all it printed (stdout and stderr as they came). */
export function finished(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }> {
  let output = "";
  child.stdout?.on("data", (d) => (output += d));
  child.stderr?.on("data", (d) => (output += d));
  return new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal, output })));
}

/** How the child exited, with its stdout and stderr apart. */
export function exited(child: ChildProcess): Promise<{ code: number | null; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (d) => (stdout += d));
  child.stderr?.on("data", (d) => (stderr += d));
  return new Promise((resolve) => child.on("exit", (code) => resolve({ code, stdout, stderr })));
}
