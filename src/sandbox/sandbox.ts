/**
 * @module
 * One Sandbox interface for every backend (`local`: bubblewrap; `container`: the Docker Engine API, also
 * podman's). A sandbox holds one run's world: the agent's workspace, a protected directory the agent user
 * cannot read (grader, hidden data, reference outputs), resource limits and no network. Expected failures
 * (a non-zero exit, a timeout, truncated output) are values in ExecResult; exceptions mean broken
 * infrastructure.
 *
 * Inside every sandbox (both backends): the workspace is /home/agent/workspace, the protected directory
 * /protected, rebench_env is importable (PYTHONPATH), and grader commands find in `REBENCH_AS_AGENT` the
 * helper that runs agent code as the agent user (python/rebench_env/agent_call.py wraps it). docs/sandbox.md
 * describes the model.
 */
import { InfrastructureError } from "../core/index.js";

/** Who a command runs as inside the sandbox. The agent user can never read the protected directory. */
export type SandboxUser = "agent" | "grader" | "root";

export interface ExecOptions {
  /** Default `agent`. */
  user?: SandboxUser;
  /**
   * Run in this directory, as `cd DIR && command` in the user's shell (which stays there afterwards).
   * Default: where that user's shell is (at first the workspace).
   */
  cwd?: string;
  /** Variables for this call only (on top of the base environment and the shell's exported ones). */
  env?: Readonly<Record<string, string>>;
  /** Kill the command and all its children after this long; default 600,000 ms. */
  timeoutMs?: number;
  /** Abort the command (kills its process group) when this signal fires. */
  signal?: AbortSignal;
  /** Cap per stream (stdout, stderr); default 1 MiB. Output beyond it is dropped and `truncated` set. */
  maxOutputBytes?: number;
  /** Bytes written to the command's stdin. */
  stdin?: string | Uint8Array;
}

export interface ExecResult {
  /** Exit status, or null when the command was killed by a signal. */
  exitCode: number | null;
  /** The signal that ended the command (`SIGKILL` after a timeout), or null. */
  signal: string | null;
  timedOut: boolean;
  /** Whether stdout or stderr exceeded `maxOutputBytes` and was cut. */
  truncated: boolean;
  durationMs: number;
  /** Captured output (at most the cap each, decoded as UTF-8). */
  stdout: string;
  stderr: string;
  /** The cap that applied, and how many bytes each stream really produced. */
  outputCapBytes: number;
  stdoutBytes: number;
  stderrBytes: number;
}

export interface SandboxLimits {
  /** Memory for all processes of the sandbox. */
  memoryMb: number;
  /**
   * Maximum number of processes/threads. Local backend: per namespace (the agent's commands, and
   * separately the grader's); container backend: the whole container.
   */
  processes: number;
  /** CPU seconds per command (RLIMIT_CPU), if set. */
  cpuSecondsPerCommand?: number;
  /** Maximum file size a command may write. */
  fileSizeMb?: number;
  /**
   * CPUs the agent's own processes may use together (a CPU quota: 0.25 is a quarter of one core), while the
   * grader's processes run at full speed: where a task caps compute, work outside the grader's launcher is
   * slow in fact. Local backend with cgroups only; elsewhere not enforced (BackendCheck says so).
   */
  agentCpus?: number;
  /**
   * CPUs all processes of the sandbox may use together (a CPU quota), e.g. the CPUs a Slurm job was
   * allocated, where the scheduler itself does not confine the job. Local backend with cgroups only.
   */
  cpus?: number;
}

/** A host path made visible inside the sandbox to every user (assets, datasets, model weights). */
export interface SandboxMount {
  /** Host path (the container backend needs it on the container engine's host). */
  source: string;
  /** Absolute path inside the sandbox. */
  target: string;
  /** Default true. */
  readOnly?: boolean;
}

export interface SandboxSpec {
  /** Stable id (the run id), so a sandbox can be found again after the orchestrator restarts. */
  id: string;
  /** Host folder copied into the workspace (owned by the agent user). */
  workspaceFrom?: string;
  /** Host folder copied into the protected directory (readable by grader and root only). */
  protectedFrom?: string;
  limits: SandboxLimits;
  /** Base environment for every command. */
  env?: Readonly<Record<string, string>>;
  /** Extra host paths to mount (read-only by default). */
  mounts?: readonly SandboxMount[];
  /** Directories (inside the sandbox) put first on every user's PATH, e.g. a mounted toolchain's bin. */
  path?: readonly string[];
  /**
   * Host GPUs (NVIDIA, by index as nvidia-smi numbers them) that commands in the sandbox may use; default
   * none. Local backend: the device nodes of those GPUs and the driver's control nodes are bound into the
   * namespaces; container backend: a Docker device request for those GPUs.
   */
  gpus?: readonly number[];
  /** Whether the agent's commands may use `gpus` too (default true); false gives them to the grader only. */
  agentGpus?: boolean;
  /**
   * Run every as-agent call of the grader (`REBENCH_AS_AGENT`) in the one-shot jail, not only those that ask
   * for it with `--jail` (python/rebench_env/sandbox_jail.py): an environment whose grader runs agent code on
   * hidden inputs opts in with this one flag. Default false.
   */
  jailAgentCalls?: boolean;
  /**
   * Host paths no command in the sandbox may see: each is replaced by an empty directory or an empty file
   * (rebench hides the raw texts its corpus is built from). Paths the container backend's image lacks are
   * hidden there already.
   */
  hide?: readonly string[];
}

/** A hold on the agent's processes (`Sandbox.pauseAgent`): they stay stopped until it is released. */
export interface AgentPause {
  /** Continue the processes this pause stopped. Idempotent. */
  release(): Promise<void>;
}

export interface Sandbox {
  readonly id: string;
  readonly backend: string;
  /** Paths inside the sandbox. */
  readonly paths: { readonly workspace: string; readonly protected: string };
  /**
   * Run `command` with bash in the user's persistent shell: its working directory and exported
   * variables persist between calls, per user. Background jobs outlive the call. A non-zero exit, a
   * timeout or truncated output are values in the result; exceptions mean broken infrastructure.
   */
  exec(command: string, options?: ExecOptions): Promise<ExecResult>;
  /** Read a file with the user's permissions (default agent); SandboxFileError if it may not or it is missing. */
  readFile(path: string, options?: { user?: SandboxUser }): Promise<Uint8Array>;
  /** Create or replace a file as the user (who then owns it); `mode` default 0644. SandboxFileError if refused. */
  writeFile(path: string, data: string | Uint8Array, options?: { user?: SandboxUser; mode?: number }): Promise<void>;
  /**
   * Stop (SIGSTOP) every process of the agent user until the pause is released, or until this orchestrator's
   * connection to the sandbox ends (a crash cannot leave the agent stopped). Scoring holds one for the whole
   * grader run of a jailed environment, so nothing the agent left running can watch or time the call.
   * Processes the grader runs as the agent (`REBENCH_AS_AGENT`) are not stopped.
   */
  pauseAgent(): Promise<AgentPause>;
  /**
   * CPU seconds used so far by every process of the sandbox together (the agent's, the grader's, as-agent
   * calls), user and system, from the sandbox's cgroup or the engine's statistics; read-only. Undefined where
   * the backend cannot tell (a local sandbox without cgroups). Scoring subtracts it from the machine's busy
   * time to see what other work used (src/core/contention.ts).
   */
  cpuSeconds(): Promise<number | undefined>;
  /**
   * The folders on this host that hold the sandbox's files, everything `destroy()` must remove from disk (local:
   * the sandbox's folder, with the workspace, the protected directory and /tmp; container: the folders of its
   * volumes, where the engine keeps them on this host). A check that nothing of a sandbox stays records them
   * while it lives (src/runs/run-remains.ts); the contract's destroy test checks them.
   */
  hostPaths(): Promise<string[]>;
  /**
   * Kill everything still running and remove the sandbox: its processes, and every file of it on the host and
   * in the engine (the workspace with whatever the agent left in it, at any depth and with any permissions; the
   * protected directory). Idempotent; a call after one that failed tries again. Throws SandboxTeardownError,
   * which names what is left and how to remove it, only when something of the sandbox stays.
   */
  destroy(): Promise<void>;
}

/**
 * A sandbox's teardown left something behind (a mount inside its folder, an engine that does not answer):
 * `left` names each thing (host paths, containers, volumes), the hint says how to remove them.
 */
export class SandboxTeardownError extends InfrastructureError {
  constructor(
    message: string,
    readonly left: readonly string[],
    hint: string,
    options: { cause?: unknown } = {},
  ) {
    super(message, { hint, ...options });
  }
}

/**
 * The process in the sandbox that ran a call (the local backend's executor, a container's) died before it
 * answered: killed from outside, or by the kernel. What it ran died with it; the sandbox's files remain, and
 * the next call starts a new one.
 */
export class SandboxExecutorLostError extends InfrastructureError {}

/**
 * readFile/writeFile failed with the user's own permissions, or the file is missing: `code` is the errno
 * name (`ENOENT`, `EACCES`, ...). The agent reading the protected directory gets this (ENOENT or EACCES).
 */
export class SandboxFileError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(`${code}: ${message}`);
    this.name = "SandboxFileError";
  }
}

/** What `rebench doctor` reports for a backend. */
export interface BackendCheck {
  backend: string;
  usable: boolean;
  /** Why not usable, or what is degraded. */
  problems: string[];
  /** Facts worth knowing that are not problems (the check started podman's service for itself). */
  notes?: string[];
  isolation: {
    networkBlocked: boolean | null;
    protectedUnreadable: boolean | null;
    limitsApplied: boolean | null;
    runsAsSeparateUser: boolean | null;
    /** A jailed as-agent call runs, and cannot reach what the agent's processes listen on (sandbox_jail.py). */
    jailHolds: boolean | null;
  };
}

/** A backend by name, as the backend registry (src/runs/sandbox-backends.ts) holds it. */
export interface BackendEntry {
  readonly name: string;
  /** Whether its sandboxes open interactive terminals as the agent (`rebench human`). */
  readonly terminals: boolean;
  /** A new backend; `forCheck`: the one `rebench doctor` probes (the container one may start podman's service). */
  create(options?: { forCheck?: boolean }): SandboxBackend;
}

export interface SandboxBackend {
  readonly name: string;
  /** Probe this machine: can the backend run, and does isolation hold? */
  check(): Promise<BackendCheck>;
  create(spec: SandboxSpec): Promise<Sandbox>;
  /** Find a sandbox created earlier (after an orchestrator restart), or undefined if it is gone. */
  reattach(id: string): Promise<Sandbox | undefined>;
  /**
   * Remove whatever is left of sandbox `id`, whether or not `reattach` finds it (a creation cut off half-way, a
   * folder without its metadata): what `destroy` does, for what is there. Nothing there is no error.
   * SandboxTeardownError as `destroy`. Optional: a backend without it leaves such remains alone.
   */
  remove?(id: string): Promise<void>;
}
