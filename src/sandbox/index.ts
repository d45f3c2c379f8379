/**
 * @module
 * The sandbox layer's public surface: the interface, the two backends, and the list `rebench doctor`
 * checks.
 */
export * from "./sandbox.js";
export { SANDBOX_PATHS, SANDBOX_USER_NAMES } from "./layout.js";
export { LocalBackend, type LocalBackendOptions } from "./local/local-backend.js";
export { ContainerBackend, type ContainerBackendOptions } from "./container/container-backend.js";

import { InvalidInputError } from "../core/index.js";
import { ContainerBackend } from "./container/container-backend.js";
import { LocalBackend } from "./local/local-backend.js";
import type { SandboxBackend } from "./sandbox.js";

export const SANDBOX_BACKEND_NAMES = ["local", "container"] as const;

/** A backend by name (`--backend local|container`), with its defaults. */
export function sandboxBackend(name: string): SandboxBackend {
  if (name === "local") return new LocalBackend();
  if (name === "container") return new ContainerBackend();
  throw new InvalidInputError(`unknown sandbox backend ${JSON.stringify(name)}`, { hint: `use one of: ${SANDBOX_BACKEND_NAMES.join(", ")}` });
}

/** Every backend, as `rebench doctor` checks them (the container check may start podman's service). */
export function sandboxBackends(): SandboxBackend[] {
  return [new LocalBackend(), new ContainerBackend({ startPodmanForCheck: true })];
}
