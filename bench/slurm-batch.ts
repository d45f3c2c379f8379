/**
 * @module
 * A batch of short runs through Slurm, submitted to finished: `rebench run test_echo --variant mini --agent
 * replay --actions start --runs N --executor slurm` on a one-node cluster that the benchmark starts
 * (scripts/slurm-one-node, as root; its node declares `--cpus` CPUs, so cpus/2 of the variant's 2-CPU jobs
 * run at once) into a throwaway PostgreSQL server; with `--local`, the same batch through the local executor
 * at the same concurrency, for comparison. From the store: per run, the wait from its job's submission to
 * its start on the node, the run from the job's start to the run's end, and submission to end; and how long
 * submitting the batch took (the first run's creation to the last run's job recorded). Prints a
 * table. Run (as root): `npm run bench:slurm [-- --runs 100 --cpus 8 --local]`.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import pg from "pg";
import { formatTable } from "../src/cli/table.js";
import type { RunSummary, StoredEvent } from "../src/core/index.js";
import { openStore } from "../src/store/index.js";

const { values } = parseArgs({
  options: { runs: { type: "string", default: "100" }, cpus: { type: "string", default: "8" }, local: { type: "boolean", default: false } },
});
const runs = Number(values.runs);
const cpus = Number(values.cpus);
const concurrent = Math.floor(cpus / 2);
const repo = fileURLToPath(new URL("../", import.meta.url));
const tsx = path.join(repo, "node_modules/tsx/dist/loader.mjs");
const home = mkdtempSync(path.join(os.tmpdir(), "rebench-bench-slurm-"));
const clusterDir = mkdtempSync(path.join(os.tmpdir(), "rebench-bench-cluster-"));
const pgDir = mkdtempSync(path.join(os.tmpdir(), "rebench-bench-pg-"));
rmSync(clusterDir, { recursive: true });

interface Row {
  executor: string;
  runs: number;
  finished: number;
  wallSeconds: number;
  /** From the first run's creation to the last run's job recorded (slurm): how long submitting the batch took. */
  submitSeconds: number | null;
  waitP50: number | null;
  waitP99: number | null;
  runP50: number;
  runP99: number;
  totalP50: number;
  totalP99: number;
}

const seconds = (a: string, b: string) => (Date.parse(b) - Date.parse(a)) / 1000;
const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
};

function batch(executor: "slurm" | "local", db: string): number {
  const args = ["run", "test_echo", "--variant", "mini", "--agent", "replay", "--actions", "start", "--runs", String(runs), "--db", db, "--progress", "60"];
  args.push(...(executor === "slurm" ? ["--executor", "slurm"] : ["--concurrency", String(concurrent)]));
  const started = performance.now();
  const result = spawnSync(process.execPath, ["--import", tsx, path.join(repo, "test/fixtures/rebench-cli.ts"), ...args], {
    cwd: repo,
    env: { ...process.env, REBENCH_HOME: home, REBENCH_TEST_SANDBOX_ROOT: path.join(home, "sandboxes") },
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0) console.error(result.stdout.slice(-2000), result.stderr.slice(-2000));
  return (performance.now() - started) / 1000;
}

async function row(executor: "slurm" | "local", db: string, wallSeconds: number): Promise<Row> {
  const store = await openStore(db);
  try {
    const list: RunSummary[] = await store.listRuns();
    const timings = await Promise.all(
      list.map(async (run) => {
        const events: StoredEvent[] = await store.events(run.id);
        const at = (type: string) => events.find((e) => e.event.type === type)?.event.ts;
        const end = run.finishedAt ?? run.updatedAt;
        const submitted = at("job_submitted") ?? run.createdAt;
        const started = at("job_started") ?? at("driver_attached") ?? submitted;
        return {
          created: run.createdAt,
          submitted: at("job_submitted") ?? null,
          wait: executor === "slurm" ? seconds(submitted, started) : null,
          run: seconds(started, end),
          total: seconds(submitted, end),
        };
      }),
    );
    const waits = timings.flatMap((t) => (t.wait === null ? [] : [t.wait]));
    const firstCreated = timings.map((t) => t.created).sort()[0];
    const lastSubmitted = timings
      .flatMap((t) => (t.submitted === null ? [] : [t.submitted]))
      .sort()
      .at(-1);
    return {
      executor,
      runs: list.length,
      finished: list.filter((r) => r.state === "finished").length,
      wallSeconds,
      submitSeconds: firstCreated && lastSubmitted ? seconds(firstCreated, lastSubmitted) : null,
      waitP50: waits.length ? quantile(waits, 0.5) : null,
      waitP99: waits.length ? quantile(waits, 0.99) : null,
      runP50: quantile(
        timings.map((t) => t.run),
        0.5,
      ),
      runP99: quantile(
        timings.map((t) => t.run),
        0.99,
      ),
      totalP50: quantile(
        timings.map((t) => t.total),
        0.5,
      ),
      totalP99: quantile(
        timings.map((t) => t.total),
        0.99,
      ),
    };
  } finally {
    await store.close();
  }
}

const rows: Row[] = [];
const loadBefore = os.loadavg()[0]!;
const started = execFileSync(
  path.join(repo, "scripts/slurm-one-node"),
  ["start", clusterDir, "--cpus", String(cpus), "--memory-mb", String(concurrent * 8192 + 1024)],
  { encoding: "utf8" },
);
process.env.SLURM_CONF = /export SLURM_CONF=(\S+)/.exec(started)![1]!;
const pgUrl = execFileSync(path.join(repo, "scripts/throwaway-postgres"), ["start", pgDir], { encoding: "utf8" }).trim().split("\n").at(-1)!;
try {
  const slurmDb = pgUrl;
  rows.push(await row("slurm", slurmDb, batch("slurm", slurmDb)));
  if (values.local) {
    const client = new pg.Client({ connectionString: pgUrl });
    await client.connect();
    await client.query("CREATE DATABASE rebench_local");
    await client.end();
    const localDb = pgUrl.replace(/\/rebench$/, "/rebench_local");
    rows.push(await row("local", localDb, batch("local", localDb)));
  }
} finally {
  execFileSync(path.join(repo, "scripts/slurm-one-node"), ["stop", clusterDir]);
  execFileSync(path.join(repo, "scripts/throwaway-postgres"), ["stop", pgDir]);
  for (const dir of [home, clusterDir, pgDir]) rmSync(dir, { recursive: true, force: true });
}

const s = (v: number | null) => (v === null ? "-" : v.toFixed(1));
console.log(
  `a batch of ${runs} short runs (test_echo/mini, replay --actions start) into PostgreSQL, ${concurrent} at a time; ` +
    `${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? "?"}), load ${loadBefore.toFixed(1)} before, ${os.loadavg()[0]!.toFixed(1)} after\n`,
);
console.log(
  formatTable(rows, [
    { header: "EXECUTOR", value: (r) => r.executor },
    { header: "RUNS", value: (r) => `${r.finished}/${r.runs}`, align: "right" },
    { header: "SUBMITTED→FINISHED S", value: (r) => s(r.wallSeconds), align: "right" },
    { header: "RUNS/MIN", value: (r) => s((r.runs / r.wallSeconds) * 60), align: "right" },
    { header: "ALL SUBMITTED S", value: (r) => s(r.submitSeconds), align: "right" },
    { header: "QUEUE WAIT P50/P99 S", value: (r) => `${s(r.waitP50)} / ${s(r.waitP99)}`, align: "right" },
    { header: "RUN P50/P99 S", value: (r) => `${s(r.runP50)} / ${s(r.runP99)}`, align: "right" },
    { header: "SUBMIT→END P50/P99 S", value: (r) => `${s(r.totalP50)} / ${s(r.totalP99)}`, align: "right" },
  ]),
);
