/**
 * @module
 * Sandbox backends by name. A run records its backend in `spec.config.sandbox` (default `local`), so a
 * restarted orchestrator or `rebench score` finds the run's sandbox again with the same backend. The real
 * backends (`local`: bubblewrap, `container`: the Docker Engine API) register here at start-up; tests
 * register their own. One backend instance per name and process.
 */
import { UnavailableError, type RunSpec } from "../core/index.js";
import type { SandboxBackend } from "../sandbox/sandbox.js";

export type SandboxBackendFactory = () => SandboxBackend | Promise<SandboxBackend>;

export const DEFAULT_SANDBOX_BACKEND = "local";

const factories = new Map<string, SandboxBackendFactory>();
const instances = new Map<string, Promise<SandboxBackend>>();

/** Make a backend available by name (replacing an earlier registration of that name). */
export function registerSandboxBackend(name: string, factory: SandboxBackendFactory): void {
  factories.set(name, factory);
  instances.delete(name);
}

export function sandboxBackendNames(): string[] {
  return [...factories.keys()];
}

export async function sandboxBackend(name: string): Promise<SandboxBackend> {
  const factory = factories.get(name);
  if (!factory) {
    const known = sandboxBackendNames();
    throw new UnavailableError(`the sandbox backend "${name}" is not available in this rebench`, {
      hint: known.length > 0 ? `available: ${known.join(", ")}` : "no sandbox backend is built in yet (see `rebench doctor`)",
    });
  }
  let instance = instances.get(name);
  if (!instance) {
    instance = Promise.resolve(factory());
    instances.set(name, instance);
  }
  return instance;
}

/** The backend a run uses: `spec.config.sandbox`, default `local`. */
export function backendNameOf(spec: RunSpec): string {
  const name = spec.config.sandbox;
  return typeof name === "string" && name.length > 0 ? name : DEFAULT_SANDBOX_BACKEND;
}
