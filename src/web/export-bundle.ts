/**
 * @module
 * `rebench serve --export DIR`: the viewer's pages as static files any web server can host, for publishing
 * transcripts. The same pages read files instead of the API (index.html says `static`): data/runs.json (every
 * run's row), and per run data/runs/ID/ with run.json, each event's kind (outline.json), the trajectory in
 * pages (items-K.json), the whole of each long item (item-SEQ.json) and the terminal recording;
 * data/compare.json is the comparison of all runs.
 * Written through ViewerApi with `publish`, so hidden-score values, graders' details and protected contents
 * are left out (src/web/publish.ts).
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { NotFoundError } from "../core/index.js";
import type { RunStore } from "../store/index.js";
import type { ViewerMeta } from "./api-types.js";
import { indexHtml, loadClient } from "./client-dir.js";
import { ITEMS_PAGE, ViewerApi } from "./viewer-api.js";

export interface ExportResult {
  runs: number;
  files: number;
  bytes: number;
}

export async function exportBundle(
  store: RunStore,
  dir: string,
  options: { now?: Date; onRun?: (done: number, total: number) => void } = {},
): Promise<ExportResult> {
  const api = new ViewerApi(store, { publish: true });
  const client = await loadClient();
  let files = 0;
  let bytes = 0;
  const write = async (relative: string, content: string | Buffer) => {
    const file = path.join(dir, relative);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, content);
    files += 1;
    bytes += typeof content === "string" ? Buffer.byteLength(content) : content.length;
  };
  const json = (relative: string, value: unknown) => write(relative, JSON.stringify(value));

  await mkdir(dir, { recursive: true });
  for (const [name, content] of client) if (name !== "index.html") await write(name, content);
  await write("index.html", indexHtml(client, "static"));
  const meta: ViewerMeta = {
    mode: "static",
    store: path.basename(store.location),
    exportedAt: (options.now ?? new Date()).toISOString(),
    notes: [
      "A published copy: graders' details, the score values of hidden-score runs and the protected reference solution's code are left out.",
      "Search in this copy looks through the previews of long outputs only.",
    ],
  };
  await json("data/meta.json", meta);
  const all = await api.runs(new URLSearchParams({ limit: "500" }));
  const rows = [...all.runs];
  for (let offset = rows.length; offset < all.total; offset = rows.length) {
    rows.push(...(await api.runs(new URLSearchParams({ limit: "500", offset: String(offset) }))).runs);
  }
  await json("data/runs.json", { total: rows.length, offset: 0, limit: rows.length, runs: rows, facets: all.facets });
  let done = 0;
  for (const row of rows) {
    const base = `data/runs/${row.runId}`;
    const detail = await api.run(row.runId);
    await json(`${base}/run.json`, detail);
    await json(`${base}/outline.json`, await api.outline(row.runId));
    for (let page = 0; page * ITEMS_PAGE < row.events; page++) {
      const items = await api.items(row.runId, page);
      await json(`${base}/items-${page}.json`, items);
      for (const item of items) if (!item.complete) await json(`${base}/item-${item.seq}.json`, await api.item(row.runId, item.seq));
    }
    if (detail.recording) {
      try {
        await json(`${base}/recording.json`, await api.recording(row.runId));
      } catch (error) {
        if (!(error instanceof NotFoundError)) throw error;
      }
    }
    options.onRun?.(++done, rows.length);
  }
  await json("data/compare.json", await api.compare(new URLSearchParams()));
  return { runs: rows.length, files, bytes };
}
