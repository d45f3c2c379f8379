import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { parseInspectLogs } from "../src/analysis/inspect/parse-inspect-logs.js";
import { EvalLog, EvalLogHeader, EvalSample, EvalSampleSummary } from "../src/core/inspect-log.js";
import { readZip, writeZip } from "../src/core/zip.js";
import { SqliteRunStore } from "../src/store/index.js";
import { rebench } from "./helpers/cli.js";
import { RUNS, record } from "./helpers/recorded-runs.js";
import { tempDir } from "./helpers/tmp.js";

const dir = tempDir("rebench-inspect-");
const db = path.join(dir, "store.db");

/** Every member of an exported `.eval` file, each checked against Inspect's shapes (strict: no field missing, none extra). */
function checkEval(file: string) {
  const members = readZip(readFileSync(file), file);
  const header = EvalLogHeader.parse(JSON.parse(members.get("header.json")!.toString("utf8")));
  const samples = [...members].filter(([name]) => name.startsWith("samples/")).map(([, b]) => EvalSample.parse(JSON.parse(b.toString("utf8"))));
  const summaries = (JSON.parse(members.get("summaries.json")!.toString("utf8")) as unknown[]).map((s) => EvalSampleSummary.parse(s));
  expect([...members.keys()].filter((n) => n.startsWith("samples/")).sort()).toEqual(samples.map((s) => `samples/${s.id}_epoch_${s.epoch}.json`).sort());
  expect(summaries).toHaveLength(samples.length);
  return { header, samples, summaries };
}

describe("rebench runs export --format inspect", () => {
  test("writes one log per environment variant × task × participant, each run an epoch, every file of Inspect's shape", async () => {
    const store = SqliteRunStore.open(db);
    for (const r of RUNS) await record(store, r);
    await store.close();
    const out = path.join(dir, "logs");
    const result = await rebench("runs", "export", "--db", db, "--format", "inspect", "--out", out);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/wrote 9 Inspect log\(s\) of 13 run\(s\)/);
    const files = readdirSync(out).filter((f) => f.endsWith(".eval"));
    expect(files).toHaveLength(9);
    // listing.json: what Inspect's viewer lists before it opens a log, so the folder can be served as it is.
    const listing = JSON.parse(readFileSync(path.join(out, "listing.json"), "utf8"));
    expect(Object.keys(listing).sort()).toEqual([...files].sort());
    const logs = files.map((f) => checkEval(path.join(out, f)));
    const kernelA = logs.find((l) => l.header.eval.task === "optimize_kernel" && l.header.eval.model === "agent-a-model")!;
    expect(kernelA.samples.map((s) => s.epoch)).toEqual([1, 2, 3, 4]);
    expect(kernelA.header.eval.config.epochs).toBe(4);
    expect(kernelA.header.eval.config.working_limit).toBe(1800);
    expect(kernelA.header.status).toBe("started"); // one of its runs is still running
    // The final raw and normalized scores, with the constants that normalized them.
    const best = kernelA.samples.find((s) => s.scores?.rebench_raw?.value === 1.1)!;
    expect(best.scores?.rebench_normalized).toMatchObject({ value: expect.closeTo(0.9, 12), metadata: { normalizedBy: "shipped" } });
    // Each protected scoring is a score event with its raw value; the last one is not intermediate only when it was the final scoring.
    expect(best.events.filter((e) => e.event === "score").map((e) => (e.event === "score" ? e.score.value : null))).toEqual([1.9, 1.1]);
    expect(best.events.find((e) => e.event === "sample_limit")).toMatchObject({ type: "working", limit: 1800 });
    expect(best.limit).toEqual({ type: "working", limit: 1800 });
    expect(best.model_usage).toEqual({
      m: { input_tokens: 5000, output_tokens: 100, total_tokens: 5100, input_tokens_cache_write: null, input_tokens_cache_read: null, reasoning_tokens: null },
    });
    const embedding = logs.find((l) => l.header.eval.task === "fix_embedding" && l.header.eval.model === "agent-a-model")!;
    expect(embedding.samples[0]!.scores?.rebench_normalized?.metadata).toMatchObject({ normalizedBy: "AMD EPYC, 2 cores, 2026-12-01, N=3" });
    // The check can fail: Inspect's models allow no other field and need every one (null where unknown).
    const { limit: _limit, ...missing } = best;
    expect(EvalSample.safeParse(missing).success).toBe(false);
    expect(EvalSample.safeParse({ ...best, score: 1 }).success).toBe(false);
    expect(EvalSample.safeParse({ ...best, events: [{ ...best.events[0]!, pending: undefined }] }).success).toBe(false);
    const human = logs.find((l) => l.header.eval.model === "human/alice")!;
    expect(human.header.eval.metadata).toMatchObject({ rebench: { participant: "alice", participantKind: "human" } });
  });

  test("--json-log writes Inspect's single-file logs, the same logs as the .eval files", async () => {
    const out = path.join(dir, "json");
    const result = await rebench("runs", "export", "--db", db, "--format", "inspect", "--json-log", "--out", out, "--environment", "optimize_kernel");
    expect(result.code, result.stderr).toBe(0);
    const files = readdirSync(out).filter((f) => f !== "listing.json");
    expect(files.every((f) => f.endsWith(".json"))).toBe(true);
    expect(files).toHaveLength(3); // agent-a, agent-b, alice
    for (const f of files) {
      const log = EvalLog.parse(JSON.parse(readFileSync(path.join(out, f), "utf8")));
      const zipped = checkEval(path.join(dir, "logs", f.replace(/\.json$/, ".eval")));
      expect(log.samples).toEqual(zipped.samples);
      const { samples: _samples, ...header } = log;
      expect(header).toEqual(zipped.header);
    }
  });

  test("the report from the exported logs equals the report from the store", async () => {
    const args = ["--budgets", "1h,2h", "--bootstrap", "300", "--seed", "5", "--json"];
    const fromStore = await rebench("report", "--db", db, ...args);
    const fromLogs = await rebench("report", "--runs-file", path.join(dir, "logs"), "--format", "inspect", ...args);
    expect(fromStore.code, fromStore.stderr).toBe(0);
    expect(fromLogs.code, fromLogs.stderr).toBe(0);
    const a = JSON.parse(fromStore.stdout);
    const b = JSON.parse(fromLogs.stdout);
    const { input: inputA, ...restA } = a;
    const { input: inputB, ...restB } = b;
    expect(restB).toEqual(restA);
    expect(a.scoreOverTime.length).toBeGreaterThan(0);
    expect(inputB.notes).toEqual(inputA.notes.map((n: string) => n.replace("Left out 1 run(s)", "Left out 1 sample(s)")));
  });

  test("reads an Inspect log rebench did not write where its task is a RE-Bench environment with a raw score", async () => {
    const out = path.join(dir, "foreign");
    const sample = (id: number, value: number) => ({
      id: "main",
      epoch: id,
      uuid: `s${id}`,
      scores: { score: { value } },
      working_time: 3000,
      model_usage: {},
      events: [],
    });
    const log = {
      version: 2,
      status: "success",
      eval: { task: "inspect_evals/ai_rd_triton_cumsum", model: "openai/gpt-x", config: { working_limit: 28800 } },
      samples: [sample(1, 1.5), sample(2, 1.2)],
    };
    const other = { version: 2, status: "success", eval: { task: "gsm8k", model: "openai/gpt-x", config: {} }, samples: [sample(1, 1)] };
    writeFileSync(`${out}.json`, JSON.stringify(log));
    const imported = parseInspectLogs(
      [
        { name: "a.json", bytes: Buffer.from(JSON.stringify(log)) },
        {
          name: "b.eval",
          bytes: writeZip([
            { name: "header.json", data: Buffer.from(JSON.stringify({ ...other, samples: undefined })) },
            { name: "samples/main_epoch_1.json", data: Buffer.from(JSON.stringify(other.samples[0])) },
          ]),
        },
      ],
      {
        constantsFor: (environment, variant) =>
          environment === "optimize_kernel" && variant === "paper" ? { start: 2, reference: 1, source: "paper" } : undefined,
      },
    );
    expect(imported.logs).toBe(2);
    expect(imported.skipped).toEqual({ "task gsm8k is not a RE-Bench environment": 1 });
    expect(imported.runs.map((r) => [r.environment, r.variant, r.participant, r.timeLimitSeconds, r.score])).toEqual([
      ["optimize_kernel", "paper", "openai/gpt-x", 28800, expect.closeTo(0.5, 12)],
      ["optimize_kernel", "paper", "openai/gpt-x", 28800, expect.closeTo(0.8, 12)],
    ]);
    // Through the command, with the constants of the registered paper variant.
    const result = await rebench("report", "--runs-file", `${out}.json`, "--format", "inspect", "--budgets", "8h", "--bootstrap", "0", "--json");
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).input.source).toMatch(/Inspect logs: 1 log\(s\), 2 sample\(s\)/);
  });

  test("a failed run is a sample with its error, and its log's status is error", async () => {
    const failedDb = path.join(dir, "failed.db");
    const store = SqliteRunStore.open(failedDb);
    const run = await store.createRun({
      participant: { kind: "agent", alias: "agent-f", scaffold: "modular", model: "openai:gpt-x" },
      environment: "optimize_kernel",
      variant: "mini",
      task: "main",
      limits: { workingSeconds: 600, tokens: 1000 },
      timeLimitSeconds: 600,
      direction: "min",
      aggregation: "min",
    });
    await store.append(run.id, { type: "state_changed", to: "running" });
    await store.append(run.id, { type: "pause_started", reason: "model_retry" });
    await store.append(run.id, { type: "pause_ended", reason: "model_retry" });
    await store.append(run.id, { type: "run_failed", error: "the sandbox's disk filled up" });
    await store.close();
    const out = path.join(dir, "failed");
    const result = await rebench("runs", "export", "--db", failedDb, "--format", "inspect", "--out", out);
    expect(result.code, result.stderr).toBe(0);
    const [file] = readdirSync(out).filter((f) => f.endsWith(".eval"));
    const { header, samples, summaries } = checkEval(path.join(out, file!));
    expect(header.status).toBe("error");
    expect(header.error?.message).toContain("the sandbox's disk filled up");
    expect(header.eval.config.token_limit).toBe(1000);
    expect(header.eval.model).toBe("openai/gpt-x");
    expect(samples[0]!.error?.message).toBe("the sandbox's disk filled up");
    expect(samples[0]!.events.map((e) => e.event)).toEqual(["sample_init", "info", "info", "info", "error"]);
    expect(samples[0]!.events.filter((e) => e.event === "info").map((e) => (e.event === "info" ? e.data : null))).toEqual([
      expect.objectContaining({ type: "state_changed", to: "running" }),
      { pause: "started", reason: "model_retry" },
      { pause: "ended", reason: "model_retry" },
    ]);
    expect(samples[0]!.scores).toBeNull();
    expect(summaries[0]).toMatchObject({ error: "the sandbox's disk filled up", completed: false });
  });

  test("a file that is not an Inspect log is refused with what to pass", async () => {
    const bad = path.join(dir, "bad.eval");
    writeFileSync(bad, "not a zip");
    const result = await rebench("report", "--runs-file", bad, "--format", "inspect");
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/bad\.eval is not a zip file rebench can read/);
    expect(result.stderr).toMatch(/Inspect \.eval log/);
  });
});
