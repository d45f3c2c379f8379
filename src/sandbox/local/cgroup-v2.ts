/**
 * @module
 * Resource limits for a local sandbox with the unified cgroup hierarchy (cgroup v2: current distributions,
 * and the GPU machines this project uses): `/sys/fs/cgroup/rebench/<id>` holds the sandbox-wide memory
 * limit (no swap) and its own CPU share; `<id>/agent` and `<id>/grader` hold each executor's process limit
 * and its processes (v2 lets only leaves hold processes). The same interface as the v1 class in cgroup.ts.
 */
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { type CgroupLimits, CPU_PERIOD_US, cpuQuotaUs, killMembers, type SandboxLimitGroups } from "./cgroup.js";

const ROOT = "/sys/fs/cgroup";
const NEEDED = ["memory", "pids"];

/** Whether the unified hierarchy is mounted with the memory and pids controllers, and we are root. */
export function cgroupsV2Available(): boolean {
  if (process.getuid?.() !== 0) return false;
  try {
    const controllers = rootControllers();
    return NEEDED.every((c) => controllers.includes(c));
  } catch {
    return false;
  }
}

/** The controllers the unified hierarchy offers (throws where it is not mounted). */
function rootControllers(): string[] {
  return readFileSync(path.join(ROOT, "cgroup.controllers"), "utf8").split(/\s+/);
}

export class SandboxCgroupsV2 implements SandboxLimitGroups {
  constructor(readonly id: string) {}

  dir(role?: string): string {
    return path.join(ROOT, "rebench", this.id, ...(role ? [role] : []));
  }

  create(limits: CgroupLimits, roles: readonly string[]): void {
    const offered = rootControllers();
    const wanted = ["cpu", ...NEEDED].filter((c) => offered.includes(c));
    const enable = wanted.map((c) => `+${c}`).join(" ");
    mkdirSync(this.dir(), { recursive: true });
    // Controllers reach a group only when every ancestor enables them for its children.
    for (const parent of [ROOT, path.join(ROOT, "rebench"), this.dir()]) {
      const current = readFileSync(path.join(parent, "cgroup.subtree_control"), "utf8").split(/\s+/);
      if (!wanted.every((c) => current.includes(c))) writeFileSync(path.join(parent, "cgroup.subtree_control"), enable);
    }
    writeFileSync(path.join(this.dir(), "memory.max"), String(limits.memoryBytes));
    const swap = path.join(this.dir(), "memory.swap.max");
    if (existsSync(swap)) writeFileSync(swap, "0"); // no escape into swap
    if (limits.cpus !== undefined && wanted.includes("cpu")) writeFileSync(path.join(this.dir(), "cpu.max"), `${cpuQuotaUs(limits.cpus)} ${CPU_PERIOD_US}`);
    for (const role of roles) {
      mkdirSync(this.dir(role), { recursive: true });
      writeFileSync(path.join(this.dir(role), "pids.max"), String(limits.processes));
      if (role === "agent" && limits.agentCpus !== undefined && wanted.includes("cpu")) {
        writeFileSync(path.join(this.dir(role), "cpu.max"), `${cpuQuotaUs(Math.min(limits.agentCpus, limits.cpus ?? Infinity))} ${CPU_PERIOD_US}`);
      }
    }
  }

  joinScript(role: string): string {
    return `echo $$ > '${this.dir(role)}/cgroup.procs'`;
  }

  members(): number[] {
    const pids = new Set<number>();
    for (const dir of this.roleDirs()) {
      try {
        for (const line of readFileSync(path.join(dir, "cgroup.procs"), "utf8").split("\n")) if (line) pids.add(Number(line));
      } catch {
        // not there
      }
    }
    return [...pids];
  }

  async destroy(): Promise<void> {
    const kill = path.join(this.dir(), "cgroup.kill"); // Linux 5.14+: the kernel kills the whole subtree
    await killMembers(
      () => this.members(),
      () => existsSync(kill) && writeFileSync(kill, "1"),
    );
    for (const dir of [...this.roleDirs(), this.dir()]) {
      try {
        rmdirSync(dir);
      } catch {
        // already gone, or a process is still exiting
      }
    }
  }

  memoryLimitHits(): number {
    try {
      const events = readFileSync(path.join(this.dir(), "memory.events"), "utf8");
      return Number(/^max (\d+)$/m.exec(events)?.[1] ?? 0);
    } catch {
      return 0;
    }
  }

  /**
   * `usage_usec` of the sandbox's cpu.stat (every cgroup v2 group has it, the cpu controller enabled or not);
   * 0 before its first executor started (no group yet).
   */
  cpuSeconds(): number | undefined {
    try {
      const usec = /^usage_usec (\d+)$/m.exec(readFileSync(path.join(this.dir(), "cpu.stat"), "utf8"))?.[1];
      return usec === undefined ? undefined : Number(usec) / 1e6;
    } catch {
      return existsSync(this.dir()) ? undefined : 0;
    }
  }

  private roleDirs(): string[] {
    return ["agent", "grader"].map((role) => this.dir(role)).filter((d) => existsSync(d));
  }
}
