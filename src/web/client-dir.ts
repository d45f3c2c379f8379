/**
 * @module
 * Where the built pages are: `npm run build` bundles src/web/client into dist/web (app.js, viewer.css,
 * index.html), found from this module both when it runs compiled (dist/src/web) and from source (src/web).
 */
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { UnavailableError } from "../core/index.js";

export function clientDir(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [path.resolve(here, "../../web"), path.resolve(here, "../../dist/web")];
  const found = candidates.find((dir) => existsSync(path.join(dir, "app.js")) && existsSync(path.join(dir, "index.html")));
  if (!found) {
    throw new UnavailableError(`the viewer's pages are not built (looked in ${candidates.join(" and ")})`, {
      hint: "run `npm run build` in the rebench checkout",
    });
  }
  return found;
}

/** The built files by name (`app.js`, `chunk-….js`, …), read into memory. */
export async function loadClient(): Promise<Map<string, Buffer>> {
  const dir = clientDir();
  const files = new Map<string, Buffer>();
  for (const name of await readdir(dir)) files.set(name, await readFile(path.join(dir, name)));
  if (!files.has("index.html") || !files.has("app.js"))
    throw new UnavailableError(`the viewer's pages in ${dir} are incomplete`, { hint: "run `npm run build` again" });
  return files;
}

/** index.html, told whether it talks to a server (`live`) or reads the files beside it (`static`). */
export function indexHtml(files: Map<string, Buffer>, mode: "live" | "static"): string {
  const text = files.get("index.html")!.toString("utf8");
  return text.replace('<meta name="rebench-mode" content="live">', `<meta name="rebench-mode" content="${mode}">`);
}
