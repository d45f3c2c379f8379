/**
 * @module
 * One container sandbox: a container whose executor (python/rebench_env/sandbox_executor.py, root
 * inside the container) runs every command as the requested user, reached through one long-lived proxy
 * exec session. The protected directory is the grader's (mode 0700); the agent's commands hold no
 * capabilities; the container has no network, a read-only root filesystem and the sandbox's limits.
 */
import { InfrastructureError } from "../../core/index.js";
import { type ExecutorClient, pauseThrough, toExecRequest } from "../executor-client.js";
import { SANDBOX_PATHS } from "../layout.js";
import type { AgentPause, ExecOptions, ExecResult, SandboxUser } from "../sandbox.js";
import type { TerminalCommand, TerminalRequest, TerminalSandbox } from "../terminal.js";
import { connectContainerExecutor, runInContainer, startContainerExecutor, writeExecutorConfig } from "./container-setup.js";
import { containerVolumes, tearDownContainer, type Volume, volumeFolder } from "./container-teardown.js";
import { containerTerminalCommand } from "./container-terminal.js";
import type { DockerApi } from "./docker-api.js";

const START_TIMEOUT_MS = 30_000;

export class ContainerSandbox implements TerminalSandbox {
  readonly backend = "container";
  readonly paths = { workspace: SANDBOX_PATHS.workspace, protected: SANDBOX_PATHS.protected } as const;
  private client: Promise<ExecutorClient> | undefined;
  private destroyed = false;
  /** The teardown in progress or done (undefined again after one that failed). */
  private teardown: Promise<void> | undefined;
  /** The container's volumes, as the first teardown found them (a retry needs them once the container is gone). */
  private readonly remains: { volumes?: Volume[] } = {};

  constructor(
    private readonly api: DockerApi,
    readonly id: string,
    /** The container's id in the engine. */
    readonly container: string,
    private readonly config: Record<string, unknown>,
  ) {}

  async exec(command: string, options: ExecOptions = {}): Promise<ExecResult> {
    return (await this.executor()).exec(toExecRequest(command, options));
  }

  async readFile(path: string, options: { user?: SandboxUser } = {}): Promise<Uint8Array> {
    return (await this.executor()).read(options.user ?? "agent", path);
  }

  async writeFile(path: string, data: string | Uint8Array, options: { user?: SandboxUser; mode?: number } = {}): Promise<void> {
    const bytes = typeof data === "string" ? Buffer.from(data) : data;
    await (await this.executor()).write(options.user ?? "agent", path, bytes, options.mode);
  }

  async pauseAgent(): Promise<AgentPause> {
    return pauseThrough(await this.executor());
  }

  /**
   * The container's CPU time from the engine's statistics (`cpu_stats.cpu_usage.total_usage`, nanoseconds;
   * one sample, `one-shot`), or undefined when the engine does not give it.
   */
  async cpuSeconds(): Promise<number | undefined> {
    try {
      const stats = await this.api.json<{ cpu_stats?: { cpu_usage?: { total_usage?: number } } }>(
        "GET",
        `/containers/${this.container}/stats?stream=false&one-shot=true`,
        undefined,
        10_000,
      );
      const ns = stats?.cpu_stats?.cpu_usage?.total_usage;
      return typeof ns === "number" && Number.isFinite(ns) && ns >= 0 ? ns / 1e9 : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * The folders of the container's volumes (workspace, protected directory, /tmp, /opt/rebench) where the engine
   * keeps them; the engine's host is this one (rebench reaches engines through local sockets). The container's
   * own layer is the engine's: `reattach` finds the container while it is there.
   */
  async hostPaths(): Promise<string[]> {
    const volumes = this.remains.volumes ?? (await containerVolumes(this.api, this.container));
    return volumes.flatMap((volume) => {
      const folder = volumeFolder(volume);
      return folder ? [folder] : [];
    });
  }

  /** An interactive shell as the agent: a TTY exec session, bridged by container-terminal.ts. */
  terminalCommand(request: TerminalRequest): TerminalCommand {
    if (this.destroyed) throw new InfrastructureError(`sandbox ${this.id} has been destroyed`);
    return containerTerminalCommand({ socketPath: this.api.socketPath, container: this.container, config: this.config }, request);
  }

  async destroy(): Promise<void> {
    this.destroyed = true;
    // Idempotent, and a call after one that failed (SandboxTeardownError) tries again.
    this.teardown ??= this.tearDown().catch((error: unknown) => {
      this.teardown = undefined;
      throw error;
    });
    return this.teardown;
  }

  private async tearDown(): Promise<void> {
    (await this.client?.catch(() => undefined))?.close();
    await tearDownContainer(this.api, this.id, this.container, this.remains);
  }

  private async executor(): Promise<ExecutorClient> {
    if (this.destroyed) throw new InfrastructureError(`sandbox ${this.id} has been destroyed`);
    const existing = this.client;
    if (existing) {
      const current = await existing.catch(() => undefined);
      if (current && !current.closed && !current.broken) return current;
      if (this.client === existing) {
        this.client = undefined;
        current?.close();
        // An executor that stopped answering is replaced.
        if (current?.broken) await this.killExecutor(current.hello.pid);
      }
    }
    this.client ??= this.connectOrStart();
    return this.client;
  }

  private async connectOrStart(): Promise<ExecutorClient> {
    const running = await this.api.json<{ State: { Running: boolean } }>("GET", `/containers/${this.container}/json`);
    if (!running.State.Running) {
      // Stopped (a reboot): start it again; /run is empty then, so the configuration goes back in.
      await this.api.json("POST", `/containers/${this.container}/start`);
      await writeExecutorConfig(this.api, this.container, this.config);
    }
    const live = await connectContainerExecutor(this.api, this.container);
    if (live) return live;
    await startContainerExecutor(this.api, this.container);
    const deadline = Date.now() + START_TIMEOUT_MS;
    while (Date.now() < deadline) {
      const client = await connectContainerExecutor(this.api, this.container);
      if (client) return client;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const log = await runInContainer(this.api, this.container, ["sh", "-c", `tail -c 2000 ${SANDBOX_PATHS.run}/executor.log`]).catch(() => "");
    throw new InfrastructureError(`the executor of container sandbox ${this.id} did not start:\n${log}`);
  }

  private async killExecutor(pid: number): Promise<void> {
    await runInContainer(this.api, this.container, ["kill", "-9", String(pid)]).catch(() => undefined);
  }
}
