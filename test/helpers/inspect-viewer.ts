/**
 * @module
 * Inspect's own log viewer for the browser tests of `rebench runs export --format inspect`: the embeddable
 * React build of `inspect view` that `@metrevals/inspect-log-viewer` publishes (a dev dependency), bundled
 * by esbuild into a page that reads a folder of logs over HTTP as `inspect view bundle`'s static site does
 * (its `listing.json`, then each `.eval` by byte ranges), and a small static server that answers ranges.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { build } from "esbuild";
import { REPO_ROOT } from "./cli.js";

export const INSPECT_VIEWER = "@metrevals/inspect-log-viewer";

/** The folders node_modules may be in: the repository's, then NODE_PATH's. */
function moduleDirs(): string[] {
  return [path.join(REPO_ROOT, "node_modules"), ...(process.env.NODE_PATH ?? "").split(path.delimiter).filter((d) => d !== "")];
}

/** The installed viewer package's folder; an error that says how to install it where it is missing. */
export function inspectViewerDir(): string {
  for (const dir of moduleDirs()) {
    const candidate = path.join(dir, INSPECT_VIEWER);
    if (existsSync(path.join(candidate, "package.json"))) return candidate;
  }
  throw new Error(`${INSPECT_VIEWER} is not installed (a dev dependency: run \`npm ci\`)`);
}

/** React as the viewer's own copy: the viewer and the page must share one (it may nest a newer one than the top level's). */
function reactOf(viewer: string, name: string): string {
  const nested = path.join(viewer, "node_modules", name);
  if (existsSync(nested)) return nested;
  for (const dir of moduleDirs()) if (existsSync(path.join(dir, name))) return path.join(dir, name);
  throw new Error(`${name} is missing (a dependency of ${INSPECT_VIEWER}: run \`npm ci\`)`);
}

const ENTRY = `
import { createElement } from "react";
import { createRoot } from "react-dom/client";
import { App, clientApi, initializeStore, simpleHttpApi } from "${INSPECT_VIEWER}";
import "${INSPECT_VIEWER}/styles/index.css";
const logDir = new URLSearchParams(window.location.search).get("log_dir") ?? "logs";
const api = clientApi(simpleHttpApi(logDir));
initializeStore(api, { downloadFiles: false, downloadLogs: false, webWorkers: false, streamSamples: false, streamSampleData: false, nativeFind: false }, undefined);
createRoot(document.getElementById("app")).render(createElement(App, { api }));
`;

/** Write the viewer's page into `dir` (index.html, entry.js, entry.css); its logs go in `dir/logs`. */
export async function buildInspectViewer(dir: string): Promise<void> {
  const viewer = inspectViewerDir();
  await mkdir(dir, { recursive: true });
  await build({
    stdin: { contents: ENTRY, resolveDir: dir, sourcefile: "inspect-viewer-entry.js", loader: "js" },
    bundle: true,
    outdir: dir,
    entryNames: "entry",
    format: "esm",
    platform: "browser",
    minify: true,
    nodePaths: moduleDirs(),
    alias: { react: reactOf(viewer, "react"), "react-dom": reactOf(viewer, "react-dom") },
    loader: { ".woff": "file", ".woff2": "file", ".ttf": "file", ".eot": "file", ".svg": "file", ".png": "file" },
    define: { "process.env.NODE_ENV": '"production"' },
    logLevel: "error",
  });
  await writeFile(
    path.join(dir, "index.html"),
    '<!doctype html><html><head><meta charset="utf-8"><link rel="stylesheet" href="entry.css"></head><body><div id="app"></div><script type="module" src="entry.js"></script></body></html>\n',
  );
}

const TYPES: Record<string, string> = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".json": "application/json" };

/** Serve `dir` on 127.0.0.1, with byte ranges (the viewer reads a `.eval` zip's directory, then its members). */
export async function serveFolder(dir: string): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    const pathname = decodeURIComponent(new URL(req.url ?? "/", "http://localhost").pathname);
    const file = path.join(dir, pathname === "/" ? "index.html" : pathname);
    if (!file.startsWith(dir) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end("not found");
      return;
    }
    const data = readFileSync(file);
    const type = TYPES[path.extname(file)] ?? "application/octet-stream";
    const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? "");
    if (range) {
      const start = Number(range[1]);
      const end = range[2] ? Math.min(Number(range[2]), data.length - 1) : data.length - 1;
      res.writeHead(206, {
        "content-type": type,
        "content-range": `bytes ${start}-${end}/${data.length}`,
        "content-length": end - start + 1,
        "accept-ranges": "bytes",
      });
      res.end(data.subarray(start, end + 1));
      return;
    }
    res.writeHead(200, { "content-type": type, "content-length": data.length, "accept-ranges": "bytes" });
    res.end(req.method === "HEAD" ? undefined : data);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
