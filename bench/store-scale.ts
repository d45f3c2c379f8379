/**
 * @module
 * `npm run bench:store-scale`: how a store of many finished runs answers the questions people ask of it. It
 * generates N runs (default 100,000: a tenth queued, a tenth running, the rest finished with two score log
 * entries each; test/helpers/large-run.ts `generateManyRuns`, through the store's API) into SQLite and into a
 * throwaway PostgreSQL server, then times, each the median of 3: `rebench runs list` with filters and
 * `rebench report` (the built CLI as a user runs it, output to /dev/null), and the viewer's runs list and
 * comparison (its API, through `rebench serve`'s server). Prints a table.
 *
 *     npm run build && npm run bench:store-scale [-- --runs 100000 --stores sqlite,postgres]
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { formatTable } from "../src/cli/table.js";
import { openStore } from "../src/store/index.js";
import { startViewer } from "../src/web/viewer-server.js";
import { generateManyRuns } from "../test/helpers/large-run.js";

const { values } = parseArgs({
  options: { runs: { type: "string", default: "100000" }, stores: { type: "string", default: "sqlite,postgres" } },
});
const RUNS = Number(values.runs);
const repo = fileURLToPath(new URL("../", import.meta.url));
const cli = path.join(repo, "bin/rebench.js");
const work = mkdtempSync(path.join(os.tmpdir(), "rebench-bench-scale-"));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

interface Row {
  store: string;
  what: string;
  seconds: number;
}
const rows: Row[] = [];

async function timed(fn: () => Promise<unknown> | unknown, n = 3): Promise<number> {
  const xs: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    await fn();
    xs.push((performance.now() - start) / 1000);
  }
  return median(xs);
}

function rebench(args: string[]): void {
  const result = spawnSync(process.execPath, [cli, ...args], { stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
  if (result.status !== 0) throw new Error(`rebench ${args.join(" ")} exited ${result.status}: ${result.stderr}`);
}

async function fetchOk(url: string): Promise<unknown> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`);
  return response.json();
}

async function measure(name: string, db: string): Promise<void> {
  const store = await openStore(db);
  let start = performance.now();
  await generateManyRuns(store, RUNS, (done) => done % 10_000 === 0 && console.error(`${name}: ${done} runs`));
  rows.push({ store: name, what: `generate ${RUNS} runs`, seconds: (performance.now() - start) / 1000 });
  const list = ["runs", "list", "--db", db];
  rows.push({
    store: name,
    what: "runs list --environment scaling_law --state finished",
    seconds: await timed(() => rebench([...list, "--environment", "scaling_law", "--state", "finished"])),
  });
  rows.push({
    store: name,
    what: "runs list --participant model-3 --json",
    seconds: await timed(() => rebench([...list, "--participant", "model-3", "--json"])),
  });
  rows.push({ store: name, what: "report (every finished run)", seconds: await timed(() => rebench(["report", "--db", db]), 1) });
  const viewer = await startViewer({ store });
  try {
    start = performance.now();
    rows.push({ store: name, what: "viewer API: runs list, first page of 50", seconds: await timed(() => fetchOk(`${viewer.url}api/runs?limit=50`)) });
    rows.push({
      store: name,
      what: "viewer API: runs list filtered and sorted, last page",
      seconds: await timed(() => fetchOk(`${viewer.url}api/runs?environment=scaling_law&state=finished&sort=normalized&desc=1&offset=22450&limit=50`)),
    });
    rows.push({
      store: name,
      what: "viewer API: comparison of one environment",
      seconds: await timed(() => fetchOk(`${viewer.url}api/compare?environment=scaling_law`)),
    });
    rows.push({ store: name, what: "viewer API: comparison of every run", seconds: await timed(() => fetchOk(`${viewer.url}api/compare`), 1) });
  } finally {
    await viewer.close();
    await store.close();
  }
}

const stores = new Set(values.stores.split(","));
const loadBefore = os.loadavg()[0]!;
const pgDir = stores.has("postgres") ? mkdtempSync(path.join(os.tmpdir(), "rebench-bench-pg-")) : undefined;
try {
  if (stores.has("sqlite")) await measure("sqlite", path.join(work, "scale.db"));
  if (pgDir) {
    const url = execFileSync(path.join(repo, "scripts/throwaway-postgres"), ["start", pgDir], { encoding: "utf8" }).trim().split("\n").at(-1)!;
    await measure("postgres", url);
  }
} finally {
  if (pgDir) {
    execFileSync(path.join(repo, "scripts/throwaway-postgres"), ["stop", pgDir]);
    rmSync(pgDir, { recursive: true, force: true });
  }
  rmSync(work, { recursive: true, force: true });
}
console.log(
  `a store of ${RUNS} runs: ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? "?"}), load average ${loadBefore.toFixed(1)} before, ${os.loadavg()[0]!.toFixed(1)} at the end\n`,
);
console.log(
  formatTable(rows, [
    { header: "STORE", value: (r) => r.store },
    { header: "WHAT", value: (r) => r.what },
    { header: "SECONDS", value: (r) => r.seconds.toFixed(2), align: "right" },
  ]),
);
