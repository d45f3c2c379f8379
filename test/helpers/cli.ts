/**
 * @module
 * Run the rebench CLI in tests: in-process (fast, same code path as the binary) or as a real process.
 */
import { execFile } from "node:child_process";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Io } from "../../src/cli/io.js";
import { main } from "../../src/cli/main.js";
import { TEST_BACKEND } from "./test-backend.js";

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run `rebench ...args` in this process. */
export async function rebench(...args: string[]): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  const io: Io = {
    out: (t) => {
      stdout += t;
    },
    err: (t) => {
      stderr += t;
    },
    interactive: false,
  };
  const code = await main(["node", "rebench", ...args], io);
  return { code, stdout, stderr };
}

/**
 * `rebench run NAME --variant mini --agent replay --actions ACTIONS --backend TEST_BACKEND --db DB --json ...extra`:
 * one replayed run of the test backend, its summary as JSON on stdout.
 */
export function replayRun(name: string, actions: string, db: string, ...extra: string[]): Promise<CliResult> {
  return rebench("run", name, "--variant", "mini", "--agent", "replay", "--actions", actions, "--backend", TEST_BACKEND, "--db", db, "--json", ...extra);
}

export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/**
 * Run the CLI sources as a separate process through tsx: what a user's shell does, minus the build.
 * `cwd` (default: the repository root) is where relative paths in `args` land.
 */
export function rebenchProcess(args: string[], env: NodeJS.ProcessEnv = {}, options: { cwd?: string } = {}): Promise<CliResult> {
  const tsx = pathToFileURL(path.join(REPO_ROOT, "node_modules/tsx/dist/loader.mjs")).href;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", tsx, path.join(REPO_ROOT, "src/cli/main.ts"), ...args],
      { cwd: options.cwd ?? REPO_ROOT, env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}
