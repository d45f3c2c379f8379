/**
 * @module
 * Whether a process of this machine still exists: the test behind a run's driver being alive
 * (src/runs/ownership.ts, src/store/orphaned-run.ts) and a GPU lease's holder being alive
 * (src/sandbox/gpu-leases.ts).
 */

/** Whether a process with this pid exists (EPERM: it does, owned by another user). */
export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
