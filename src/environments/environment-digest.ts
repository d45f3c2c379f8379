/**
 * @module
 * The digest of what an environment variant ships: sha256 over the path and content of every file of its
 * workspace folder, its protected folders (`grader`, `reference`, ... under the family's folder) and the
 * folder of its reference solution (the one holding `reference.actions`, and `reference.files` when it is a
 * folder: protected or not, a changed reference solution is another calibration) and the folders it names in
 * `digested` (a workspace overlay its `prepare` hands out), in path order. A run
 * records it (RunSpec.provenance), so a score can be traced to the grader and workspace that produced it;
 * two runs with the same digest ran the same environment files.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import type { VariantImplementation } from "./contract.js";

const DEFAULT_PROTECTED = ["grader", "reference"];
const cache = new Map<string, string>();

/** `sha256:<hex>` of the variant's shipped files (cached per process: the files do not change under a run). */
export function environmentDigest(
  familyDir: string,
  implementation: Pick<VariantImplementation, "workspace" | "protected"> & Partial<Pick<VariantImplementation, "reference" | "digested">>,
): string {
  const folders = [
    implementation.workspace,
    ...(implementation.protected ?? DEFAULT_PROTECTED),
    ...referenceFolders(implementation.reference),
    ...(implementation.digested ?? []),
  ];
  const key = `${familyDir}\0${folders.join("\0")}`;
  const known = cache.get(key);
  if (known) return known;
  const digest = createHash("sha256");
  for (const folder of [...new Set(folders)].sort()) {
    const root = path.join(familyDir, folder);
    if (!existsSync(root)) continue;
    for (const file of filesUnder(root)) {
      const relative = path.relative(familyDir, file).split(path.sep).join("/");
      digest.update(`${relative}\0${createHash("sha256").update(readFileSync(file)).digest("hex")}\n`);
    }
  }
  const value = `sha256:${digest.digest("hex")}`;
  cache.set(key, value);
  return value;
}

/** The top folders of the reference solution's files (`reference/mini.actions.jsonl` -> `reference`). */
function referenceFolders(reference: VariantImplementation["reference"] | undefined): string[] {
  if (!reference) return [];
  const paths = [reference.actions, ...(typeof reference.files === "string" ? [reference.files] : [])];
  return paths.map((p) => p.split(/[\\/]/)[0] ?? "").filter((top) => top !== "" && top !== "." && top !== "..");
}

/** Forget the cached digests (tests that change an environment's files within one process). */
export function forgetEnvironmentDigests(): void {
  cache.clear();
}

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    if (name === "__pycache__" || name === ".pytest_cache") continue;
    const full = path.join(dir, name);
    const stat = statSync(full);
    if (stat.isDirectory()) out.push(...filesUnder(full));
    else if (stat.isFile()) out.push(full);
  }
  return out;
}
