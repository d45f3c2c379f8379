#!/usr/bin/env node
// The viewer's pages (npm run build): bundle src/web/client with esbuild into dist/web (app.js and its
// chunks, as ES modules), and copy index.html, viewer.css and xterm.js's stylesheet beside them. Nothing is
// fetched at run time: every file the pages load is in dist/web.
import { copyFileSync, mkdirSync, renameSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const target = path.join(root, "dist", "web");
const client = path.join(root, "src", "web", "client");
// Built beside the target and moved into place, so a server (or a test) never sees half a build.
const out = `${target}.${process.pid}.tmp`;
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
await build({
  entryPoints: { app: path.join(client, "main.ts") },
  outdir: out,
  bundle: true,
  splitting: true,
  format: "esm",
  target: "es2022",
  minify: true,
  sourcemap: true,
  chunkNames: "chunk-[hash]",
  legalComments: "linked",
  logLevel: "warning",
});
copyFileSync(path.join(client, "index.html"), path.join(out, "index.html"));
copyFileSync(path.join(client, "viewer.css"), path.join(out, "viewer.css"));
copyFileSync(path.join(root, "node_modules", "@xterm", "xterm", "css", "xterm.css"), path.join(out, "xterm.css"));
const old = `${target}.${process.pid}.old`;
try {
  renameSync(target, old);
} catch {
  // no earlier build
}
renameSync(out, target);
rmSync(old, { recursive: true, force: true });
