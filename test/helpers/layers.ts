/**
 * @module
 * The layer check: which folder of the repository a module belongs to, which layers it imports (relative
 * imports, static and dynamic), and which of those imports the table in docs/architecture.md forbids.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

/** `layer -> layers it may import`, from the "Layers" table of docs/architecture.md. */
export function readLayerTable(architectureMd: string): Map<string, Set<string>> {
  const text = readFileSync(architectureMd, "utf8");
  const section = text.slice(text.indexOf("## Layers"), text.indexOf("\n## ", text.indexOf("## Layers") + 1));
  const table = new Map<string, Set<string>>();
  for (const line of section.split("\n")) {
    const cells = line.split("|").map((c) => c.trim());
    const layer = /^`([a-z/]+)\/`$/.exec(cells[1] ?? "")?.[1];
    if (!layer || cells.length < 5) continue;
    // A bare name is a folder of src/ (`core`); one with a slash, a top-level folder (`environments/`).
    const allowed = cells[3]!
      .split(",")
      .map((c) => c.trim().replace(/`/g, ""))
      .filter((c) => c && c !== "nothing");
    table.set(layer, new Set(allowed.map((name) => (name.endsWith("/") ? name.slice(0, -1) : `src/${name}`))));
  }
  return table;
}

/** The layer of a repository-relative path: `src/<folder>`, or `environments`, or undefined outside both. */
export function layerOf(relative: string): string | undefined {
  const parts = relative.split(path.sep);
  if (parts[0] === "src" && parts.length > 2) return `src/${parts[1]}`;
  if (parts[0] === "environments") return "environments";
  return undefined;
}

/** Whether a file is test code (exempt from the table). */
function isTest(file: string): boolean {
  return /\.(test|case|contract)\.ts$/.test(file);
}

function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    if (entry === "node_modules" || entry.startsWith(".")) continue;
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) out.push(...tsFiles(full));
    else if (full.endsWith(".ts") && !full.endsWith(".d.ts")) out.push(full);
  }
  return out;
}

export interface LayerViolation {
  file: string;
  imports: string;
  from: string;
  to: string;
}

/** Every import under `root`'s src/ and environments/ that the table forbids. */
export function layerViolations(root: string, table: Map<string, Set<string>>): LayerViolation[] {
  const violations: LayerViolation[] = [];
  for (const top of ["src", "environments"]) {
    let files: string[];
    try {
      files = tsFiles(path.join(root, top));
    } catch {
      continue;
    }
    for (const file of files) {
      if (isTest(file)) continue;
      const from = layerOf(path.relative(root, file));
      if (!from) continue;
      const allowed = table.get(from) ?? new Set<string>();
      const source = readFileSync(file, "utf8");
      for (const match of source.matchAll(/(?:from\s+|import\s*\(\s*)["'](\.{1,2}\/[^"']+)["']/g)) {
        const target = path.relative(root, path.resolve(path.dirname(file), match[1]!));
        const to = layerOf(target) ?? target.split(path.sep)[0]!;
        const sameEnvironment = from === "environments" && to === "environments";
        if (to === from || sameEnvironment || allowed.has(to)) continue;
        violations.push({ file: path.relative(root, file), imports: match[1]!, from, to });
      }
    }
  }
  return violations;
}
