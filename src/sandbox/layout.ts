/**
 * @module
 * The world inside every sandbox, the same for every backend: where the workspace, the protected
 * directory and rebench's own helpers are, which users exist, and the base environment each user's
 * commands start with. Backends decide how to build it (bind mounts, a container), not what it is.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { SandboxUser } from "./sandbox.js";

/** Paths as commands inside a sandbox see them. */
export const SANDBOX_PATHS = {
  /** The agent's home directory (writable by the agent). */
  home: "/home/agent",
  /** The agent's working directory: what the environment materializes; commands start here. */
  workspace: "/home/agent/workspace",
  /** Readable and writable by the grader (and root) only; absent from the agent's view where possible. */
  protected: "/protected",
  /** Shared scratch space (sticky, like /tmp). The grader's umask is 077 so its files stay private. */
  tmp: "/tmp",
  /** rebench's Python library (read-only): the executor, the shell wrapper, the as-agent helper. */
  python: "/opt/rebench/python",
  /** rebench's runtime directory: control sockets, shell state, the as-agent broker. */
  run: "/run/rebench",
  /**
   * The checkout's Python environment (`.venv`, read-only), wherever it is on the host: tracebacks an agent
   * sees name this path, not the host's. Its bin is first on every user's PATH.
   */
  venv: "/opt/rebench/venv",
  /**
   * The host's bubblewrap (read-only), for the one-shot jail the broker starts inside the sandbox: the host's
   * may live outside the system folders a sandbox sees (a GPU machine's carried bundle).
   */
  bwrap: "/opt/rebench/bin/bwrap",
} as const;

/**
 * Folders of rebench's Python library (relative to SANDBOX_PATHS.python) that no sandbox shows: data, not
 * code. `rebench_env/assets/shipped` holds the shipped `mini-chat` policy, trained on the unkeyed corpus, so on
 * 96% of the documents of every keyed hidden split (docs/sandbox.md, "Hidden data"); finetune_gpt2_qa hands it
 * to its agent from its staged asset, which needs no copy here.
 */
export const PYTHON_DATA_HIDDEN = ["rebench_env/assets/shipped"] as const;

export const IN_SANDBOX = {
  executor: `${SANDBOX_PATHS.python}/rebench_env/sandbox_executor.py`,
  shell: `${SANDBOX_PATHS.python}/rebench_env/sandbox_shell.sh`,
  /** What grader commands find in `REBENCH_AS_AGENT`. */
  asAgent: `${SANDBOX_PATHS.python}/rebench_env/as_agent.py`,
  controlSocket: `${SANDBOX_PATHS.run}/control.sock`,
  brokerDir: `${SANDBOX_PATHS.run}/broker`,
  brokerSocket: `${SANDBOX_PATHS.run}/broker/as-agent.sock`,
  shellState: `${SANDBOX_PATHS.run}/shell`,
} as const;

/** System users commands run as (created by scripts/setup-users; the same names inside containers). */
export const SANDBOX_USER_NAMES = { agent: "rebench-agent", grader: "rebench-grader", root: "root" } as const;

/** File-creation mask per user: the grader's files are private unless it opens them up. */
export const UMASKS: Record<SandboxUser, number> = { agent: 0o022, grader: 0o077, root: 0o022 };

export interface BaseEnvOptions {
  /** Directories put first on PATH (a Python environment's bin). */
  pathPrefix?: readonly string[];
  /** The sandbox spec's own variables, for every user. */
  extra?: Readonly<Record<string, string>>;
}

/** The environment a user's commands start with (before the shell's saved state and per-call variables). */
export function baseEnv(user: SandboxUser, options: BaseEnvOptions = {}): Record<string, string> {
  const system = user === "agent" ? "/usr/local/bin:/usr/bin:/bin" : "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
  const env: Record<string, string> = {
    PATH: [...(options.pathPrefix ?? []), system].join(":"),
    HOME: user === "agent" ? SANDBOX_PATHS.home : SANDBOX_PATHS.protected,
    USER: SANDBOX_USER_NAMES[user],
    LOGNAME: SANDBOX_USER_NAMES[user],
    SHELL: "/bin/bash",
    LANG: "C.UTF-8",
    TMPDIR: SANDBOX_PATHS.tmp,
    PYTHONPATH: SANDBOX_PATHS.python,
    REBENCH_WORKSPACE: SANDBOX_PATHS.workspace,
  };
  if (user !== "agent") {
    env.REBENCH_PROTECTED = SANDBOX_PATHS.protected;
    env.REBENCH_AS_AGENT = IN_SANDBOX.asAgent;
    env.REBENCH_AS_AGENT_SOCKET = IN_SANDBOX.brokerSocket;
  }
  return { ...env, ...options.extra };
}

/** The checkout's files that sandboxes need, found from this module's location (works from src/ and dist/). */
export interface RuntimeFiles {
  repoRoot: string;
  /** `python/` (holds rebench_env), mounted read-only at SANDBOX_PATHS.python. */
  pythonDir: string;
  /** `.venv`, if bootstrap created it: its bin goes first on PATH so commands get torch and numpy. */
  venv: string | undefined;
}

export function runtimeFiles(): RuntimeFiles {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(path.join(dir, "python", "rebench_env", "sandbox_executor.py"))) {
      const venv = path.join(dir, ".venv");
      return { repoRoot: dir, pythonDir: path.join(dir, "python"), venv: existsSync(path.join(venv, "bin", "python")) ? venv : undefined };
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`cannot find python/rebench_env/sandbox_executor.py above ${import.meta.url}`);
    dir = parent;
  }
}

/** Sandbox ids double as directory, cgroup and container names. */
export const SANDBOX_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** ulimit settings for sandbox_shell.sh's `__RB_ULIMITS` (same format as rebench_env.sandbox_spawn.Limits). */
export function ulimitSpec(limits: { cpuSeconds?: number; fileSizeBytes?: number; processes?: number; addressSpaceBytes?: number }): string {
  const parts: string[] = [];
  if (limits.cpuSeconds !== undefined) parts.push(`St=${limits.cpuSeconds}`, `Ht=${limits.cpuSeconds + 1}`);
  if (limits.fileSizeBytes !== undefined) parts.push(`f=${Math.ceil(limits.fileSizeBytes / 1024)}`);
  if (limits.processes !== undefined) parts.push(`u=${limits.processes}`);
  if (limits.addressSpaceBytes !== undefined) parts.push(`v=${Math.floor(limits.addressSpaceBytes / 1024)}`);
  return parts.join(" ");
}

/**
 * The Python installation a virtual environment's interpreter links to (`home` in its pyvenv.cfg, minus
 * `bin`), when it lies outside /usr (pyenv under /root, a /opt build): sandboxes must mount it too, or the
 * venv's `python3` is a dangling link inside them. Undefined for a system Python or an unreadable config.
 */
export function venvBasePrefix(venv: string): string | undefined {
  let config: string;
  try {
    config = readFileSync(path.join(venv, "pyvenv.cfg"), "utf8");
  } catch {
    return undefined;
  }
  const home = /^home\s*=\s*(.+)$/m.exec(config)?.[1]?.trim();
  if (!home || !path.isAbsolute(home)) return undefined;
  const prefix = path.basename(home) === "bin" ? path.dirname(home) : home;
  return prefix === "/usr" || prefix.startsWith("/usr/") || prefix === "/" || !existsSync(prefix) ? undefined : prefix;
}
