/**
 * @module
 * Resource limits for a local sandbox with cgroups v1 (this project's machines: v1 controllers, no
 * systemd, no delegation): one directory per sandbox under `<controller>/rebench/<id>` holding the
 * sandbox-wide memory limit, and one per executor (`agent`, `grader`) holding the process limit. The
 * cpu controller, where mounted, gives each sandbox its own group, so concurrent sandboxes share the
 * CPUs fairly however many processes each runs. The cpuacct controller, where it is mounted on its own
 * hierarchy, gives each sandbox one more group that counts its CPU time (`cpuSeconds`); where it shares the
 * cpu controller's hierarchy the sandbox's cpu group counts it. The executor's launcher joins its
 * directories before it starts bubblewrap, so everything it ever starts is counted. Needs root; without it
 * (or without the controllers) the sandbox falls back to rlimits.
 */
import { existsSync, mkdirSync, readFileSync, realpathSync, rmdirSync, writeFileSync } from "node:fs";
import path from "node:path";

const ROOT = "/sys/fs/cgroup";

type Controller = "memory" | "pids" | "cpu" | "cpuacct";

function mounted(controller: Controller): boolean {
  return existsSync(path.join(ROOT, controller, "cgroup.procs"));
}

/** Whether cpuacct is mounted together with cpu (`cpu,cpuacct`, as systemd does): then the cpu group counts. */
function cpuacctWithCpu(): boolean {
  try {
    return realpathSync(path.join(ROOT, "cpu")) === realpathSync(path.join(ROOT, "cpuacct"));
  } catch {
    return false;
  }
}

/**
 * The controllers a sandbox uses: memory and pids always, cpu where it is mounted, cpuacct where it is
 * mounted on a hierarchy of its own (one group per sandbox, joined after the others).
 */
function controllers(): Controller[] {
  const list: Controller[] = ["memory", "pids"];
  if (mounted("cpu")) list.push("cpu");
  if (mounted("cpuacct") && !cpuacctWithCpu()) list.push("cpuacct");
  return list;
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
  /** CPU seconds the sandbox's processes used so far (user + system), or undefined where nothing counts them. */
  cpuSeconds(): number | undefined;
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
    if (controllers().includes("cpuacct")) mkdirSync(this.dir("cpuacct"), { recursive: true });
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
    // cpuacct: one group per sandbox, which counts everything in it (reattached sandboxes made before it
    // existed have none until their executors start again).
    const roleOf = (c: Controller) => (c === "cpu" ? cpuRole : c === "cpuacct" ? undefined : role);
    return controllers()
      .filter((c) => c !== "cpuacct" || existsSync(this.dir(c)))
      .map((c) => `echo $$ > '${this.dir(c, roleOf(c))}/cgroup.procs'`)
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

  /**
   * The sandbox's cpuacct usage (nanoseconds, children included) as seconds: 0 before its first executor
   * started (no group yet, no process), undefined where nothing counts (no cpuacct, or processes of a sandbox
   * made before rebench counted CPU time).
   */
  cpuSeconds(): number | undefined {
    const dir = controllers().includes("cpuacct") ? this.dir("cpuacct") : cpuacctWithCpu() ? this.dir("cpu") : undefined;
    if (dir === undefined) return undefined;
    try {
      const ns = Number(readFileSync(path.join(dir, "cpuacct.usage"), "utf8").trim());
      return Number.isFinite(ns) ? ns / 1e9 : undefined;
    } catch {
      return this.members().length === 0 ? 0 : undefined;
    }
  }

  private roleDirs(controller: Controller): string[] {
    return ["agent", "grader"].map((role) => this.dir(controller, role)).filter((d) => existsSync(d));
  }
}
