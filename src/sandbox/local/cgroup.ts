/**
 * @module
 * Resource limits for a local sandbox with cgroups v1 (this project's machines: v1 controllers, no
 * systemd, no delegation): one directory per sandbox under `<controller>/rebench/<id>` holding the
 * sandbox-wide memory limit, and one per executor (`agent`, `grader`) holding the process limit. The
 * cpu controller, where mounted, gives each sandbox its own group, so concurrent sandboxes share the
 * CPUs fairly however many processes each runs. The executor's launcher joins its directories before it
 * starts bubblewrap, so everything it ever starts is counted. Needs root; without it (or without the
 * controllers) the sandbox falls back to rlimits.
 */
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import path from "node:path";

const ROOT = "/sys/fs/cgroup";

type Controller = "memory" | "pids" | "cpu";

/** The controllers a sandbox uses: memory and pids always, cpu where it is mounted. */
function controllers(): Controller[] {
  return existsSync(path.join(ROOT, "cpu", "cgroup.procs")) ? ["memory", "pids", "cpu"] : ["memory", "pids"];
}

export interface CgroupLimits {
  memoryBytes: number;
  processes: number;
  /** A CPU quota for the `agent` role's group (SandboxLimits.agentCpus), if any. */
  agentCpus?: number;
  /** A CPU quota for the whole sandbox's group (SandboxLimits.cpus), if any. */
  cpus?: number;
}

/** A CPU quota in microseconds per CPU_PERIOD_US. */
export function cpuQuotaUs(cpus: number): number {
  return Math.max(1000, Math.round(cpus * CPU_PERIOD_US));
}

/** The cgroup CPU period rebench uses, in microseconds (the kernel's default). */
export const CPU_PERIOD_US = 100_000;

/** A sandbox's cgroups, v1 (this file) or v2 (cgroup-v2.ts). */
export interface SandboxLimitGroups {
  readonly id: string;
  /** Create the sandbox's groups and write its limits. */
  create(limits: CgroupLimits, roles: readonly string[]): void;
  /** Shell code (for `sh -c`) that moves the shell into `role`'s groups before it execs. */
  joinScript(role: string): string;
  /** Host pids of every process still in the sandbox's groups. */
  members(): number[];
  /** SIGKILL everything in the groups (repeating while processes fork), then remove them. */
  destroy(): Promise<void>;
  /** How often the memory limit was hit. */
  memoryLimitHits(): number;
}

/** Whether cgroup v1 memory and pids controllers are mounted and writable here. */
export function cgroupsV1Available(): boolean {
  if (process.getuid?.() !== 0) return false;
  for (const controller of ["memory", "pids"]) {
    const file = path.join(ROOT, controller, "cgroup.procs");
    if (!existsSync(file) || existsSync(path.join(ROOT, controller, "cgroup.subtree_control"))) return false;
  }
  return true;
}

/**
 * SIGKILL every process `members` lists, again while processes fork, for up to a second; `beforeRound`
 * may ask the kernel to do it first (cgroup v2's `cgroup.kill`).
 */
export async function killMembers(members: () => number[], beforeRound?: () => void): Promise<void> {
  for (let round = 0; round < 50; round++) {
    const pids = members();
    if (pids.length === 0) return;
    beforeRound?.();
    for (const pid of pids) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // gone
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The cgroup directories of one sandbox. All methods are idempotent. */
export class SandboxCgroups implements SandboxLimitGroups {
  constructor(readonly id: string) {}

  dir(controller: Controller, role?: string): string {
    return path.join(ROOT, controller, "rebench", this.id, ...(role ? [role] : []));
  }

  /** Create the sandbox's directories and write its limits. */
  create(limits: CgroupLimits, roles: readonly string[]): void {
    const memory = this.dir("memory");
    mkdirSync(memory, { recursive: true });
    writeFileSync(path.join(memory, "memory.limit_in_bytes"), String(limits.memoryBytes));
    const swap = path.join(memory, "memory.memsw.limit_in_bytes");
    if (existsSync(swap)) writeFileSync(swap, String(limits.memoryBytes)); // no escape into swap
    const cpu = controllers().includes("cpu");
    if (cpu && limits.cpus !== undefined) {
      const sandbox = this.dir("cpu");
      mkdirSync(sandbox, { recursive: true });
      writeFileSync(path.join(sandbox, "cpu.cfs_period_us"), String(CPU_PERIOD_US));
      writeFileSync(path.join(sandbox, "cpu.cfs_quota_us"), String(cpuQuotaUs(limits.cpus)));
    }
    if (cpu && limits.agentCpus !== undefined) {
      const agent = this.dir("cpu", "agent");
      mkdirSync(agent, { recursive: true });
      writeFileSync(path.join(agent, "cpu.cfs_period_us"), String(CPU_PERIOD_US));
      writeFileSync(path.join(agent, "cpu.cfs_quota_us"), String(cpuQuotaUs(Math.min(limits.agentCpus, limits.cpus ?? Infinity))));
    }
    for (const role of roles) {
      mkdirSync(this.dir("memory", role), { recursive: true });
      if (cpu) mkdirSync(this.dir("cpu"), { recursive: true });
      const pids = this.dir("pids", role);
      mkdirSync(pids, { recursive: true });
      writeFileSync(path.join(pids, "pids.max"), String(limits.processes));
    }
  }

  /** Shell code (for `sh -c`) that moves the shell into `role`'s directories before it execs. */
  joinScript(role: string): string {
    // The cpu controller has one group per sandbox (a fair share against other sandboxes), and a quota'd
    // group of its own for the agent where it has a quota.
    const cpuRole = existsSync(this.dir("cpu", role)) ? role : undefined;
    return controllers()
      .map((c) => `echo $$ > '${this.dir(c, c === "cpu" ? cpuRole : role)}/cgroup.procs'`)
      .join(" && ");
  }

  /** Host pids of every process still in the sandbox's cgroups. */
  members(): number[] {
    const pids = new Set<number>();
    for (const controller of controllers()) {
      const base = this.dir(controller);
      for (const dir of [base, ...this.roleDirs(controller)]) {
        try {
          for (const line of readFileSync(path.join(dir, "cgroup.procs"), "utf8").split("\n")) if (line) pids.add(Number(line));
        } catch {
          // not there
        }
      }
    }
    return [...pids];
  }

  /** SIGKILL everything in the sandbox's cgroups (repeating while processes fork), then remove them. */
  async destroy(): Promise<void> {
    await killMembers(() => this.members());
    for (const controller of controllers()) {
      for (const dir of [...this.roleDirs(controller), this.dir(controller)]) {
        try {
          rmdirSync(dir);
        } catch {
          // already gone, or a process is still exiting; the directory is empty of limits that matter
        }
      }
    }
  }

  /** Whether the memory limit was hit (the kernel's failure counter for the sandbox). */
  memoryLimitHits(): number {
    try {
      return Number(readFileSync(path.join(this.dir("memory"), "memory.failcnt"), "utf8").trim());
    } catch {
      return 0;
    }
  }

  private roleDirs(controller: Controller): string[] {
    return ["agent", "grader"].map((role) => this.dir(controller, role)).filter((d) => existsSync(d));
  }
}
