/**
 * @module
 * Does isolation hold here? Every backend's check() creates a small sandbox and tries to break out of it
 * the way an agent would: reach a server on the host, read a file the grader wrote to the protected
 * directory, allocate past the memory limit, fork past the process limit. What `rebench doctor` reports
 * comes from these probes, never from configuration alone.
 */
import net from "node:net";
import os from "node:os";
import type { BackendCheck, Sandbox, SandboxBackend, SandboxLimits } from "./sandbox.js";

export const PROBE_LIMITS: SandboxLimits = { memoryMb: 256, processes: 64, cpuSecondsPerCommand: 60, fileSizeMb: 64 };
const SECRET = "rebench-doctor-secret-7f3a";

/** Create a sandbox with `backend`, probe it, destroy it. `problems` are known degradations to report. */
export async function probeBackend(backend: SandboxBackend, problems: readonly string[], notes: readonly string[] = []): Promise<BackendCheck> {
  const withNotes = <T extends BackendCheck>(check: T): T => (notes.length ? { ...check, notes: [...notes] } : check);
  return withNotes(await probe(backend, problems));
}

async function probe(backend: SandboxBackend, problems: readonly string[]): Promise<BackendCheck> {
  const found = [...problems];
  const isolation: BackendCheck["isolation"] = {
    networkBlocked: null,
    protectedUnreadable: null,
    limitsApplied: null,
    runsAsSeparateUser: null,
    jailHolds: null,
  };
  let sandbox: Sandbox;
  try {
    sandbox = await backend.create({ id: `doctor-${process.pid}-${Date.now().toString(36)}`, limits: PROBE_LIMITS });
  } catch (error) {
    return { backend: backend.name, usable: false, problems: [...found, `cannot create a sandbox: ${message(error)}`], isolation };
  }
  try {
    const hello = await sandbox.exec("echo ok", { timeoutMs: 30_000 });
    if (hello.stdout.trim() !== "ok") {
      found.push(`a trivial command failed: exit ${hello.exitCode}, ${hello.stderr.trim()}`);
      return { backend: backend.name, usable: false, problems: found, isolation };
    }
    isolation.runsAsSeparateUser = await probeUsers(sandbox, found);
    isolation.protectedUnreadable = await probeProtected(sandbox, found);
    isolation.networkBlocked = await probeNetwork(sandbox, found);
    isolation.limitsApplied = await probeLimits(sandbox, found);
    isolation.jailHolds = await probeJail(sandbox, found);
    return { backend: backend.name, usable: true, problems: found, isolation };
  } catch (error) {
    found.push(`probing failed: ${message(error)}`);
    return { backend: backend.name, usable: false, problems: found, isolation };
  } finally {
    await sandbox.destroy().catch(() => undefined);
  }
}

async function probeUsers(sandbox: Sandbox, problems: string[]): Promise<boolean> {
  const uid = async (user: "agent" | "grader") => (await sandbox.exec("id -u", { user, timeoutMs: 30_000 })).stdout.trim();
  const agent = await uid("agent");
  const grader = await uid("grader");
  const separate = agent !== grader && agent !== "0" && grader !== "0";
  if (!separate) problems.push(`agent and grader commands are not separate unprivileged users (agent uid ${agent}, grader uid ${grader})`);
  return separate;
}

async function probeProtected(sandbox: Sandbox, problems: string[]): Promise<boolean> {
  const file = `${sandbox.paths.protected}/doctor-secret`;
  await sandbox.writeFile(file, SECRET, { user: "grader" });
  const graderSees = (await sandbox.exec(`cat ${file}`, { user: "grader", timeoutMs: 30_000 })).stdout.includes(SECRET);
  const shell = await sandbox.exec(`cat ${file}; ls -la ${sandbox.paths.protected}`, { timeoutMs: 60_000 });
  const viaApi = await sandbox.readFile(file, { user: "agent" }).then(
    (data) => Buffer.from(data).toString("utf8"),
    () => "",
  );
  const hidden = !shell.stdout.includes(SECRET) && !viaApi.includes(SECRET);
  if (!graderSees) problems.push("the grader cannot read its own protected directory");
  if (!hidden) problems.push("the agent user can read the protected directory");
  return hidden && graderSees;
}

async function probeNetwork(sandbox: Sandbox, problems: string[]): Promise<boolean> {
  const server = net.createServer((socket) => socket.destroy());
  let connections = 0;
  server.on("connection", () => connections++);
  await new Promise<void>((resolve) => server.listen(0, "0.0.0.0", resolve));
  const port = (server.address() as net.AddressInfo).port;
  const hostIps = Object.values(os.networkInterfaces())
    .flat()
    .filter((a): a is os.NetworkInterfaceInfo => a !== undefined && a.family === "IPv4" && !a.internal)
    .map((a) => a.address);
  try {
    const targets = [...hostIps.map((ip) => `${ip}/${port}`), "1.1.1.1/53"];
    const script = targets.map((t) => `timeout 5 bash -c 'exec 3<>/dev/tcp/${t}' 2>/dev/null && echo "reached ${t}"`).join("; ");
    const result = await sandbox.exec(`${script}; tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '`, { timeoutMs: 60_000 });
    const lines = result.stdout.split("\n").filter(Boolean);
    const reached = lines.filter((l) => l.startsWith("reached "));
    const interfaces = lines.filter((l) => !l.startsWith("reached ") && l !== "lo");
    const blocked = reached.length === 0 && connections === 0 && interfaces.length === 0;
    if (!blocked)
      problems.push(
        `the agent's sandbox has network: ${[...reached, ...interfaces.map((i) => `interface ${i}`)].join(", ") || "the host server got a connection"}`,
      );
    return blocked;
  } finally {
    server.close();
  }
}

async function probeLimits(sandbox: Sandbox, problems: string[]): Promise<boolean> {
  const { memoryMb, processes, cpuSecondsPerCommand } = PROBE_LIMITS;
  const hog = await sandbox.exec(`head -c ${memoryMb * 3}m /dev/zero | tail > /dev/null`, { timeoutMs: 120_000 });
  const memory = hog.exitCode !== 0;
  const forks = await sandbox.exec(forkCommand(processes + 40), { timeoutMs: 60_000 });
  const started = Number(forks.stdout.trim());
  const processLimit = Number.isFinite(started) && started < processes + 40;
  const cpu = (await sandbox.exec("ulimit -t", { timeoutMs: 30_000 })).stdout.trim() === String(cpuSecondsPerCommand);
  if (!memory) problems.push(`a command allocated ${memoryMb * 3} MB under a ${memoryMb} MB limit`);
  if (!processLimit) problems.push(`a command started ${forks.stdout.trim() || "?"} processes under a limit of ${processes}`);
  if (!cpu) problems.push("the CPU-time limit per command is not applied");
  return memory && processLimit && cpu;
}

/** A jailed call (what graders run agent code on hidden inputs in) starts, and cannot reach an agent's listener. */
async function probeJail(sandbox: Sandbox, problems: string[]): Promise<boolean> {
  const listen = `python3 -c 'import socket, time; s = socket.socket(); s.bind(("127.0.0.1", 7791)); s.listen(); open("/tmp/doctor-listening", "w"); time.sleep(60)'`;
  await sandbox.exec(`(${listen} > /dev/null 2>&1 &); for i in $(seq 50); do test -e /tmp/doctor-listening && break; sleep 0.1; done`, { timeoutMs: 30_000 });
  const reach = `python3 -c 'import socket; print("reached" if socket.socket().connect_ex(("127.0.0.1", 7791)) == 0 else "refused")'`;
  const jailed = await sandbox.exec(`$REBENCH_AS_AGENT --jail -- ${reach}`, { user: "grader", timeoutMs: 60_000 });
  const holds = jailed.exitCode === 0 && jailed.stdout.trim() === "refused";
  if (jailed.exitCode !== 0) {
    problems.push(`the one-shot jail does not start here (environments that jail agent code cannot be scored): ${jailed.stderr.trim().slice(-300)}`);
  } else if (!holds) {
    problems.push("a jailed call reached a server the agent's processes run on the loopback");
  }
  return holds;
}

/** A command that forks `count` sleeping children, or as many as it may, and prints how many it started. */
export function forkCommand(count: number): string {
  return `python3 -c 'import os, time
n = 0
try:
    for _ in range(${count}):
        if os.fork() == 0:
            time.sleep(2)
            os._exit(0)
        n += 1
except OSError:
    pass
print(n)'`;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
