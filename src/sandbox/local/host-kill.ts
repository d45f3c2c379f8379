/**
 * @module
 * Kill a command's processes from the host, without trusting anything inside the sandbox: scan /proc
 * for the processes of one pid namespace whose session (as numbered inside that namespace) is the
 * command's, and SIGKILL them. Used at a command's deadline alongside the executor's own kill.
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/** Host pids of the live processes in pid namespace `pidns` (e.g. `pid:[4026532301]`). */
export function processesInNamespace(pidns: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readlinkSync(`/proc/${name}/ns/pid`) === pidns) pids.push(Number(name));
    } catch {
      // gone, or not ours to inspect
    }
  }
  return pids;
}

/** The innermost session id of a process (its NSsid line's last field), or undefined if it is gone. */
function innermostSession(pid: number): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const line = status.split("\n").find((l) => l.startsWith("NSsid:"));
    const last = line?.trim().split(/\s+/).pop();
    return last === undefined ? undefined : Number(last);
  } catch {
    return undefined;
  }
}

/** SIGKILL every process of session `sid` inside pid namespace `pidns`; returns how many were signalled. */
export function killSessionInNamespace(pidns: string, sid: number): number {
  let killed = 0;
  for (let round = 0; round < 3; round++) {
    const members = processesInNamespace(pidns).filter((pid) => innermostSession(pid) === sid);
    if (members.length === 0) break;
    for (const pid of members) {
      try {
        process.kill(pid, "SIGKILL");
        killed++;
      } catch {
        // already gone
      }
    }
  }
  return killed;
}
