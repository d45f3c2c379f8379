/**
 * @module
 * Temporary folders for tests, removed after the test file finishes.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll } from "vitest";

/** A fresh temporary folder, deleted when the test file's tests are done. */
export function tempDir(prefix = "rebench-test-"): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
