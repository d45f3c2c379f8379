/**
 * @module
 * The sandbox backend registry (src/core/registry.ts). A run records its backend in `spec.config.sandbox`
 * (default `local`), so a restarted orchestrator or `rebench score` finds the run's sandbox again with the
 * same backend. The CLI registers the built-in backends at start-up (src/cli/builtins.ts); tests register
 * their own. One backend instance per entry and process.
 */
import { Registry, type RunSpec, UnavailableError } from "../core/index.js";
import type { BackendEntry, SandboxBackend } from "../sandbox/sandbox.js";

export const DEFAULT_SANDBOX_BACKEND = "local";

export const backends = new Registry<BackendEntry>("sandbox backend");
const instances = new WeakMap<BackendEntry, SandboxBackend>();

/** The backend registered as `name` (one instance per registration), or an UnavailableError naming the others. */
export function sandboxBackend(name: string): SandboxBackend {
  const entry = backends.find(name);
  if (!entry) {
    const known = backends.names();
    throw new UnavailableError(`the sandbox backend "${name}" is not available in this rebench`, {
      hint: known.length > 0 ? `available: ${known.join(", ")}` : "no sandbox backend is registered (see `rebench doctor`)",
    });
  }
  let instance = instances.get(entry);
  if (!instance) {
    instance = entry.create();
    instances.set(entry, instance);
  }
  return instance;
}

/** The backend a run uses: `spec.config.sandbox`, default `local`. */
export function backendNameOf(spec: RunSpec): string {
  const name = spec.config.sandbox;
  return typeof name === "string" && name.length > 0 ? name : DEFAULT_SANDBOX_BACKEND;
}
