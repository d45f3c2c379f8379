/**
 * @module
 * The sandbox backends a plain `rebench` process offers. The CLI calls `registerBuiltinBackends()` before
 * a command needs a sandbox. The `local` (bubblewrap) and `container` (Docker Engine API) backends of
 * `src/sandbox/` register here once they land; until then a run needs a backend registered by its caller
 * (the tests register their test-only `process` backend).
 */

let registered = false;

export function registerBuiltinBackends(): void {
  if (registered) return;
  registered = true;
  // registerSandboxBackend("local", () => new LocalSandboxBackend());
  // registerSandboxBackend("container", () => new ContainerSandboxBackend());
}
