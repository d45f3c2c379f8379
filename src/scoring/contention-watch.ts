/**
 * @module
 * What else used the machine while a grader ran: the machine's busy CPU time (/proc/stat, steal included)
 * and the sandbox's own (`Sandbox.cpuSeconds`) read before and after the call, the load average and the
 * other rebench sandboxes running at its end. The judgement is the pure `judgeContention` in core; this
 * module only reads. A reading that fails leaves its number unknown and never fails the scoring.
 */
import { type Contention, judgeContention, readHostCpu, readLoadAverage } from "../core/index.js";
import { otherSandboxesRunning } from "../sandbox/running-sandboxes.js";
import type { Sandbox } from "../sandbox/sandbox.js";

export interface ContentionWatchOptions {
  timingSensitive: boolean;
  /** Default CONTENTION_THRESHOLD_CPUS. */
  thresholdCpus?: number;
}

export interface ContentionWatch {
  /** End the window; undefined where this machine has no /proc/stat. */
  stop(): Promise<Contention | undefined>;
}

/** Start measuring now (call it right before the grader starts). */
export async function watchContention(sandbox: Sandbox, options: ContentionWatchOptions): Promise<ContentionWatch> {
  const sandboxBefore = await ownCpu(sandbox);
  const before = readHostCpu();
  const start = performance.now();
  return {
    async stop() {
      const after = readHostCpu();
      const wallSeconds = (performance.now() - start) / 1000;
      const sandboxAfter = await ownCpu(sandbox);
      if (before === undefined || after === undefined) return undefined;
      return judgeContention({
        before,
        after,
        wallSeconds,
        sandboxCpuSeconds: sandboxBefore === undefined || sandboxAfter === undefined ? undefined : sandboxAfter - sandboxBefore,
        load: readLoadAverage(),
        otherSandboxes: await otherSandboxesRunning(sandbox.id).catch(() => 0),
        timingSensitive: options.timingSensitive,
        ...(options.thresholdCpus === undefined ? {} : { thresholdCpus: options.thresholdCpus }),
      });
    },
  };
}

async function ownCpu(sandbox: Sandbox): Promise<number | undefined> {
  try {
    return await sandbox.cpuSeconds();
  } catch {
    return undefined;
  }
}
