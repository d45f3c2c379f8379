/**
 * @module
 * The host paths holding the raw texts rebench's corpus is built from (Debian's KJV, Jargon File, GCIDE,
 * Python documentation): every run's sandbox hides them (`SandboxSpec.hide`), so agent code cannot rebuild
 * a corpus, and with it hidden splits, from what it sees. The list is `python/rebench_env/assets/
 * hidden-sources.json`, which a Python test checks against the corpus readers.
 */
import { existsSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import path from "node:path";
import { repoRoot } from "./python.js";

/** The hidden paths present on this machine (a trailing-component glob such as `python3.*` expanded). */
export function corpusSourcePaths(): string[] {
  const file = path.join(repoRoot(), "python", "rebench_env", "assets", "hidden-sources.json");
  const patterns = (JSON.parse(readFileSync(file, "utf8")) as { paths: string[] }).paths;
  return [
    ...new Set(
      patterns
        .flatMap(expand)
        .filter((p) => existsSync(p))
        .map((p) => realpathSync(p)),
    ),
  ];
}

/** `/a/b*c/d` -> every existing `/a/<match>/d` (one `*` component at most, enough for the list). */
function expand(pattern: string): string[] {
  const parts = pattern.split("/");
  const star = parts.findIndex((part) => part.includes("*"));
  if (star < 0) return [pattern];
  const parent = parts.slice(0, star).join("/") || "/";
  const re = new RegExp(`^${parts[star]!.split("*").map(escapeRegExp).join(".*")}$`);
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return [];
  }
  return names.filter((name) => re.test(name)).map((name) => [parent, name, ...parts.slice(star + 1)].join("/").replace("//", "/"));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
