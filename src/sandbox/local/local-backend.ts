/**
 * @module
 * The `local` sandbox backend: bubblewrap namespaces on this machine. As root (with the users from
 * scripts/setup-users) every command runs as its own unprivileged user, with cgroup v1 memory and
 * process limits; without root it still works, degraded: every command runs as the invoking user and
 * limits fall back to rlimits (check() says exactly what is lost).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ConflictError, InvalidInputError, rebenchHome } from "../../core/index.js";
import { gpuDeviceNodes } from "../gpu-devices.js";
import { runtimeFiles, SANDBOX_ID, SANDBOX_USER_NAMES } from "../layout.js";
import { probeBackend } from "../probe.js";
import type { BackendCheck, Sandbox, SandboxSpec } from "../sandbox.js";
import type { TerminalBackend } from "../terminal.js";
import { commandWorks } from "../which.js";
import { HostDirs, type Ids, type Owners } from "./host-dirs.js";
import { type CgroupVersion, cgroupVersion } from "./limit-groups.js";
import { LocalSandbox, type LocalSandboxMetadata } from "./local-sandbox.js";
import { removeTree } from "./remove-tree.js";

export interface LocalBackendOptions {
  /** Where sandboxes live on the host; default `$REBENCH_HOME/sandboxes` (REBENCH_HOME: ~/.rebench). */
  root?: string;
  /** Run as if not root (every command as the invoking user, rlimits only): for tests of that mode. */
  unprivileged?: boolean;
}

export class LocalBackend implements TerminalBackend {
  readonly name = "local";
  /** Its sandboxes open interactive terminals as the agent (local-terminal.ts), for `rebench human`. */
  readonly terminals = true;
  readonly root: string;
  private readonly unprivileged: boolean;

  constructor(options: LocalBackendOptions = {}) {
    this.root = options.root ?? path.join(rebenchHome(), "sandboxes");
    this.unprivileged = options.unprivileged ?? false;
  }

  /** The users commands run as, when this process may switch to them (root, users created). */
  owners(): Owners | undefined {
    if (this.unprivileged || process.getuid?.() !== 0) return undefined;
    const agent = lookupUser(SANDBOX_USER_NAMES.agent);
    const grader = lookupUser(SANDBOX_USER_NAMES.grader);
    return agent && grader ? { agent, grader } : undefined;
  }

  /** What this machine lacks for full isolation, in words (empty when nothing is). */
  degradations(): string[] {
    const problems: string[] = [];
    if (this.unprivileged || process.getuid?.() !== 0) {
      problems.push(
        "not root: agent, grader and root commands all run as the invoking user (uid " +
          `${process.getuid?.()}); the protected directory is still not mounted in the agent's namespace, ` +
          "but the grader's files in /tmp are readable by agent code",
      );
    } else if (!this.owners()) {
      problems.push("the users rebench-agent and rebench-grader do not exist: run scripts/setup-users (as root)");
    }
    if (!this.cgroupsUsable()) {
      problems.push(
        "no cgroup memory/pids controllers usable (v1 or v2, needs root): memory is limited per process " +
          "(RLIMIT_AS; none in sandboxes given GPUs), not for the sandbox as a whole, and processes per user (RLIMIT_NPROC)",
      );
    }
    return problems;
  }

  async check(): Promise<BackendCheck> {
    const problems = this.degradations();
    if (!commandWorks("bwrap", ["--version"])) {
      return {
        backend: this.name,
        usable: false,
        problems: ["bubblewrap (bwrap) is not installed: apt-get install bubblewrap", ...problems],
        isolation: unknownIsolation(),
      };
    }
    return probeBackend(this, problems);
  }

  async create(spec: SandboxSpec): Promise<Sandbox> {
    if (!SANDBOX_ID.test(spec.id)) throw new InvalidInputError(`invalid sandbox id ${JSON.stringify(spec.id)}: use letters, digits, '_', '.', '-'`);
    const dirs = new HostDirs(path.join(this.root, spec.id));
    if (existsSync(dirs.metadata)) {
      throw new ConflictError(`sandbox ${spec.id} already exists in ${this.root}`, { hint: "reattach to it, or destroy it first" });
    }
    const owners = this.owners();
    const files = runtimeFiles();
    const meta: LocalSandboxMetadata = {
      version: 1,
      id: spec.id,
      backend: "local",
      createdAt: new Date().toISOString(),
      privileged: owners !== undefined,
      owners,
      cgroups: this.cgroupsUsable(),
      limits: spec.limits,
      env: { ...spec.env },
      mounts: [...(spec.mounts ?? [])],
      path: [...(spec.path ?? [])],
      pythonDir: files.pythonDir,
      venv: files.venv,
      gpuNodes: gpuDeviceNodes(spec.gpus ?? []),
      jailAgentCalls: spec.jailAgentCalls ?? false,
      hide: [...(spec.hide ?? [])],
      agentGpus: spec.agentGpus ?? true,
    };
    mkdirSync(dirs.root, { recursive: true, mode: 0o755 });
    dirs.create({ workspaceFrom: spec.workspaceFrom, protectedFrom: spec.protectedFrom, owners });
    writeFileSync(dirs.metadata, JSON.stringify(meta, null, 2), { mode: 0o600 });
    return new LocalSandbox(dirs, meta);
  }

  async reattach(id: string): Promise<Sandbox | undefined> {
    if (!SANDBOX_ID.test(id)) return undefined;
    const dirs = new HostDirs(path.join(this.root, id));
    try {
      const meta = JSON.parse(readFileSync(dirs.metadata, "utf8")) as LocalSandboxMetadata;
      return meta.backend === "local" && meta.id === id ? new LocalSandbox(dirs, meta) : undefined;
    } catch {
      return undefined;
    }
  }

  /** Every sandbox id under this backend's root (live or half-destroyed). */
  list(): string[] {
    if (!existsSync(this.root)) return [];
    return readdirSync(this.root).filter((name) => SANDBOX_ID.test(name));
  }

  /** Destroy every sandbox under this backend's root (their processes, cgroups and folders); returns how many. */
  async destroyAll(): Promise<number> {
    let count = 0;
    for (const id of this.list()) {
      const sandbox = await this.reattach(id);
      if (sandbox) {
        await sandbox.destroy();
        count += 1;
      } else {
        removeTree(path.join(this.root, id));
      }
    }
    return count;
  }

  private cgroupsUsable(): CgroupVersion | false {
    return (!this.unprivileged && cgroupVersion()) || false;
  }
}

function unknownIsolation(): BackendCheck["isolation"] {
  return { networkBlocked: null, protectedUnreadable: null, limitsApplied: null, runsAsSeparateUser: null, jailHolds: null };
}

/** uid and gid of a local user, from /etc/passwd (no NSS lookups needed for system users). */
function lookupUser(name: string): Ids | undefined {
  try {
    for (const line of readFileSync("/etc/passwd", "utf8").split("\n")) {
      const [user, , uid, gid] = line.split(":");
      if (user === name && uid !== undefined && gid !== undefined) return { uid: Number(uid), gid: Number(gid) };
    }
  } catch {
    // no passwd file
  }
  return undefined;
}
