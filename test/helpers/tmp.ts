/**
 * @module
 * Temporary folders for tests, removed after the test file finishes (after the local sandboxes the file
 * created are destroyed, since those may live inside the folder).
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll } from "vitest";
import { destroyTestSandboxes } from "./test-backend.js";

/** A fresh temporary folder, deleted when the test file's tests are done. */
export function tempDir(prefix = "rebench-test-"): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  afterAll(async () => {
    await destroyTestSandboxes();
    rmSync(dir, { recursive: true, force: true });
  }, 120_000);
  return dir;
}
