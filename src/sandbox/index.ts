/**
 * @module
 * The sandbox layer's public surface: the interface, the two backends and their registry entries. Runs find
 * backends by name through the registry in `src/runs/sandbox-backends.ts`.
 */

export { ContainerBackend, type ContainerBackendOptions } from "./container/container-backend.js";
export { SANDBOX_PATHS, SANDBOX_USER_NAMES } from "./layout.js";
export { LocalBackend, type LocalBackendOptions } from "./local/local-backend.js";
export * from "./sandbox.js";

import { ContainerBackend } from "./container/container-backend.js";
import { LocalBackend } from "./local/local-backend.js";
import type { BackendEntry } from "./sandbox.js";

/** The backends rebench ships, in the order `rebench doctor` checks them; the CLI registers them. */
export const BUILTIN_BACKENDS: readonly BackendEntry[] = [
  { name: "local", terminals: true, create: () => new LocalBackend() },
  { name: "container", terminals: true, create: (options) => new ContainerBackend({ startPodmanForCheck: options?.forCheck ?? false }) },
];
