/**
 * @module
 * Other work on the machine, for the contention tests: one `python3 -c 'while True: pass'` per CPU, started
 * on the host (outside every sandbox) and killed by pid when the test is done. Each loop is a session of its
 * own (`detached`): with the kernel's autogroup scheduling (kernel.sched_autogroup_enabled=1) CPU time is shared
 * between sessions first, and loops sharing the test's session would together get no more than the sandbox's one.
 */
import { type ChildProcess, spawn } from "node:child_process";
import os from "node:os";

/** Run `fn` while `count` (default: one per CPU) busy loops keep the machine's CPUs busy. */
export async function withBusyLoops<T>(fn: () => Promise<T>, count = os.availableParallelism()): Promise<T> {
  const loops: ChildProcess[] = [];
  try {
    for (let i = 0; i < count; i++) loops.push(spawn("python3", ["-c", "while True: pass"], { stdio: "ignore", detached: true }));
    await new Promise((resolve) => setTimeout(resolve, 300)); // started and spinning
    return await fn();
  } finally {
    for (const loop of loops) loop.kill("SIGKILL");
  }
}
