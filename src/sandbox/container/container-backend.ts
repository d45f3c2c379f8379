/**
 * @module
 * The `container` sandbox backend: one container per sandbox through the Docker Engine API on a unix
 * socket (Docker, or podman's Docker-compatible service). The image comes from
 * scripts/build-sandbox-image, imported without a registry. Inside, the same executor, shell wrapper
 * and as-agent broker as the local backend, so both pass the same contract.
 */
import path from "node:path";
import { ConflictError, InvalidInputError, rebenchHome, UnavailableError } from "../../core/index.js";
import { SANDBOX_ID } from "../layout.js";
import { probeBackend } from "../probe.js";
import type { BackendCheck, Sandbox, SandboxSpec } from "../sandbox.js";
import type { TerminalBackend } from "../terminal.js";
import { ContainerSandbox } from "./container-sandbox.js";
import { containerExecutorConfig, containerName, createContainer, populateContainer } from "./container-setup.js";
import { tearDownContainer } from "./container-teardown.js";
import { DockerApi, EngineError } from "./docker-api.js";
import { candidateSockets, findEngine, type PodmanService, startPodmanService } from "./engine.js";
import { ensureImage } from "./image.js";

export interface ContainerBackendOptions {
  /** The engine's unix socket; default: the first that answers of candidateSockets(). */
  socketPath?: string;
  /** check() only: when no engine answers, start podman's service for the probe and stop it after. */
  startPodmanForCheck?: boolean;
}

export class ContainerBackend implements TerminalBackend {
  readonly name = "container";
  /** Its sandboxes open interactive terminals as the agent (container-terminal.ts), for `rebench human`. */
  readonly terminals = true;
  private api: DockerApi | undefined;

  constructor(private readonly options: ContainerBackendOptions = {}) {
    if (options.socketPath) this.api = new DockerApi(options.socketPath);
  }

  async check(): Promise<BackendCheck> {
    const unknown = { networkBlocked: null, protectedUnreadable: null, limitsApplied: null, runsAsSeparateUser: null, jailHolds: null };
    let service: PodmanService | undefined;
    try {
      if (!this.api) this.api = await findEngine();
      if (!this.api && this.options.startPodmanForCheck) {
        const socket = path.join(rebenchHome(), "podman", `doctor-${process.pid}.sock`);
        try {
          service = await startPodmanService(socket);
          this.api = service.api;
        } catch (error) {
          return {
            backend: this.name,
            usable: false,
            problems: [`no container engine answers and podman's service would not start: ${message(error)}`],
            isolation: unknown,
          };
        }
      }
      if (!this.api) return { backend: this.name, usable: false, problems: [noEngine()], isolation: unknown };
      try {
        await ensureImage(this.api);
      } catch (error) {
        const hint = error instanceof UnavailableError && error.hint ? ` (${error.hint})` : "";
        return { backend: this.name, usable: false, problems: [`${message(error)}${hint}`], isolation: unknown };
      }
      const notes = service ? [`no container engine was running: the check started podman's service on ${service.api.socketPath} for itself`] : [];
      return await probeBackend(this, [], notes);
    } finally {
      if (service) {
        service.stop();
        this.api = undefined;
      }
    }
  }

  async create(spec: SandboxSpec): Promise<Sandbox> {
    if (!SANDBOX_ID.test(spec.id)) throw new InvalidInputError(`invalid sandbox id ${JSON.stringify(spec.id)}: use letters, digits, '_', '.', '-'`);
    const api = await this.engine();
    const image = await ensureImage(api);
    const config = containerExecutorConfig(spec);
    let container: string;
    try {
      container = await createContainer(api, image, spec, config);
    } catch (error) {
      // Docker answers 409; podman 500 with "already in use".
      if (error instanceof EngineError && (error.status === 409 || /already in use/.test(error.message))) {
        throw new ConflictError(`sandbox ${spec.id} already exists (container ${containerName(spec.id)})`, { hint: "reattach to it, or destroy it first" });
      }
      throw error;
    }
    const sandbox = new ContainerSandbox(api, spec.id, container, config);
    try {
      await api.json("POST", `/containers/${container}/start`);
      await populateContainer(api, container, spec, config);
    } catch (error) {
      await sandbox.destroy().catch(() => undefined);
      throw error;
    }
    return sandbox;
  }

  async reattach(id: string): Promise<Sandbox | undefined> {
    if (!SANDBOX_ID.test(id)) return undefined;
    const api = await this.engine();
    try {
      const info = await api.json<{ Id: string; Config: { Labels: Record<string, string> | null } }>("GET", `/containers/${containerName(id)}/json`);
      const config = info.Config.Labels?.["rebench.executor-config"];
      if (info.Config.Labels?.["rebench.sandbox"] !== id || !config) return undefined;
      return new ContainerSandbox(api, id, info.Id, JSON.parse(config) as Record<string, unknown>);
    } catch (error) {
      if (error instanceof EngineError && error.status === 404) return undefined;
      throw error;
    }
  }

  /** Remove container `rebench-ID` and its volumes, if there is one (a creation cut off half-way leaves one without its labels). */
  async remove(id: string): Promise<void> {
    if (!SANDBOX_ID.test(id)) return;
    await tearDownContainer(await this.engine(), id, containerName(id));
  }

  private async engine(): Promise<DockerApi> {
    this.api ??= await findEngine();
    if (!this.api) throw new UnavailableError(noEngine());
    return this.api;
  }
}

function noEngine(): string {
  return (
    `no container engine answers on ${candidateSockets().join(", ")}: start one ` +
    "(podman system service --time=0 unix:///run/podman/podman.sock, or Docker) or set REBENCH_CONTAINER_SOCKET"
  );
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
