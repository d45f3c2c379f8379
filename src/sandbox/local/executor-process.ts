/**
 * @module
 * Start and stop the executor of one local-sandbox namespace: `sh` joins the sandbox's cgroups, execs
 * bubblewrap, which runs python/rebench_env/sandbox_executor.py as the namespace's first process. The
 * executor is detached from the orchestrator (its own session, no pipes to it), so it and everything the
 * agent left running survive an orchestrator crash; the next orchestrator reconnects to its socket.
 * Stopping kills the namespace's init, which takes every process of the namespace with it.
 */
import { spawn } from "node:child_process";
import { closeSync, existsSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { InfrastructureError } from "../../core/index.js";
import { ExecutorClient } from "../executor-client.js";
import { IN_SANDBOX, SANDBOX_PATHS } from "../layout.js";
import type { SandboxUser } from "../sandbox.js";
import type { SandboxLimitGroups } from "./cgroup.js";
import type { HostDirs, Role } from "./host-dirs.js";
import { killSessionInNamespace } from "./host-kill.js";

/** The executor's configuration file (see sandbox_executor.py). */
export interface ExecutorConfig {
  role: Role;
  privileged: boolean;
  control: string;
  shell: string;
  stateDir: string;
  workspace: string;
  users: Partial<Record<SandboxUser, { uid: number | null; gid: number | null; home: string; umask: number }>>;
  env: Partial<Record<SandboxUser, Record<string, string>>>;
  limits: { cpuSeconds?: number; fileSizeBytes?: number; processes?: number; addressSpaceBytes?: number };
  broker?: { path: string; dirGid: number | null; allowUids: number[] | null; timeoutS: number; jail?: Record<string, unknown> };
  /** Capability numbers the executor keeps in its bounding set (root commands get at most these). */
  keepCapabilities: number[];
}

export interface ExecutorLaunch {
  dirs: HostDirs;
  role: Role;
  config: ExecutorConfig;
  bwrapArgs: readonly string[];
  cgroups: SandboxLimitGroups | undefined;
  /** Host pid of a process whose network namespace the new namespace joins (bwrapArgs then has no --unshare-net). */
  joinNetOf?: number;
}

const START_TIMEOUT_MS = 20_000;

export function executorConfigDefaults(role: Role): Pick<ExecutorConfig, "role" | "control" | "shell" | "stateDir" | "workspace"> {
  return { role, control: IN_SANDBOX.controlSocket, shell: IN_SANDBOX.shell, stateDir: IN_SANDBOX.shellState, workspace: SANDBOX_PATHS.workspace };
}

/** Start the executor of `launch.role`'s namespace and connect to it. */
export async function startExecutor(launch: ExecutorLaunch): Promise<ExecutorClient> {
  const { dirs, role } = launch;
  writeFileSync(dirs.executorConfig(role), JSON.stringify(launch.config, null, 2), { mode: 0o600 });
  rmSync(dirs.controlSocket(role), { force: true });
  const log = openSync(dirs.log(role), "a");
  const info = openSync(dirs.info(role), "w");
  const join = launch.cgroups ? `${launch.cgroups.joinScript(role)} && ` : "";
  const net = launch.joinNetOf === undefined ? "" : `nsenter --net=/proc/${launch.joinNetOf}/ns/net `;
  const argv = [...launch.bwrapArgs, "--", "/usr/bin/python3", "-E", "-s", IN_SANDBOX.executor, `${SANDBOX_PATHS.run}/executor.json`];
  let exited: string | undefined;
  try {
    const child = spawn("sh", ["-c", `${join}exec ${net}bwrap "$@"`, "rebench-sandbox", ...argv], {
      detached: true,
      stdio: ["ignore", log, log, info],
    });
    child.on("error", (error) => (exited = error.message));
    child.on("exit", (code, signal) => (exited = signal ? `killed by ${signal}` : `exited with status ${code}`));
    child.unref();
  } finally {
    closeSync(log);
    closeSync(info);
  }
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (existsSync(dirs.controlSocket(role))) {
      try {
        return await ExecutorClient.connect(dirs.controlSocket(role), { killFromHost: killSessionInNamespace });
      } catch {
        // the socket exists before it listens; try again
      }
    }
    if (exited !== undefined || Date.now() > deadline) {
      const why = exited ?? `no control socket after ${START_TIMEOUT_MS} ms`;
      throw new InfrastructureError(`the ${role} executor of sandbox ${dirs.root} did not start (${why}):\n${logTail(dirs.log(role))}`, {
        hint: "run `rebench doctor` to see whether bubblewrap works here",
      });
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Connect to an executor that is already running (after an orchestrator restart), if it answers. */
export async function reconnectExecutor(dirs: HostDirs, role: Role): Promise<ExecutorClient | undefined> {
  if (!existsSync(dirs.controlSocket(role))) return undefined;
  try {
    const client = await ExecutorClient.connect(dirs.controlSocket(role), { killFromHost: killSessionInNamespace, timeoutMs: 2000 });
    if (await client.ping()) return client;
    client.close();
  } catch {
    // not running any more
  }
  return undefined;
}

/** Kill `role`'s namespace (its init, and with it every process inside). Idempotent. */
export function stopExecutor(dirs: HostDirs, role: Role): void {
  const pid = namespaceInitPid(dirs, role);
  if (pid === undefined) return;
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // already gone
  }
  rmSync(dirs.info(role), { force: true });
}

/**
 * Kill `role`'s namespace and wait, at most `waitMs`, until every process in it is gone: the kernel kills
 * them when the namespace's init dies, and init turns zombie (or vanishes) only once they all have. Returns
 * false when the wait ran out. Idempotent.
 */
export async function stopExecutorAndWait(dirs: HostDirs, role: Role, waitMs: number): Promise<boolean> {
  const pid = namespaceInitPid(dirs, role);
  const started = pid === undefined ? undefined : startTime(pid);
  stopExecutor(dirs, role);
  if (pid === undefined || started === undefined) return true;
  const deadline = Date.now() + waitMs;
  for (;;) {
    const state = processState(pid);
    if (state === undefined || state.state === "Z" || state.state === "X" || state.startTime !== started) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A process's state letter and start time (in clock ticks since boot) from /proc, or undefined when it is gone. */
function processState(pid: number): { state: string; startTime: string } | undefined {
  try {
    // The command name (field 2) is in parentheses and may hold spaces: count fields after its closing one.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { state: fields[0]!, startTime: fields[19]! };
  } catch {
    return undefined;
  }
}

function startTime(pid: number): string | undefined {
  return processState(pid)?.startTime;
}

/** Host pid of the namespace's init, from bubblewrap's --info-fd report (if that process still is it). */
export function namespaceInitPid(dirs: HostDirs, role: Role): number | undefined {
  try {
    const pid = (JSON.parse(readFileSync(dirs.info(role), "utf8")) as { "child-pid"?: number })["child-pid"];
    if (typeof pid !== "number" || pid <= 1) return undefined;
    // A stale report (after a reboot) must not name someone else's process.
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
    return cmdline.includes(dirs.root) ? pid : undefined;
  } catch {
    return undefined;
  }
}

function logTail(file: string): string {
  try {
    return readFileSync(file, "utf8").slice(-2000);
  } catch {
    return "(no log)";
  }
}
