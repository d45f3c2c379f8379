/**
 * @module
 * A variant's reference solution as the replay agent plays it: the steps of its actions file with every
 * `upload` turned into a `python` call that writes the file, read from the variant's reference files
 * (a folder, or one filled on the host for the occasion, e.g. from an encrypted archive, and deleted
 * right after). The reference thus reaches the sandbox only through the tool calls of the replay run.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { InfrastructureError, type ReferenceStep, type ReplayStep } from "../core/index.js";
import type { VariantImplementation } from "./contract.js";
import { resolveUpload } from "./upload-step.js";

/** `steps` (parsed from `reference.actions`) with their uploads resolved against the reference files. */
export function resolveReferenceSteps(dir: string, reference: VariantImplementation["reference"], steps: readonly ReferenceStep[]): ReplayStep[] {
  const source = path.join(dir, reference.actions);
  if (!steps.some((s) => s.tool === "upload")) return steps as ReplayStep[];
  const files = reference.files;
  if (typeof files !== "function") {
    const folder = files === undefined ? path.dirname(source) : path.join(dir, files);
    return steps.map((s) => (s.tool === "upload" ? resolveUpload(s, folder, source) : s));
  }
  const folder = mkdtempSync(path.join(os.tmpdir(), "rebench-reference-"));
  try {
    try {
      files(folder);
    } catch (error) {
      throw new InfrastructureError(`cannot prepare the reference files of ${source}: ${(error as Error).message}`);
    }
    return steps.map((s) => (s.tool === "upload" ? resolveUpload(s, folder, source) : s));
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
