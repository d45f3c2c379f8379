/**
 * @module
 * How busy this machine is, from /proc (Linux): cumulative CPU time of every CPU together (`/proc/stat`,
 * steal included) and the load average. Part of the machine probe: scoring reads it around every grader
 * run (contention.ts says why), `rebench calibrate` before it starts. Undefined where /proc is not there.
 */
import { readFileSync } from "node:fs";
import type { HostCpuTimes } from "./contention.js";

/** The kernel's USER_HZ: /proc/stat counts in hundredths of a second on every Linux architecture rebench runs on. */
const TICKS_PER_SECOND = 100;

/** The aggregate `cpu` line of /proc/stat as seconds, or undefined where it cannot be read. */
export function readHostCpu(stat?: string): HostCpuTimes | undefined {
  let text = stat;
  if (text === undefined) {
    try {
      text = readFileSync("/proc/stat", "utf8");
    } catch {
      return undefined;
    }
  }
  return parseProcStat(text);
}

/** Parse /proc/stat: `cpu user nice system idle iowait irq softirq steal guest guest_nice` (guest is inside user). */
export function parseProcStat(text: string): HostCpuTimes | undefined {
  const lines = text.split("\n");
  const total = lines.find((line) => /^cpu\s/.test(line));
  if (total === undefined) return undefined;
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = total.trim().split(/\s+/).slice(1).map(Number);
  const cpus = lines.filter((line) => /^cpu\d+\s/.test(line)).length;
  return {
    busySeconds: (user + nice + system + irq + softirq + steal) / TICKS_PER_SECOND,
    stealSeconds: steal / TICKS_PER_SECOND,
    cpus: Math.max(1, cpus),
  };
}

/** The 1-minute load average, or undefined where /proc/loadavg cannot be read. */
export function readLoadAverage(): number | undefined {
  try {
    const value = Number(readFileSync("/proc/loadavg", "utf8").split(/\s+/)[0]);
    return Number.isFinite(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** How busy the machine was over a sample: mean busy and stolen CPUs, and the load average at the end. */
export interface HostBusySample {
  busyCpus: number;
  steal: number;
  cpus: number;
  load: number | null;
  seconds: number;
}

/** Sample the machine for `ms` milliseconds (default 3 s); undefined where /proc/stat cannot be read. */
export async function sampleHostBusy(ms = 3000, signal?: AbortSignal): Promise<HostBusySample | undefined> {
  const before = readHostCpu();
  const start = performance.now();
  if (before === undefined) return undefined;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
  const after = readHostCpu();
  if (after === undefined) return undefined;
  const seconds = (performance.now() - start) / 1000;
  const load = readLoadAverage();
  const per = (value: number) => Math.round((Math.max(0, value) / Math.max(seconds, 1e-3)) * 1000) / 1000;
  return {
    busyCpus: per(after.busySeconds - before.busySeconds),
    steal: per(after.stealSeconds - before.stealSeconds),
    cpus: after.cpus,
    load: load ?? null,
    seconds: Math.round(seconds * 1000) / 1000,
  };
}
