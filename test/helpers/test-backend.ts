/**
 * @module
 * Which sandbox backend the run tests use: the real `local` (bubblewrap) backend by default, or the
 * test-only `process` backend with `REBENCH_TEST_BACKEND=process` (no isolation; for quick iteration on
 * machines without bubblewrap). Every local sandbox a test file creates is destroyed after the file
 * (test/setup.ts), so no executor, cgroup or folder outlives the tests.
 */
import { LocalBackend } from "../../src/sandbox/local/local-backend.js";
import type { SandboxBackend } from "../../src/sandbox/sandbox.js";
import { ProcessSandboxBackend } from "./process-sandbox.js";

export const TEST_BACKEND: "local" | "process" = process.env.REBENCH_TEST_BACKEND === "process" ? "process" : "local";

const localRoots = new Set<string>();

/** A backend of kind TEST_BACKEND keeping its sandboxes under `root`. */
export function testBackend(root: string): SandboxBackend {
  if (TEST_BACKEND === "process") return new ProcessSandboxBackend(root);
  localRoots.add(root);
  return new LocalBackend({ root });
}

/** Destroy every local sandbox under the roots handed out by testBackend(). */
export async function destroyTestSandboxes(): Promise<void> {
  for (const root of localRoots) await new LocalBackend({ root }).destroyAll();
}
