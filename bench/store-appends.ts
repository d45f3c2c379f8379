/**
 * @module
 * Run-store appends: events per second and the p50/p99 latency of one append (one transaction: insert the
 * event, rewrite the run's summary), SQLite and PostgreSQL, with 1, 16 and 64 concurrent writers, each a
 * process of its own with its own connection (as orchestrators on several hosts are), each appending to its
 * own run; and the most writers on one shared run (the worst case: every append races the others for the run).
 * Prints a table. Run: `npm run bench:store [-- --appends 1000 --writers 1,16,64 --stores sqlite,postgres]`. PostgreSQL is a throwaway server that the
 * benchmark starts (scripts/throwaway-postgres; the postgresql package), with its default durability
 * (synchronous_commit on: every commit waits for its WAL flush); SQLite is one file in WAL mode with
 * synchronous=NORMAL (a commit does not wait for fsync), as rebench opens it.
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { formatTable } from "../src/cli/table.js";
import { openStore } from "../src/store/index.js";
import { sampleSpec } from "../src/store/store.contract.js";

const { values } = parseArgs({
  options: {
    appends: { type: "string", default: "1000" },
    writers: { type: "string", default: "1,16,64" },
    stores: { type: "string", default: "sqlite,postgres" },
  },
});
const stores = new Set(values.stores.split(","));
const perWriter = Number(values.appends);
const writerCounts = values.writers.split(",").map(Number);
const repo = fileURLToPath(new URL("../", import.meta.url));
const tsx = path.join(repo, "node_modules/tsx/dist/loader.mjs");
const work = mkdtempSync(path.join(os.tmpdir(), "rebench-bench-store-"));

interface Row {
  store: string;
  writers: number;
  runs: string;
  appends: number;
  perSecond: number;
  p50: number;
  p99: number;
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

async function measure(store: string, db: string, writers: number, sharedRun: boolean): Promise<Row> {
  const tag = `${store}-${writers}-${sharedRun ? "shared" : "own"}`;
  const go = path.join(work, `${tag}.go`);
  let shared: string | undefined;
  if (sharedRun) {
    const s = await openStore(db);
    shared = (await s.createRun(sampleSpec)).id;
    await s.close();
  }
  const children = Array.from({ length: writers }, (_, w) => {
    const args = [db, String(perWriter), path.join(work, `${tag}-${w}.json`), path.join(work, `${tag}-${w}.ready`), go, ...(shared ? [shared] : [])];
    const child = spawn(process.execPath, ["--import", tsx, path.join(repo, "bench/append-writer.ts"), ...args], { stdio: ["ignore", "inherit", "inherit"] });
    return new Promise<void>((resolve, reject) => child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`a writer exited ${code}`)))));
  });
  while (!Array.from({ length: writers }, (_, w) => existsSync(path.join(work, `${tag}-${w}.ready`))).every(Boolean)) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  writeFileSync(go, "");
  await Promise.all(children);
  const results = Array.from(
    { length: writers },
    (_, w) => JSON.parse(readFileSync(path.join(work, `${tag}-${w}.json`), "utf8")) as { startMs: number; endMs: number; latenciesMs: number[] },
  );
  const latencies = results.flatMap((r) => r.latenciesMs).sort((a, b) => a - b);
  const seconds = (Math.max(...results.map((r) => r.endMs)) - Math.min(...results.map((r) => r.startMs))) / 1000;
  return {
    store,
    writers,
    runs: sharedRun ? "one shared" : "one each",
    appends: latencies.length,
    perSecond: latencies.length / seconds,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
  };
}

const rows: Row[] = [];
const loadBefore = os.loadavg()[0]!;
// Its own folder, not under the 0700 one: the server runs as the postgres user.
const pgDir = mkdtempSync(path.join(os.tmpdir(), "rebench-bench-pg-"));
const pgUrl = execFileSync(path.join(repo, "scripts/throwaway-postgres"), ["start", pgDir], { encoding: "utf8" }).trim().split("\n").at(-1)!;
try {
  for (const writers of writerCounts) {
    if (stores.has("sqlite")) rows.push(await measure("sqlite", path.join(work, `bench-${writers}.db`), writers, false));
    if (stores.has("postgres")) rows.push(await measure("postgres", pgUrl, writers, false));
  }
  const most = Math.max(...writerCounts);
  if (most > 1) {
    if (stores.has("sqlite")) rows.push(await measure("sqlite", path.join(work, "bench-shared.db"), most, true));
    if (stores.has("postgres")) rows.push(await measure("postgres", pgUrl, most, true));
  }
} finally {
  execFileSync(path.join(repo, "scripts/throwaway-postgres"), ["stop", pgDir]);
  rmSync(work, { recursive: true, force: true });
  rmSync(pgDir, { recursive: true, force: true });
}

const cpu = os.cpus()[0]?.model ?? "?";
console.log(
  `run-store appends: ${perWriter} per writer, ${os.cpus().length} CPUs (${cpu}), load average ${loadBefore.toFixed(1)} before, ${os.loadavg()[0]!.toFixed(1)} at the end\n`,
);
console.log(
  formatTable(rows, [
    { header: "STORE", value: (r) => r.store },
    { header: "WRITERS", value: (r) => r.writers, align: "right" },
    { header: "RUNS", value: (r) => r.runs },
    { header: "APPENDS", value: (r) => r.appends, align: "right" },
    { header: "APPENDS/S", value: (r) => Math.round(r.perSecond), align: "right" },
    { header: "P50 MS", value: (r) => r.p50.toFixed(2), align: "right" },
    { header: "P99 MS", value: (r) => r.p99.toFixed(2), align: "right" },
  ]),
);
