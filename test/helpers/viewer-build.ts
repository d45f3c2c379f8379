/**
 * @module
 * The viewer's pages for tests: `npm run build` makes dist/web; a test run from a checkout whose pages are
 * missing or older than src/web/client builds them first (scripts/build-web.mjs, under a second).
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { REPO_ROOT } from "./cli.js";

export function ensureViewerBuilt(): void {
  const app = path.join(REPO_ROOT, "dist", "web", "app.js");
  const client = path.join(REPO_ROOT, "src", "web", "client");
  const sources = [...readdirSync(client).map((f) => path.join(client, f)), path.join(REPO_ROOT, "src", "web", "api-types.ts")];
  const built = existsSync(app) ? statSync(app).mtimeMs : 0;
  if (sources.every((f) => statSync(f).mtimeMs <= built)) return;
  execFileSync(process.execPath, [path.join(REPO_ROOT, "scripts", "build-web.mjs")], { stdio: "inherit" });
}
