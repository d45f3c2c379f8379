/**
 * @module
 * Which sandbox backend the run tests use: the real `local` (bubblewrap) backend by default, or the
 * test-only `process` backend with `REBENCH_TEST_BACKEND=process` (no isolation; for quick iteration on
 * machines without bubblewrap).
 */
import { LocalBackend } from "../../src/sandbox/local/local-backend.js";
import type { SandboxBackend } from "../../src/sandbox/sandbox.js";
import { ProcessSandboxBackend } from "./process-sandbox.js";

export const TEST_BACKEND: "local" | "process" = process.env.REBENCH_TEST_BACKEND === "process" ? "process" : "local";

/** A backend of kind TEST_BACKEND keeping its sandboxes under `root`. */
export function testBackend(root: string): SandboxBackend {
  return TEST_BACKEND === "process" ? new ProcessSandboxBackend(root) : new LocalBackend({ root });
}
