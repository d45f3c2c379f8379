/**
 * @module
 * The test environment `test_echo` (test/fixtures/env-echo), registered beside the seven, and a sandbox of
 * it on the tests' sandbox backend.
 */
import { fileURLToPath } from "node:url";
import { registerExtraEnvironment } from "../../src/environments/registry.js";
import type { Sandbox } from "../../src/sandbox/sandbox.js";
import { family, gpuFamily } from "../fixtures/env-echo/family.js";
import { testBackend } from "./test-backend.js";

export const ECHO_DIR = fileURLToPath(new URL("../fixtures/env-echo/", import.meta.url));
export const echoFamily = family;

/** Make `test_echo` findable by name (idempotent). */
export function registerEchoEnvironment(): void {
  registerExtraEnvironment(family);
}

/** Make `test_echo_gpu_job` (test_echo asking for a GPU) findable by name (idempotent). */
export function registerEchoGpuEnvironment(): void {
  registerExtraEnvironment(gpuFamily);
}

/** A fresh sandbox (TEST_BACKEND) with the echo workspace and its grader folder as the protected directory. */
export async function echoSandbox(root: string, id: string): Promise<Sandbox> {
  return testBackend(root).create({
    id,
    workspaceFrom: `${ECHO_DIR}workspace`,
    protectedFrom: ECHO_DIR,
    limits: { memoryMb: 1024, processes: 64 },
  });
}
