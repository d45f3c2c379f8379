/**
 * @module
 * One local sandbox: two bubblewrap namespaces over the same host directory. The agent's namespace has
 * the workspace, /tmp and no protected directory at all; the grader's adds /protected and the as-agent
 * broker's socket. Each has a long-lived executor (root inside its namespace when rebench runs as root)
 * that runs commands as the requested user; agent commands go to the agent's namespace, grader and root
 * commands to the grader's. Executors start on first use and are found again after a restart.
 */
import { InfrastructureError } from "../../core/index.js";
import { type ExecutorClient, pauseThrough, toExecRequest } from "../executor-client.js";
import { baseEnv, IN_SANDBOX, SANDBOX_PATHS, UMASKS, venvBasePrefix } from "../layout.js";
import type { AgentPause, ExecOptions, ExecResult, SandboxLimits, SandboxMount, SandboxUser } from "../sandbox.js";
import type { TerminalCommand, TerminalRequest, TerminalSandbox } from "../terminal.js";
import { type ExecutorConfig, executorConfigDefaults, namespaceInitPid, reconnectExecutor, startExecutor, stopExecutor } from "./executor-process.js";
import { EXECUTOR_CAPS, type HostDirs, type Owners, type Role } from "./host-dirs.js";
import { type CgroupVersion, sandboxGroups } from "./limit-groups.js";
import { localTerminalCommand } from "./local-terminal.js";
import { tearDownLocalSandbox } from "./teardown.js";

/** Default timeout of one as-agent call when the grader gives none. */
const AS_AGENT_TIMEOUT_S = 600;

/** What a local sandbox keeps on disk (sandbox.json) so that it can be found again. */
export interface LocalSandboxMetadata {
  version: 1;
  id: string;
  backend: "local";
  createdAt: string;
  /** Commands run as separate users (rebench ran as root and the users exist). */
  privileged: boolean;
  owners: Owners | undefined;
  /** Memory and process limits are cgroups of this hierarchy (`true`: v1, older metadata), else rlimits (false). */
  cgroups: boolean | CgroupVersion;
  limits: SandboxLimits;
  env: Record<string, string>;
  mounts: SandboxMount[];
  /** Directories put first on every user's PATH (after the venv's bin); absent in sandboxes made before it existed. */
  path?: string[];
  pythonDir: string;
  venv: string | undefined;
  /** Host device nodes of the GPUs this sandbox may use (absent in metadata written before GPUs). */
  gpuNodes?: string[];
  /** Every as-agent call runs in the jail (SandboxSpec.jailAgentCalls; absent before jails: false). */
  jailAgentCalls?: boolean;
  /** Host paths masked in every namespace (SandboxSpec.hide; absent before: none). */
  hide?: string[];
  /** False: the GPUs are the grader's only (SandboxSpec.agentGpus; absent: true). */
  agentGpus?: boolean;
}

export class LocalSandbox implements TerminalSandbox {
  readonly backend = "local";
  readonly paths = { workspace: SANDBOX_PATHS.workspace, protected: SANDBOX_PATHS.protected } as const;
  private readonly executors = new Map<Role, Promise<ExecutorClient>>();
  private destroyed = false;
  /** The teardown in progress or done (undefined again after one that failed). */
  private teardown: Promise<void> | undefined;

  constructor(
    private readonly dirs: HostDirs,
    readonly meta: LocalSandboxMetadata,
  ) {}

  get id(): string {
    return this.meta.id;
  }

  async exec(command: string, options: ExecOptions = {}): Promise<ExecResult> {
    return (await this.executor(roleOf(options.user ?? "agent"))).exec(toExecRequest(command, options));
  }

  async readFile(path: string, options: { user?: SandboxUser } = {}): Promise<Uint8Array> {
    const user = options.user ?? "agent";
    return (await this.executor(roleOf(user))).read(user, path);
  }

  async writeFile(path: string, data: string | Uint8Array, options: { user?: SandboxUser; mode?: number } = {}): Promise<void> {
    const user = options.user ?? "agent";
    const bytes = typeof data === "string" ? Buffer.from(data) : data;
    await (await this.executor(roleOf(user))).write(user, path, bytes, options.mode);
  }

  async pauseAgent(): Promise<AgentPause> {
    return pauseThrough(await this.executor("agent"));
  }

  async cpuSeconds(): Promise<number | undefined> {
    return this.meta.cgroups ? sandboxGroups(this.id, this.meta.cgroups).cpuSeconds() : undefined;
  }

  /** The sandbox's folder: its workspace, protected directory, /tmp, runtime directories and logs. */
  async hostPaths(): Promise<string[]> {
    return [this.dirs.root];
  }

  /** An interactive shell as the agent, in the agent's namespace (which a command must have started). */
  terminalCommand(request: TerminalRequest): TerminalCommand {
    if (this.destroyed) throw new InfrastructureError(`sandbox ${this.id} has been destroyed`);
    return localTerminalCommand({ dirs: this.dirs, id: this.id, cgroups: this.meta.cgroups, config: this.executorConfig("agent") }, request);
  }

  async destroy(): Promise<void> {
    this.destroyed = true;
    // Idempotent, and a call after one that failed (SandboxTeardownError) tries again.
    this.teardown ??= this.tearDown().catch((error: unknown) => {
      this.teardown = undefined;
      throw error;
    });
    return this.teardown;
  }

  private async tearDown(): Promise<void> {
    for (const pending of this.executors.values()) (await pending.catch(() => undefined))?.close();
    this.executors.clear();
    await tearDownLocalSandbox(this.dirs, this.id, this.meta.cgroups);
  }

  /** The live executor of `role`'s namespace: reused, found again after a restart, or started. */
  private async executor(role: Role): Promise<ExecutorClient> {
    if (this.destroyed) throw new InfrastructureError(`sandbox ${this.id} has been destroyed`);
    // The grader's as-agent calls go through the broker in the agent's executor: where that one died (killed
    // from outside), it starts again first, and with it a new grader namespace on its network (connectOrStart).
    if (role === "grader" && this.executors.has("agent")) await this.executor("agent");
    const existing = this.executors.get(role);
    if (existing) {
      const client = await existing.catch(() => undefined);
      if (client && !client.closed && !client.broken) return client;
      if (this.executors.get(role) === existing) {
        this.executors.delete(role);
        client?.close();
        // An executor that stopped answering is replaced, with its namespace.
        if (client?.broken) stopExecutor(this.dirs, role);
      }
    }
    let pending = this.executors.get(role);
    if (!pending) {
      pending = this.connectOrStart(role);
      this.executors.set(role, pending);
    }
    return pending;
  }

  private async connectOrStart(role: Role): Promise<ExecutorClient> {
    if (role === "grader") await this.executor("agent"); // the as-agent broker lives in the agent's executor
    const live = await reconnectExecutor(this.dirs, role);
    if (live) return live;
    stopExecutor(this.dirs, role); // a namespace left without a working executor
    // A new agent namespace brings a new network: a grader namespace left from the old one would not share it.
    if (role === "agent") this.forget("grader");
    // Privileged, the grader's namespace joins the agent's network namespace: one loopback for both users, so
    // a service the grader starts (a model endpoint) is reachable from agent code, and neither reaches out.
    const joinNetOf = role === "grader" && this.meta.privileged ? namespaceInitPid(this.dirs, "agent") : undefined;
    if (role === "grader" && this.meta.privileged && joinNetOf === undefined) {
      throw new InfrastructureError(`the agent namespace of sandbox ${this.id} is not running, so the grader's cannot join its network`);
    }
    const cgroups = this.meta.cgroups ? sandboxGroups(this.id, this.meta.cgroups) : undefined;
    // Again after a reboot, when the cgroups are gone (idempotent otherwise).
    cgroups?.create(
      {
        memoryBytes: this.meta.limits.memoryMb * 1024 * 1024,
        processes: this.meta.limits.processes,
        ...(this.meta.limits.agentCpus === undefined ? {} : { agentCpus: this.meta.limits.agentCpus }),
        ...(this.meta.limits.cpus === undefined ? {} : { cpus: this.meta.limits.cpus }),
      },
      ["agent", "grader"],
    );
    return startExecutor({
      dirs: this.dirs,
      role,
      config: this.executorConfig(role),
      bwrapArgs: this.dirs.bwrapArgs(role, {
        privileged: this.meta.privileged,
        venv: this.meta.venv,
        pythonDir: this.meta.pythonDir,
        mounts: this.meta.mounts,
        sharedNet: joinNetOf !== undefined,
        gpuNodes: role === "agent" && this.meta.agentGpus === false ? [] : (this.meta.gpuNodes ?? []),
        hide: this.meta.hide ?? [],
      }),
      cgroups,
      ...(joinNetOf === undefined ? {} : { joinNetOf }),
    });
  }

  /** Stop `role`'s running namespace, if any, and drop its client (the next command starts it again). */
  private forget(role: Role): void {
    if (namespaceInitPid(this.dirs, role) === undefined) return;
    const pending = this.executors.get(role);
    this.executors.delete(role);
    void pending?.then((client) => client.close()).catch(() => undefined);
    stopExecutor(this.dirs, role);
  }

  private executorConfig(role: Role): ExecutorConfig {
    const { owners, privileged, limits } = this.meta;
    const users: SandboxUser[] = role === "agent" ? ["agent"] : ["grader", "root"];
    const idsOf = (user: SandboxUser) => (!privileged || !owners ? null : user === "root" ? { uid: 0, gid: 0 } : owners[user]);
    const pathPrefix = [...(this.meta.venv ? [`${SANDBOX_PATHS.venv}/bin`] : []), ...(this.meta.path ?? [])];
    const env = (user: SandboxUser) => baseEnv(user, { pathPrefix, extra: this.meta.env });
    const config: ExecutorConfig = {
      ...executorConfigDefaults(role),
      privileged,
      keepCapabilities: Object.values(EXECUTOR_CAPS),
      users: Object.fromEntries(
        users.map((user) => [user, { uid: idsOf(user)?.uid ?? null, gid: idsOf(user)?.gid ?? null, home: env(user).HOME!, umask: UMASKS[user] }]),
      ),
      env: Object.fromEntries(users.map((user) => [user, env(user)])),
      limits: {
        cpuSeconds: limits.cpuSecondsPerCommand,
        fileSizeBytes: limits.fileSizeMb === undefined ? undefined : limits.fileSizeMb * 1024 * 1024,
        // Without cgroups, rlimits stand in: per-process address space, processes per user. Not the address
        // space where GPUs are passed through: CUDA reserves terabytes of it (cudaGetDeviceCount fails).
        ...(this.meta.cgroups ? {} : { processes: limits.processes }),
        ...(this.meta.cgroups || (this.meta.gpuNodes ?? []).length > 0 ? {} : { addressSpaceBytes: limits.memoryMb * 1024 * 1024 }),
      },
    };
    if (role === "agent") {
      config.broker = {
        path: IN_SANDBOX.brokerSocket,
        dirGid: privileged && owners ? owners.grader.gid : null,
        allowUids: privileged && owners ? [owners.grader.uid, 0] : null,
        timeoutS: AS_AGENT_TIMEOUT_S,
        jail: jailConfig(this.meta),
      };
    }
    return config;
  }
}

/** The broker's `jail` settings (sandbox_jail.JailConfig): what a jail binds again, and what it hides. */
export function jailConfig(meta: Pick<LocalSandboxMetadata, "jailAgentCalls" | "venv" | "mounts">): Record<string, unknown> {
  const base = meta.venv ? venvBasePrefix(meta.venv) : undefined;
  const readOnly = meta.mounts.filter((m) => m.readOnly !== false).map((m) => m.target);
  return {
    always: meta.jailAgentCalls ?? false,
    keep: [...(meta.venv ? [meta.venv] : []), ...(base ? [base] : []), ...readOnly],
    writableMounts: meta.mounts.filter((m) => m.readOnly === false).map((m) => m.target),
    // host-dirs.ts binds the host's bubblewrap there in every namespace.
    bwrap: SANDBOX_PATHS.bwrap,
  };
}

function roleOf(user: SandboxUser): Role {
  return user === "agent" ? "agent" : "grader";
}
