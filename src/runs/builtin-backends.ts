/**
 * @module
 * The sandbox backends a plain `rebench` process offers: `local` (bubblewrap, the default) and
 * `container` (the Docker Engine API, also podman's). The CLI calls `registerBuiltinBackends()` before a
 * command needs a sandbox; tests may register more (the test-only `process` backend).
 */
import { ContainerBackend } from "../sandbox/container/container-backend.js";
import { LocalBackend } from "../sandbox/local/local-backend.js";
import { registerSandboxBackend, sandboxBackendNames } from "./sandbox-backends.js";

let registered = false;

export function registerBuiltinBackends(): void {
  if (registered) return;
  registered = true;
  // A backend registered earlier under the same name (a test's, with its own sandbox root) wins.
  const taken = new Set(sandboxBackendNames());
  if (!taken.has("local")) registerSandboxBackend("local", () => new LocalBackend());
  if (!taken.has("container")) registerSandboxBackend("container", () => new ContainerBackend());
}
