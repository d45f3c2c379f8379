/**
 * @module
 * An environment's folder from its family module's `import.meta.url`. Run from the sources (tsx), that is
 * the module's own folder; run from the compiled CLI (`node bin/rebench.js`), the module lies under
 * `dist/` where only JavaScript is, so the folder is the same path with `dist/` taken out: the grader,
 * workspace, calibration.json and exploits live there.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export function sourceDir(moduleUrl: string): string {
  const dir = path.dirname(fileURLToPath(moduleUrl));
  const parts = dir.split(path.sep);
  const dist = parts.lastIndexOf("dist");
  if (dist < 0) return dir;
  const source = [...parts.slice(0, dist), ...parts.slice(dist + 1)].join(path.sep);
  return existsSync(path.join(parts.slice(0, dist).join(path.sep), "package.json")) && existsSync(source) ? source : dir;
}
