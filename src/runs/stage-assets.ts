/**
 * @module
 * The assets a variant names (`VariantImplementation.assets`, built by `rebench assets build`) reach its
 * sandbox through the protected directory: each asset folder is copied, links resolved, to
 * `<protected>/assets/<name>`, readable by the grader and root only. The variant's set-up (root) hands
 * the agent what it may see (a training split, a model) and keeps the rest hidden (validation and test
 * splits, weights the agent must not have). Assets are never mounted for every user, because most hold
 * something the agent must not read.
 */
import { existsSync } from "node:fs";
import { cp } from "node:fs/promises";
import path from "node:path";
import { assetsHome } from "../assets/home.js";
import { UnavailableError } from "../core/index.js";

/** Where staged assets go, relative to the protected directory. */
export const STAGED_ASSETS_DIR = "assets";

/** Copy the named built assets into `protectedStaging/assets/<name>`; throws UnavailableError naming the build command if one is missing. */
export async function stageAssets(names: readonly string[], protectedStaging: string, home?: string): Promise<void> {
  const root = assetsHome(home);
  const missing = names.filter((name) => !existsSync(path.join(root, name, "asset.json")));
  if (missing.length > 0) {
    throw new UnavailableError(`asset(s) ${missing.join(", ")} not built in ${root}: run rebench assets build --only ${missing.join(",")}`, {
      hint: `build them first: rebench assets build --only ${missing.join(",")}`,
    });
  }
  for (const name of names) {
    await cp(path.join(root, name), path.join(protectedStaging, STAGED_ASSETS_DIR, name), { recursive: true, dereference: true });
  }
}
