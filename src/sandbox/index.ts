/**
 * @module
 * The sandbox layer's public surface: the interface, the two backends, and the list `rebench doctor`
 * checks. Runs find backends by name through `src/runs/sandbox-backends.ts`.
 */
export * from "./sandbox.js";
export { SANDBOX_PATHS, SANDBOX_USER_NAMES } from "./layout.js";
export { LocalBackend, type LocalBackendOptions } from "./local/local-backend.js";
export { ContainerBackend, type ContainerBackendOptions } from "./container/container-backend.js";

import { ContainerBackend } from "./container/container-backend.js";
import { LocalBackend } from "./local/local-backend.js";
import type { SandboxBackend } from "./sandbox.js";

/** Every backend, as `rebench doctor` checks them (the container check may start podman's service). */
export function sandboxBackends(): SandboxBackend[] {
  return [new LocalBackend(), new ContainerBackend({ startPodmanForCheck: true })];
}
