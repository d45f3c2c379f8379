/**
 * @module
 * TEST-ONLY sandbox backend, named `process`: plain processes and one folder per sandbox, everything as the
 * current user. It has NO isolation (no separate users, network open, the "protected" directory readable)
 * and NO resource limits. It exists so that src/scoring and src/runs can be tested through the Sandbox
 * interface before the real `local` (bubblewrap) backend lands; once it has, the tests switch to `local`.
 * Never register it outside tests.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { cp, mkdir, readdir, readFile, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ConflictError, shellQuote as q, UnavailableError } from "../../src/core/index.js";
import { removeTree } from "../../src/sandbox/remove-tree.js";
import {
  type AgentPause,
  type BackendCheck,
  type ExecOptions,
  type ExecResult,
  type Sandbox,
  type SandboxBackend,
  type SandboxSpec,
  SandboxTeardownError,
} from "../../src/sandbox/sandbox.js";
import type { TerminalCommand, TerminalRequest } from "../../src/sandbox/terminal.js";

const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

export class ProcessSandboxBackend implements SandboxBackend {
  readonly name = "process";
  /** Its sandboxes offer an interactive terminal (a plain bash in the workspace) for `rebench human`. */
  readonly terminals = true;
  constructor(readonly root: string) {}

  async check(): Promise<BackendCheck> {
    return {
      backend: this.name,
      usable: true,
      problems: ["test-only backend: no isolation and no limits"],
      isolation: { networkBlocked: false, protectedUnreadable: false, limitsApplied: false, runsAsSeparateUser: false, jailHolds: false },
    };
  }

  async create(spec: SandboxSpec): Promise<Sandbox> {
    const dir = path.join(this.root, spec.id);
    if (existsSync(dir)) throw new ConflictError(`sandbox ${spec.id} already exists in ${this.root}`);
    const sandbox = new ProcessSandbox(spec.id, dir, spec.env ?? {});
    await Promise.all([sandbox.paths.workspace, sandbox.paths.protected, sandbox.pidDir].map((d) => mkdir(d, { recursive: true })));
    if (spec.workspaceFrom) await cp(spec.workspaceFrom, sandbox.paths.workspace, { recursive: true });
    if (spec.protectedFrom) await cp(spec.protectedFrom, sandbox.paths.protected, { recursive: true });
    await writeFile(path.join(dir, "spec.json"), JSON.stringify(spec));
    return sandbox;
  }

  async reattach(id: string): Promise<Sandbox | undefined> {
    const dir = path.join(this.root, id);
    if (!existsSync(path.join(dir, "spec.json"))) return undefined;
    const spec = JSON.parse(await readFile(path.join(dir, "spec.json"), "utf8")) as SandboxSpec;
    const sandbox = new ProcessSandbox(id, dir, spec.env ?? {});
    await sandbox.killRecorded();
    return sandbox;
  }
}

class ProcessSandbox implements Sandbox {
  readonly backend = "process";
  readonly paths: { workspace: string; protected: string };
  readonly pidDir: string;
  readonly #stateDir: string;

  constructor(
    readonly id: string,
    readonly dir: string,
    readonly baseEnv: Readonly<Record<string, string>>,
  ) {
    this.paths = { workspace: path.join(dir, "workspace"), protected: path.join(dir, "protected") };
    this.#stateDir = path.join(dir, "state");
    this.pidDir = path.join(this.#stateDir, "pids");
  }

  async exec(command: string, options: ExecOptions = {}): Promise<ExecResult> {
    const user = options.user ?? "agent";
    const cap = options.maxOutputBytes ?? 1024 * 1024;
    const env: Record<string, string> = { ...this.#env(user), ...options.env };
    const script = user === "agent" && options.cwd === undefined ? this.#persistentShell(command) : command;
    const started = performance.now();
    // --norc: Debian's bash reads ~/.bashrc when stdin is a socket, and libuv's stdio pipes are socketpairs.
    const child = spawn("bash", ["--norc", "--noprofile", "-c", script], {
      cwd: options.cwd ?? this.paths.workspace,
      env,
      detached: true,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
      child.on("exit", (c, s) => resolve({ code: c, signal: s }));
    });
    const out = capture(child, cap);
    const pidFile = path.join(this.pidDir, String(child.pid));
    writeFileSync(pidFile, "");
    let timedOut = false;
    const kill = () => killGroup(child.pid);
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, options.timeoutMs ?? 600_000);
    options.signal?.addEventListener("abort", kill, { once: true });
    child.stdin.on("error", () => undefined);
    child.stdin.end(options.stdin ?? "");
    const { code, signal } = await exited;
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", kill);
    kill(); // the command is done: remove what it left running, which also closes its pipes
    await Promise.race([out.done, new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
    await unlink(pidFile).catch(() => undefined);
    return {
      exitCode: code,
      signal,
      timedOut,
      truncated: out.stdout.total > cap || out.stderr.total > cap,
      durationMs: performance.now() - started,
      stdout: out.stdout.text(),
      stderr: out.stderr.text(),
      outputCapBytes: cap,
      stdoutBytes: out.stdout.total,
      stderrBytes: out.stderr.total,
    };
  }

  /** The agent's shell state (cwd, exported variables) carried between calls through two files. */
  #persistentShell(command: string): string {
    const cwdFile = path.join(this.#stateDir, "cwd");
    const envFile = path.join(this.#stateDir, "env");
    return [
      `if [ -f ${q(cwdFile)} ]; then cd "$(cat ${q(cwdFile)})" 2>/dev/null || cd ${q(this.paths.workspace)}; fi`,
      `if [ -f ${q(envFile)} ]; then . ${q(envFile)}; fi`,
      `trap 'pwd > ${q(cwdFile)}; export -p > ${q(envFile)}' EXIT`,
      command,
    ].join("\n");
  }

  /** An interactive bash in the workspace (no separate user: this backend has none). */
  terminalCommand(request: TerminalRequest): TerminalCommand {
    return {
      argv: ["bash", "--noprofile", "--rcfile", request.rcfile, "-i"],
      env: { ...this.#env("agent"), TERM: process.env.TERM ?? "xterm", ...request.env },
      cwd: this.paths.workspace,
    };
  }

  #env(user: string): Record<string, string> {
    return {
      PATH: `${path.join(REPO_ROOT, ".venv", "bin")}:${process.env.PATH ?? "/usr/bin:/bin"}`,
      HOME: process.env.HOME ?? "/tmp",
      LANG: "C.UTF-8",
      REBENCH_WORKSPACE: this.paths.workspace,
      ...this.baseEnv,
      // No agent user here: rebench_env.agent_call runs agent code directly (test-only, no isolation).
      ...(user === "grader" ? { REBENCH_AS_AGENT_UNSANDBOXED: "1" } : {}),
    };
  }

  async readFile(file: string): Promise<Uint8Array> {
    return new Uint8Array(await readFile(file));
  }

  async writeFile(file: string, data: string | Uint8Array, options: { mode?: number } = {}): Promise<void> {
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, data, options.mode === undefined ? {} : { mode: options.mode });
  }

  async pauseAgent(): Promise<AgentPause> {
    throw new UnavailableError("the test-only process backend cannot pause the agent's processes (use the local backend)");
  }

  /** Not measured: the test-only backend's processes are the host's own. */
  async cpuSeconds(): Promise<number | undefined> {
    return undefined;
  }

  /** Kill every process group a previous orchestrator left behind (after a restart). */
  async killRecorded(): Promise<void> {
    const pids = await readdir(this.pidDir).catch(() => [] as string[]);
    for (const pid of pids) {
      killGroup(Number(pid));
      await unlink(path.join(this.pidDir, pid)).catch(() => undefined);
    }
  }

  async hostPaths(): Promise<string[]> {
    return [this.dir];
  }

  async destroy(): Promise<void> {
    await this.killRecorded();
    const removal = await removeTree(this.dir);
    if (!removal.removed) throw new SandboxTeardownError(`sandbox ${this.id}: ${removal.error}`, [this.dir], `rm -rf ${this.dir}`);
  }
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // already gone
  }
}

interface Captured {
  total: number;
  text(): string;
}

function capture(child: ChildProcess, cap: number): { stdout: Captured; stderr: Captured; done: Promise<void> } {
  const collect = (stream: NodeJS.ReadableStream | null): Captured & { done: Promise<void> } => {
    const chunks: Buffer[] = [];
    let kept = 0;
    const result = {
      total: 0,
      text: () => Buffer.concat(chunks).toString("utf8"),
      done: new Promise<void>((resolve) => {
        if (!stream) return resolve();
        stream.on("data", (chunk: Buffer) => {
          result.total += chunk.length;
          if (kept < cap) {
            const part = chunk.subarray(0, cap - kept);
            chunks.push(part);
            kept += part.length;
          }
        });
        stream.on("close", resolve);
        stream.on("end", resolve);
      }),
    };
    return result;
  };
  const stdout = collect(child.stdout);
  const stderr = collect(child.stderr);
  return { stdout, stderr, done: Promise.all([stdout.done, stderr.done]).then(() => undefined) };
}
