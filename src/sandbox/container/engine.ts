/**
 * @module
 * Find a container engine that speaks the Docker Engine API on a unix socket (Docker, or podman's
 * Docker-compatible service), or start podman's service for the tests and `rebench doctor`.
 */
import { spawn } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { rebenchHome } from "../../core/index.js";
import { commandWorks } from "../which.js";
import { DockerApi } from "./docker-api.js";

/** Sockets tried in order: $REBENCH_CONTAINER_SOCKET, $DOCKER_HOST (unix://), Docker's, podman's, rebench's own. */
export function candidateSockets(): string[] {
  const home = rebenchHome();
  const fromDockerHost = process.env.DOCKER_HOST?.startsWith("unix://") ? [process.env.DOCKER_HOST.slice("unix://".length)] : [];
  return [
    ...(process.env.REBENCH_CONTAINER_SOCKET ? [process.env.REBENCH_CONTAINER_SOCKET] : []),
    ...fromDockerHost,
    "/var/run/docker.sock",
    "/run/podman/podman.sock",
    path.join(home, "podman.sock"),
  ];
}

/** The first engine that answers, if any. */
export async function findEngine(): Promise<DockerApi | undefined> {
  for (const socket of candidateSockets()) {
    const api = new DockerApi(socket);
    if (await api.ping()) return api;
  }
  return undefined;
}

export interface PodmanService {
  api: DockerApi;
  /** Stop the service (containers it runs keep running under conmon). */
  stop(): void;
}

/**
 * Start `podman system service` on `socketPath` and wait until it answers. Why it cannot start is the
 * error's message (podman missing, not root, a broken configuration: see scripts/setup-podman).
 */
export async function startPodmanService(socketPath: string, timeoutMs = 20_000): Promise<PodmanService> {
  if (!commandWorks("podman", ["--version"])) throw new Error("podman is not installed (apt-get install podman runc uidmap)");
  mkdirSync(path.dirname(socketPath), { recursive: true });
  rmSync(socketPath, { force: true });
  let output = "";
  let exited: string | undefined;
  // Its cwd is where conmon drops files such as `oom` after an out-of-memory kill: not the caller's.
  const child = spawn("podman", ["system", "service", "--time=0", `unix://${socketPath}`], {
    cwd: path.dirname(socketPath),
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout.on("data", (c: Buffer) => (output += c.toString()));
  child.stderr.on("data", (c: Buffer) => (output += c.toString()));
  child.on("exit", (code, signal) => (exited = signal ? `killed by ${signal}` : `exit status ${code}`));
  child.on("error", (error) => (exited = error.message));
  const api = new DockerApi(socketPath);
  const stop = () => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGTERM");
    } catch {
      // already gone
    }
  };
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (exited !== undefined) throw new Error(`podman system service stopped (${exited}): ${output.trim().slice(-1000)}`);
    if (await api.ping(1000)) {
      child.stdout.destroy();
      child.stderr.destroy();
      child.unref();
      return { api, stop };
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  stop();
  throw new Error(`podman system service did not answer on ${socketPath} within ${timeoutMs} ms: ${output.trim().slice(-1000)}`);
}
