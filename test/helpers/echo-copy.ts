/**
 * @module
 * A copy of the `test_echo` environment folder under another name, changed before the family is defined
 * (its own grader, calibration.json or exploits), and registered: for the tests of `rebench calibrate` and
 * `rebench exploits`, which read and write files beside the family.
 */
import { cpSync, rmSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { EnvironmentFamily } from "../../src/environments/contract.js";
import { registerExtraEnvironment } from "../../src/environments/registry.js";
import { defineEchoEnvironment } from "../fixtures/env-echo/family.js";
import { ECHO_DIR } from "./echo-env.js";

export const FIXTURES_DIR = path.resolve(ECHO_DIR, "..");

export interface EchoCopyOptions {
  /** The copy's scores depend on timing (`scoring.timingSensitive`); default false. */
  timingSensitive?: boolean;
  /** The copy's reference works to a wall-clock budget (`scoring.timedReference`: what it does); default none. */
  timedReference?: string;
}

/** Copy test/fixtures/env-echo to `root/name`, let `edit` change the copy, then define and register the family. */
export function echoCopy(root: string, name: string, edit: (dir: string) => void = () => undefined, options: EchoCopyOptions = {}): EnvironmentFamily {
  const dir = path.join(root, name);
  cpSync(ECHO_DIR, dir, { recursive: true });
  rmSync(path.join(dir, "calibration.json"), { force: true });
  edit(dir);
  return defineEchoCopy(dir, name, options);
}

/** Define (again) and register the echo family of a copied folder: it reads the folder's calibration.json now. */
export function defineEchoCopy(dir: string, name: string, options: EchoCopyOptions = {}): EnvironmentFamily {
  const family = defineEchoEnvironment({ name, moduleUrl: pathToFileURL(path.join(dir, "family.ts")).href, ...options });
  registerExtraEnvironment(family);
  return family;
}
