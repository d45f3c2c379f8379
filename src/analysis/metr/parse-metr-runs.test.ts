import { describe, expect, test } from "vitest";
import { InvalidInputError } from "../../core/index.js";
import { MetrRunRecord } from "./metr-run-record.js";
import { parseMetrRuns, plainRecord } from "./parse-metr-runs.js";

const row = (fields: Record<string, unknown>) =>
  JSON.stringify({
    run_id: 1,
    task_id: "ai_rd_fix_embedding/main",
    task_family: "ai_rd_fix_embedding",
    alias: "Claude 3.5 Sonnet (New)",
    model: "claude-3-5-sonnet-20241022",
    score: 0.4,
    score_binarized: 0,
    time_limit: 7200,
    started_at: 1730000000000,
    completed_at: 1730007200000,
    fatal_error_from: null,
    human_minutes: 480,
    human_score: null,
    human_source: null,
    dollar_equivalent: 12.5,
    total_tokens: 1_500_000,
    equal_task_weight: 0.1,
    invsqrt_task_weight: 0.1,
    ...fields,
  });

describe("parseMetrRuns()", () => {
  test("maps every METR family to our environment name", async () => {
    const families = {
      ai_rd_optimize_llm_foundry: "optimize_llm_foundry",
      ai_rd_triton_cumsum: "optimize_kernel",
      ai_rd_fix_embedding: "fix_embedding",
      ai_rd_small_scaling_law: "scaling_law",
      ai_rd_restricted_mlm: "restricted_mlm",
      ai_rd_nanogpt_chat_rl: "finetune_gpt2_qa",
      ai_rd_rust_codecontests_inference: "rust_codecontests",
    };
    const text = Object.keys(families)
      .map((f, i) => row({ run_id: i, task_id: `${f}/main`, task_family: f }))
      .join("\n");
    expect((await parseMetrRuns(text)).runs.map((r) => r.environment)).toEqual(Object.values(families));
  });

  test("reads score, limit, usage and task; skips and counts other families", async () => {
    const text = [
      row({ run_id: "a1", task_id: "ai_rd_triton_cumsum/hidden_score", task_family: "ai_rd_triton_cumsum" }),
      row({ task_id: "crypto_puzzle/easy", task_family: "crypto_puzzle" }),
      row({ task_id: "crypto_puzzle/hard", task_family: "crypto_puzzle" }),
      "",
      row({ task_id: "swe_thing/1", task_family: null }),
    ].join("\n");
    const out = await parseMetrRuns(text);
    expect(out.lines).toBe(4);
    expect(out.skippedFamilies).toEqual({ crypto_puzzle: 2, swe_thing: 1 });
    expect(out.runs).toEqual([
      {
        id: "a1",
        participant: "Claude 3.5 Sonnet (New)",
        kind: "agent",
        environment: "optimize_kernel",
        variant: "paper",
        task: "hidden_score",
        timeLimitSeconds: 7200,
        score: 0.4,
        curve: undefined,
        usage: { tokens: 1_500_000, dollars: 12.5, workingSeconds: 7200, scoreCalls: null },
      },
    ]);
  });

  test("humans' rows (time_limit 0) are 8-hour attempts by one participant, human", async () => {
    const out = await parseMetrRuns([row({ alias: "human", time_limit: 0, total_tokens: null }), row({ alias: "human", time_limit: null })].join("\n"));
    expect(out.runs.map((r) => [r.participant, r.kind, r.timeLimitSeconds, r.usage.workingSeconds])).toEqual([
      ["human", "human", 28800, 28800],
      ["human", "human", 28800, 28800],
    ]);
  });

  test("a null score counts as 0 (no valid solution) and is counted; fatal errors are counted by kind", async () => {
    const out = await parseMetrRuns(
      [
        row({ score: null }),
        row({ fatal_error_from: "serverError", score: 0.1 }),
        row({ fatal_error_from: "agent" }),
        row({ fatal_error_from: "serverError" }),
      ].join("\n"),
    );
    expect(out.runs.map((r) => r.score)).toEqual([0, 0.1, 0.4, 0.4]);
    expect(out.nullScores).toBe(1);
    expect(out.fatalErrors).toEqual({ serverError: 2, agent: 1 });
  });

  test("runs that ended at their usage limits are counted apart, not as fatal errors", async () => {
    const out = await parseMetrRuns([row({ fatal_error_from: "usageLimits" }), row({ fatal_error_from: "usageLimits", score: 0.9 }), row({})].join("\n"));
    expect(out.runs.map((r) => r.score)).toEqual([0.4, 0.9, 0.4]);
    expect(out.usageLimitEndings).toBe(2);
    expect(out.fatalErrors).toEqual({});
  });

  test("agent rows without a time limit are skipped and counted", async () => {
    expect((await parseMetrRuns(row({ time_limit: null }))).skippedNoTimeLimit).toBe(1);
  });

  test("malformed lines stop the import, each named by its line number", async () => {
    const text = [row({}), "{not json", row({ score: "high" }), JSON.stringify({ run_id: 3 })].join("\n");
    let error: unknown;
    try {
      await parseMetrRuns(text, { source: "runs.jsonl" });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidInputError);
    const message = (error as Error).message;
    expect(message).toMatch(/^runs\.jsonl has 3 malformed line\(s\)/);
    expect(message).toMatch(/line 2: not JSON/);
    expect(message).toMatch(/line 3:\n\s+- score: /);
    expect(message).toMatch(/line 4:\n\s+- task_id: [^\n]*\n\s+- alias: /);
  });

  test("the zod-free fast path accepts only rows that MetrRunRecord accepts, and reads the same fields", () => {
    const base = JSON.parse(row({})) as Record<string, unknown>;
    const variants: unknown[] = [
      base,
      { ...base, run_id: "r-1" },
      { ...base, score: null, time_limit: 0, fatal_error_from: "usageLimits", rebench_variant: "mini", extra: { any: 1 } },
      { run_id: 2, task_id: "ai_rd_fix_embedding", alias: "a" },
      { ...base, rebench_usage_by_kind: null, rebench_provenance: null },
      { ...base, rebench_usage_by_kind: { input: 1, cacheRead: 0, cacheWrite: 0, output: 2, reasoning: 0, dollars: null, extra: 5 } },
      { ...base, rebench_provenance: {} },
      { ...base, score: "0.4" },
      { ...base, total_tokens: true },
      { ...base, model: 3 },
      { ...base, task_id: "" },
      { ...base, alias: "" },
      { ...base, alias: undefined },
      { ...base, run_id: null },
      { ...base, run_id: [1] },
      [base],
      null,
      "row",
    ];
    let fast = 0;
    for (const value of variants) {
      const plain = plainRecord(value);
      const parsed = MetrRunRecord.safeParse(value);
      if (plain === undefined) continue;
      fast += 1;
      expect(parsed.success, JSON.stringify(value)).toBe(true);
      for (const [key, v] of Object.entries(parsed.data!)) expect(plain[key as keyof MetrRunRecord], key).toEqual(v);
    }
    expect(fast).toBe(5);
    // Every field of the schema is checked: a value no field accepts sends the row to zod.
    for (const key of Object.keys(MetrRunRecord.shape)) expect(plainRecord({ ...base, [key]: true }), key).toBeUndefined();
  });
});
