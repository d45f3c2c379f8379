/**
 * @module
 * Building one container sandbox through the engine API: the container itself (no network, read-only
 * root filesystem, memory and process limits, few capabilities, volumes for the writable directories),
 * files copied in as tar streams through exec sessions (so it works with a remote engine too), and the
 * executor, started as a detached exec and reached through a proxy exec session.
 */
import { spawn } from "node:child_process";
import { statSync } from "node:fs";
import { PassThrough, type Readable } from "node:stream";
import { InfrastructureError } from "../../core/index.js";
import { ExecutorClient, type ExecutorStream } from "../executor-client.js";
import { baseEnv, IN_SANDBOX, PYTHON_DATA_HIDDEN, runtimeFiles, SANDBOX_PATHS, UMASKS } from "../layout.js";
import type { SandboxSpec, SandboxUser } from "../sandbox.js";
import type { DockerApi } from "./docker-api.js";

/** Fixed in the image by scripts/build-sandbox-image. */
export const CONTAINER_IDS = { agent: { uid: 10001, gid: 10001 }, grader: { uid: 10002, gid: 10002 }, root: { uid: 0, gid: 0 } } as const;
/**
 * The container's root: what the executor keeps (the first eight), CAP_SETPCAP to shrink the bounding set,
 * and CAP_SYS_ADMIN only for the executor's start, to mount the uncovered proc that jails need
 * (python/rebench_env/sandbox_jail.py); the executor drops both before it runs anything.
 */
const CAPS = ["CHOWN", "DAC_OVERRIDE", "DAC_READ_SEARCH", "FOWNER", "FSETID", "KILL", "SETGID", "SETUID", "SETPCAP", "SYS_ADMIN"];
/** Processes of rebench's own inside the container (init, executor, proxy, sleep), on top of the limit. */
const OWN_PROCESSES = 16;
const PYTHON = ["python3", "-E", "-s"];

export function containerName(id: string): string {
  return `rebench-${id}`;
}

/** The executor's configuration for a container (one executor for all three users). */
export function containerExecutorConfig(spec: Pick<SandboxSpec, "limits" | "env" | "path" | "mounts" | "jailAgentCalls">): Record<string, unknown> {
  const users: SandboxUser[] = ["agent", "grader", "root"];
  const env = (user: SandboxUser) => baseEnv(user, { pathPrefix: spec.path ?? [], extra: spec.env });
  const { limits } = spec;
  return {
    role: "container",
    privileged: true,
    control: IN_SANDBOX.controlSocket,
    shell: IN_SANDBOX.shell,
    stateDir: IN_SANDBOX.shellState,
    workspace: SANDBOX_PATHS.workspace,
    keepCapabilities: [0, 1, 2, 3, 4, 5, 6, 7],
    users: Object.fromEntries(users.map((u) => [u, { ...CONTAINER_IDS[u], home: env(u).HOME, umask: UMASKS[u] }])),
    env: Object.fromEntries(users.map((u) => [u, env(u)])),
    limits: {
      cpuSeconds: limits.cpuSecondsPerCommand,
      fileSizeBytes: limits.fileSizeMb === undefined ? undefined : limits.fileSizeMb * 1024 * 1024,
    },
    broker: {
      path: IN_SANDBOX.brokerSocket,
      dirGid: CONTAINER_IDS.grader.gid,
      allowUids: [CONTAINER_IDS.grader.uid, 0],
      timeoutS: 600,
      jail: {
        always: spec.jailAgentCalls ?? false,
        keep: (spec.mounts ?? []).filter((m) => m.readOnly !== false).map((m) => m.target),
        writableMounts: (spec.mounts ?? []).filter((m) => m.readOnly === false).map((m) => m.target),
      },
    },
  };
}

/** Create (not start) the container. */
export async function createContainer(api: DockerApi, image: string, spec: SandboxSpec, config: Record<string, unknown>): Promise<string> {
  const memory = spec.limits.memoryMb * 1024 * 1024;
  const created = await api.json<{ Id: string }>("POST", `/containers/create?name=${containerName(spec.id)}`, {
    Image: image,
    Cmd: ["sleep", "infinity"],
    Env: [],
    User: "root",
    WorkingDir: "/",
    Labels: { "rebench.sandbox": spec.id, "rebench.executor-config": JSON.stringify(config) },
    Volumes: { [SANDBOX_PATHS.home]: {}, [SANDBOX_PATHS.protected]: {}, "/opt/rebench": {}, [SANDBOX_PATHS.tmp]: {} },
    HostConfig: {
      NetworkMode: "none",
      Memory: memory,
      MemorySwap: memory,
      PidsLimit: spec.limits.processes + OWN_PROCESSES,
      Init: true,
      ReadonlyRootfs: true,
      Tmpfs: { "/run": "rw,mode=755", ...hiddenDirs(spec.hide ?? [], await api.isPodman()) },
      CapDrop: ["ALL"],
      CapAdd: CAPS,
      SecurityOpt: ["no-new-privileges"],
      Binds: [
        ...(spec.mounts ?? []).map((m) => `${m.source}:${m.target}:${m.readOnly === false ? "rw" : "ro"}`),
        ...(spec.hide ?? []).filter((p) => !isDirectory(p)).map((p) => `/dev/null:${p}:ro`),
      ],
      ...gpuRequest(spec.gpus ?? []),
    },
  });
  return created.Id;
}

/**
 * SandboxSpec.hide's directories as empty read-only tmpfs mounts (its files are bound to /dev/null); podman
 * would copy the image's files into them (`tmpcopyup`, its default) unless told not to.
 */
function hiddenDirs(paths: readonly string[], podman: boolean): Record<string, string> {
  return Object.fromEntries(paths.filter(isDirectory).map((p) => [p, `ro,mode=755${podman ? ",notmpcopyup" : ""}`]));
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The Docker device request for `gpus` (NVIDIA Container Toolkit on Docker; podman maps it to its CDI
 * devices), or nothing.
 */
export function gpuRequest(gpus: readonly number[]): { DeviceRequests?: object[] } {
  if (gpus.length === 0) return {};
  return { DeviceRequests: [{ Driver: "nvidia", DeviceIDs: gpus.map(String), Capabilities: [["gpu"]] }] };
}

/** Run a command as root in the container to completion; `stdin` is streamed in. Throws unless it exits 0. */
export async function runInContainer(api: DockerApi, container: string, cmd: string[], stdin?: Readable | Buffer): Promise<string> {
  const exec = await api.json<{ Id: string }>("POST", `/containers/${container}/exec`, {
    AttachStdin: stdin !== undefined,
    AttachStdout: true,
    AttachStderr: true,
    Cmd: cmd,
    User: "root",
  });
  const stream = await api.startExec(exec.Id);
  let output = "";
  stream.onStdout((c) => (output += c.toString()));
  stream.onStderr((c) => (output += c.toString()));
  if (Buffer.isBuffer(stdin)) stream.socket.end(stdin);
  else if (stdin) stdin.pipe(stream.socket);
  await stream.ended;
  const info = await api.json<{ ExitCode: number | null }>("GET", `/exec/${exec.Id}/json`);
  if (info.ExitCode !== 0) throw new InfrastructureError(`in container ${container}: ${cmd.join(" ")} exited ${info.ExitCode}: ${output.trim().slice(-1000)}`);
  return output;
}

/** A host directory as a tar stream (GNU tar), its files owned by `owner` (uid:gid), without the paths in `exclude`. */
export function tarOf(dir: string, owner?: { uid: number; gid: number }, members: string[] = ["."], exclude: readonly string[] = []): Readable {
  const ownership = owner ? [`--owner=${owner.uid}`, `--group=${owner.gid}`, "--numeric-owner"] : [];
  const excluded = ["__pycache__", ...exclude].map((pattern) => `--exclude=${pattern}`);
  const child = spawn("tar", ["-C", dir, ...excluded, ...ownership, "-cf", "-", ...members], { stdio: ["ignore", "pipe", "inherit"] });
  // Node drains a child's unread stdout when the child exits: hold it in a stream of our own at once.
  return child.stdout.pipe(new PassThrough());
}

/** Copy rebench's Python library (its code: not PYTHON_DATA_HIDDEN), the workspace and the protected files in, and write the executor's configuration. */
export async function populateContainer(api: DockerApi, container: string, spec: SandboxSpec, config: Record<string, unknown>): Promise<void> {
  await runInContainer(
    api,
    container,
    ["sh", "-c", `mkdir -p ${SANDBOX_PATHS.python} && tar -x -C ${SANDBOX_PATHS.python} -f -`],
    tarOf(runtimeFiles().pythonDir, undefined, ["rebench_env"], PYTHON_DATA_HIDDEN),
  );
  if (spec.workspaceFrom) {
    await runInContainer(
      api,
      container,
      ["tar", "-x", "--same-owner", "--no-overwrite-dir", "-C", SANDBOX_PATHS.workspace, "-f", "-"],
      tarOf(spec.workspaceFrom, CONTAINER_IDS.agent),
    );
  }
  if (spec.protectedFrom) {
    const into = `tar -x --same-owner --no-overwrite-dir -C ${SANDBOX_PATHS.protected} -f - && chmod 700 ${SANDBOX_PATHS.protected}`;
    await runInContainer(api, container, ["sh", "-c", into], tarOf(spec.protectedFrom, CONTAINER_IDS.grader));
  }
  await writeExecutorConfig(api, container, config);
}

export async function writeExecutorConfig(api: DockerApi, container: string, config: Record<string, unknown>): Promise<void> {
  const file = `${SANDBOX_PATHS.run}/executor.json`;
  await runInContainer(api, container, ["sh", "-c", `mkdir -p ${SANDBOX_PATHS.run} && umask 077 && cat > ${file}`], Buffer.from(JSON.stringify(config)));
}

/** Start the executor in the background (a detached exec: it lives as long as the container). */
export async function startContainerExecutor(api: DockerApi, container: string): Promise<void> {
  const log = `${SANDBOX_PATHS.run}/executor.log`;
  const command = `exec ${PYTHON.join(" ")} ${IN_SANDBOX.executor} ${SANDBOX_PATHS.run}/executor.json >> ${log} 2>&1`;
  const exec = await api.json<{ Id: string }>("POST", `/containers/${container}/exec`, {
    Cmd: ["sh", "-c", command],
    User: "root",
    AttachStdout: false,
    AttachStderr: false,
  });
  await api.json("POST", `/exec/${exec.Id}/start`, { Detach: true, Tty: false });
}

/** Reach the executor through a proxy exec session; undefined if none is listening. */
export async function connectContainerExecutor(api: DockerApi, container: string): Promise<ExecutorClient | undefined> {
  const exec = await api.json<{ Id: string }>("POST", `/containers/${container}/exec`, {
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    Cmd: [...PYTHON, IN_SANDBOX.executor, "--proxy", IN_SANDBOX.controlSocket],
    User: "root",
  });
  const session = await api.startExec(exec.Id);
  const stream: ExecutorStream = {
    write: (text) => void session.socket.write(text),
    onData: (listener) => session.onStdout(listener),
    onClose: (listener) => void session.ended.then(() => listener()),
    destroy: () => session.socket.destroy(),
  };
  try {
    return await ExecutorClient.open(stream, { timeoutMs: 10_000 });
  } catch {
    return undefined;
  }
}
