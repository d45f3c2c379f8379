/**
 * @module
 * `npm run bench:viewer`: how fast the run viewer answers on large stores. It generates a run of 10,000
 * events with 100 MB of observations and a store of 10,000 runs (test/helpers/large-run.ts, through the
 * store's API), serves each with `rebench serve`'s server, and times the API (median of 5) and the pages in
 * Debian's chromium (median of 3): opening the large run until its first events are drawn, jumping through
 * its trajectory, and opening the runs list. Prints a Markdown table.
 *
 *     npm run bench:viewer [-- --events 10000 --bytes 100e6 --runs 10000]
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { SqliteRunStore } from "../src/store/index.js";
import { startViewer } from "../src/web/viewer-server.js";
import { launchChromium } from "../test/helpers/browser.js";
import { generateLargeRun, generateManyRuns } from "../test/helpers/large-run.js";
import { ensureViewerBuilt } from "../test/helpers/viewer-build.js";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const EVENTS = arg("events", 10_000);
const BYTES = arg("bytes", 100e6);
const RUNS = arg("runs", 10_000);

const rows: [string, string][] = [];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ms = (x: number) => `${x.toFixed(x < 10 ? 1 : 0)} ms`;

async function time(fn: () => Promise<unknown>, n: number): Promise<number> {
  const xs: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    await fn();
    xs.push(performance.now() - start);
  }
  return median(xs);
}

async function fetchOk(url: string): Promise<unknown> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`);
  return response.json();
}

ensureViewerBuilt();
const dir = mkdtempSync(path.join(os.tmpdir(), "rebench-bench-viewer-"));
try {
  console.error(
    `load before: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")} (1, 5, 15 min) on ${os.cpus().length} cores`,
  );
  let start = performance.now();
  const large = SqliteRunStore.open(path.join(dir, "large.db"));
  const id = await generateLargeRun(large, { events: EVENTS, observationBytes: BYTES, needle: "needle-in-the-haystack" });
  const events = (await large.getRun(id)).lastSeq;
  rows.push([
    `generate the large run (${events} events, ${(BYTES / 1e6).toFixed(0)} MB of observations)`,
    `${((performance.now() - start) / 1000).toFixed(1)} s`,
  ]);
  start = performance.now();
  const many = SqliteRunStore.open(path.join(dir, "many.db"));
  await generateManyRuns(many, RUNS);
  rows.push([`generate the store of ${RUNS} runs`, `${((performance.now() - start) / 1000).toFixed(1)} s`]);

  const a = await startViewer({ store: large });
  const b = await startViewer({ store: many });
  const api = `${a.url}api/runs/${id}`;
  rows.push(["API: the large run's page (summary, score log, pauses, notes)", ms(await time(() => fetchOk(api), 5))]);
  rows.push(["API: its outline (each event's kind, for the turns and folds)", ms(await time(() => fetchOk(`${api}/outline`), 5))]);
  rows.push(["API: its first page of 200 events", ms(await time(() => fetchOk(`${api}/items?page=0`), 5))]);
  rows.push(["API: a page of 200 events in the middle", ms(await time(() => fetchOk(`${api}/items?page=${Math.floor(events / 400)}`), 5))]);
  const middle = (await fetchOk(`${api}/items?page=${Math.floor(events / 400)}`)) as { seq: number; type: string; parts: { bytes: number }[] }[];
  const observation = middle.find((item) => item.type === "observation")!;
  rows.push([
    `API: one whole observation (${(observation.parts[0]!.bytes / 1e3).toFixed(0)} kB)`,
    ms(await time(() => fetchOk(`${api}/items/${observation.seq}`), 5)),
  ]);
  rows.push(["API: search the whole run (one match)", ms(await time(() => fetchOk(`${api}/search?q=needle-in-the-haystack`), 5))]);
  rows.push([`API: runs list, first page of 50 of ${RUNS}`, ms(await time(() => fetchOk(`${b.url}api/runs?limit=50`), 5))]);
  rows.push(["API: runs list sorted by normalized score, descending", ms(await time(() => fetchOk(`${b.url}api/runs?limit=50&sort=normalized&desc=1`), 5))]);
  rows.push([
    "API: runs list filtered (environment, state, score range) and sorted by working time",
    ms(await time(() => fetchOk(`${b.url}api/runs?environment=scaling_law&state=finished&min=0.3&max=0.9&sort=working`), 5)),
  ]);
  rows.push([
    "API: runs list, last page sorted by participant",
    ms(await time(() => fetchOk(`${b.url}api/runs?limit=50&offset=${RUNS - 50}&sort=participant`), 5)),
  ]);

  const browser = await launchChromium();
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const opens: number[] = [];
  for (let i = 0; i < 3; i++) {
    await page.goto("about:blank");
    const t = performance.now();
    await page.goto(`${a.url}#/run/${id}`);
    await page.locator(".item[data-seq='1'] .title").waitFor();
    await page.locator("svg.score-chart").waitFor();
    opens.push(performance.now() - t);
  }
  rows.push(["browser: open the large run until its header, chart and first events are drawn", ms(median(opens))]);
  const jumps: number[] = [];
  let drawn = 0;
  for (let i = 1; i <= 20; i++) {
    const t = performance.now();
    await page.locator("#trajectory").evaluate((v, f) => (v.scrollTop = v.scrollHeight * f), i / 21);
    await page.waitForFunction(() => {
      const rows = [...document.querySelectorAll("#trajectory .vlist-row")];
      return rows.length > 0 && rows.every((r) => !r.classList.contains("loading"));
    });
    jumps.push(performance.now() - t);
    drawn = Math.max(drawn, await page.locator("#trajectory .item").count());
  }
  rows.push(["browser: jump to another part of the trajectory until its events are drawn (20 jumps)", ms(median(jumps))]);
  rows.push(["browser: most events (items) in the DOM at once while jumping", String(drawn)]);
  const frames = await page.locator("#trajectory").evaluate(async (v) => {
    const times: number[] = [];
    let last = performance.now();
    for (let i = 0; i < 120; i++) {
      v.scrollTop += 120;
      await new Promise((r) => requestAnimationFrame(r));
      const now = performance.now();
      times.push(now - last);
      last = now;
    }
    times.sort((x, y) => x - y);
    return { median: times[60]!, p95: times[114]! };
  });
  rows.push(["browser: frame time while scrolling 120 px a frame (median / 95th percentile)", `${ms(frames.median)} / ${ms(frames.p95)}`]);
  const lists: number[] = [];
  for (let i = 0; i < 3; i++) {
    await page.goto("about:blank");
    const t = performance.now();
    await page.goto(`${b.url}#/runs?sort=normalized&desc=1`);
    await page.locator("#runs-table tbody tr").nth(49).waitFor();
    lists.push(performance.now() - t);
  }
  rows.push([`browser: open the runs list of ${RUNS} runs (sorted by score) until its 50 rows are drawn`, ms(median(lists))]);
  await browser.close();
  await a.close();
  await b.close();
  await large.close();
  await many.close();
  console.error(
    `load after: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
  console.log("| measurement | median |\n|---|---|");
  for (const [what, value] of rows) console.log(`| ${what} | ${value} |`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
