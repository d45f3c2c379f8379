/**
 * @module
 * Run a Python module of the asset builder in the checkout's `.venv`, streaming its stderr lines (progress)
 * to a callback and stopping it on abort. Results come back in a file the caller names, never from stdout.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { UnavailableError } from "../core/index.js";

/** The checkout's root (this file is src/assets/python.ts, or dist/src/assets/python.js when built). */
export function repoRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, "package.json"))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`cannot find the rebench checkout above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
  return dir;
}

/** `$REBENCH_PYTHON`, else the checkout's `.venv/bin/python`. */
export function pythonExecutable(): string {
  const python = process.env.REBENCH_PYTHON ?? path.join(repoRoot(), ".venv", "bin", "python");
  if (!existsSync(python)) {
    throw new UnavailableError(`no Python environment at ${python}`, { hint: "run scripts/bootstrap once" });
  }
  return python;
}

export interface RunPythonOptions {
  /** Called with each complete output line (stderr or stdout) as it arrives. */
  onLine?: (line: string) => void;
  signal?: AbortSignal;
  env?: NodeJS.ProcessEnv;
}

/**
 * Run `python -m module ...args`; resolves with the exit code, 128 + the signal number when killed
 * (never rejects on a non-zero exit).
 */
export function runPythonModule(module: string, args: readonly string[], options: RunPythonOptions = {}): Promise<number> {
  const python = pythonExecutable();
  return new Promise((resolve, reject) => {
    // rebench_env from this checkout's python/ even in a Python environment that does not install it
    // (REBENCH_PYTHON, or a GPU machine's own venv linked as .venv).
    const pythonPath = [path.join(repoRoot(), "python"), ...(process.env.PYTHONPATH ? [process.env.PYTHONPATH] : [])].join(path.delimiter);
    const child = spawn(python, ["-m", module, ...args], {
      cwd: repoRoot(),
      env: { ...process.env, PYTHONUNBUFFERED: "1", PYTHONPATH: pythonPath, ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const flushers = [child.stderr, child.stdout].map((stream) => {
      let pending = "";
      stream.setEncoding("utf8");
      stream.on("data", (chunk: string) => {
        pending += chunk;
        const lines = pending.split("\n");
        pending = lines.pop() ?? "";
        for (const line of lines) options.onLine?.(line);
      });
      return () => {
        if (pending) options.onLine?.(pending);
        pending = "";
      };
    });
    // The builder's worker processes die with it (they ask Linux for a parent-death signal).
    const onAbort = () => void child.kill("SIGTERM");
    options.signal?.addEventListener("abort", onAbort, { once: true });
    child.on("error", reject);
    child.on("close", (code, signal) => {
      options.signal?.removeEventListener("abort", onAbort);
      for (const flush of flushers) flush();
      resolve(code ?? 128 + (signal ? (os.constants.signals[signal] ?? 0) : 0));
    });
  });
}

/**
 * Run `python -m module ...args --result FILE` and return the exit code and the parsed JSON of FILE
 * (undefined when the program wrote none).
 */
export async function runPythonForResult(module: string, args: readonly string[], options: RunPythonOptions = {}): Promise<{ code: number; result: unknown }> {
  const scratch = mkdtempSync(path.join(os.tmpdir(), "rebench-python-"));
  const file = path.join(scratch, "result.json");
  try {
    const code = await runPythonModule(module, [...args, "--result", file], options);
    let result: unknown;
    try {
      result = JSON.parse(readFileSync(file, "utf8"));
    } catch {
      result = undefined;
    }
    return { code, result };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
