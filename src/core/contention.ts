/**
 * @module
 * Contention during a scoring call: how much of the machine other work used while the grader ran. Timing
 * scores (ln seconds, per-test time limits) lose 15–20 % of their normalized value when other work shares
 * a 2-core machine, and nothing in the score says so; every entry therefore carries these numbers, and an
 * entry of a timing-sensitive variant taken while other work used more than a quarter of a CPU is flagged.
 * "Other work" is the machine's busy CPU time (steal included: CPUs the hypervisor gave to other guests)
 * less the sandbox's own (its agent's and grader's processes, as-agent calls included), per wall second.
 * Pure functions here; `host-cpu.ts` reads the machine, `src/scoring/contention-watch.ts` does the I/O.
 */
import { z } from "zod";

/**
 * Mean CPUs of other work above which a timing-sensitive entry is flagged. Measured on the 2-core
 * development VM (README, "Scores under contention"): a quiet machine's scorings show 0.00–0.08, one
 * busy loop beside the grader about 1, two about 1.3; a quarter of a core is well above the noise and
 * below anything that moved a score.
 */
export const CONTENTION_THRESHOLD_CPUS = 0.25;

export const Contention = z.object({
  /** Mean CPUs used by everything but the sandbox while the grader ran, steal included; null when the sandbox's own use is unknown. */
  otherCpus: z.number().nonnegative().nullable(),
  /** Mean CPUs the hypervisor gave to other guests meanwhile (part of otherCpus). */
  steal: z.number().nonnegative(),
  /** Mean CPUs the sandbox used (agent, grader, as-agent calls); null where the backend cannot tell. */
  sandboxCpus: z.number().nonnegative().nullable(),
  /** The 1-minute load average when the call ended (the sandbox's own runnable threads count too). */
  load: z.number().nonnegative().nullable(),
  /** Other local rebench sandboxes with processes on this host when the call ended. */
  otherSandboxes: z.number().int().nonnegative(),
  /** CPUs of this machine (as /proc/stat counts them). */
  cpus: z.number().int().positive(),
  /** Wall seconds measured: the grader's run. */
  seconds: z.number().nonnegative(),
  /** Whether the variant's score depends on timing (its manifest's `scoring.timingSensitive`). */
  timingSensitive: z.boolean(),
  thresholdCpus: z.number().nonnegative(),
  /** Timing-sensitive, and other work used more than `thresholdCpus` on average: this score is not comparable. */
  flagged: z.boolean(),
});
export type Contention = z.infer<typeof Contention>;

/** Cumulative CPU time of the whole machine, as /proc/stat has it (`readHostCpu`). */
export interface HostCpuTimes {
  /** Seconds of every CPU together spent not idle: user, nice, system, irq, softirq and steal. */
  busySeconds: number;
  /** Seconds stolen by the hypervisor (part of busySeconds). */
  stealSeconds: number;
  /** CPUs counted. */
  cpus: number;
}

export interface ContentionInput {
  before: HostCpuTimes;
  after: HostCpuTimes;
  wallSeconds: number;
  /** The sandbox's CPU seconds during the window, or undefined when its backend cannot measure them. */
  sandboxCpuSeconds: number | undefined;
  load: number | undefined;
  otherSandboxes: number;
  timingSensitive: boolean;
  /** Default CONTENTION_THRESHOLD_CPUS. */
  thresholdCpus?: number;
}

/** The contention of one window: other work's mean CPUs, and whether a timing-sensitive entry is flagged. */
export function judgeContention(input: ContentionInput): Contention {
  const wall = Math.max(input.wallSeconds, 1e-3);
  const busy = Math.max(0, input.after.busySeconds - input.before.busySeconds);
  const steal = Math.max(0, input.after.stealSeconds - input.before.stealSeconds);
  const own = input.sandboxCpuSeconds === undefined ? undefined : Math.max(0, input.sandboxCpuSeconds);
  const otherCpus = own === undefined ? null : round(Math.max(0, busy - own) / wall);
  const thresholdCpus = input.thresholdCpus ?? CONTENTION_THRESHOLD_CPUS;
  return {
    otherCpus,
    steal: round(steal / wall),
    sandboxCpus: own === undefined ? null : round(own / wall),
    load: input.load === undefined ? null : round(input.load),
    otherSandboxes: input.otherSandboxes,
    cpus: Math.max(1, input.after.cpus),
    seconds: round(input.wallSeconds),
    timingSensitive: input.timingSensitive,
    thresholdCpus,
    flagged: input.timingSensitive && otherCpus !== null && otherCpus > thresholdCpus,
  };
}

/** Whether a machine sampled while nothing of rebench's ran (`calibrate`'s check) is too busy for timing. */
export function machineBusy(busyCpus: number, thresholdCpus: number = CONTENTION_THRESHOLD_CPUS): boolean {
  return busyCpus > thresholdCpus;
}

/** The contention recorded in an entry's details, or undefined (entries from before it was recorded). */
export function contentionOf(entry: { details: Record<string, unknown> }): Contention | undefined {
  const parsed = Contention.safeParse(entry.details.contention);
  return parsed.success ? parsed.data : undefined;
}

/** `1.3 of 2 CPUs`, with what else is worth saying (other sandboxes, steal). */
export function describeOtherWork(c: Pick<Contention, "otherCpus" | "cpus" | "steal" | "otherSandboxes">): string {
  const extras = [
    ...(c.otherSandboxes > 0 ? [`${c.otherSandboxes} other rebench sandbox${c.otherSandboxes === 1 ? "" : "es"} running`] : []),
    ...(c.steal >= 0.05 ? [`${c.steal.toFixed(2)} of it stolen by the hypervisor`] : []),
  ];
  return `${(c.otherCpus ?? 0).toFixed(1)} of ${c.cpus} CPU${c.cpus === 1 ? "" : "s"}${extras.length > 0 ? ` (${extras.join("; ")})` : ""}`;
}

/** What the person running rebench is told about a flagged entry. */
export function contentionWarning(c: Contention): string {
  return `scored while other work used ${describeOtherWork(c)}: this timing is not comparable; score again on a quiet machine`;
}

/** The note a participant (agent or human) sees beside a flagged score. */
export function contentionNote(c: Contention): string {
  return (
    `while this was scored, other work on this machine used ${describeOtherWork(c)}: this timing is slower than on a ` +
    "quiet machine and not comparable with other scores; a later scoring may be fairer"
  );
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
