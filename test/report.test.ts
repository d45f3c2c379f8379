import { spawn } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { generateMetrRuns } from "../bench/generate-metr-runs.js";
import { analysisRunFromStore } from "../src/analysis/analysis-run-from-store.js";
import { METR_FAMILIES } from "../src/analysis/metr/metr-families.js";
import { parseMetrRuns } from "../src/analysis/metr/parse-metr-runs.js";
import { SqliteRunStore } from "../src/store/index.js";
import { REPO_ROOT, rebench, rebenchProcess } from "./helpers/cli.js";
import { constantsOf, FIX_EMBEDDING_ENTRY, RUNS, record } from "./helpers/recorded-runs.js";
import { TEST_BACKEND } from "./helpers/test-backend.js";
import { tempDir } from "./helpers/tmp.js";

const dir = tempDir();

async function makeStore(file: string): Promise<void> {
  const store = SqliteRunStore.open(file);
  for (const r of RUNS) await record(store, r);
  await store.close();
}

describe("rebench report and runs export over the run store", () => {
  const db = path.join(dir, "store.db");
  const exported = path.join(dir, "export.jsonl");

  test("runs export --format metr writes what the importer reads back as the same runs", async () => {
    await makeStore(db);
    const result = await rebench("runs", "export", "--db", db, "--format", "metr", "--out", exported);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/left out 1 run\(s\): not finished \(running\)/);
    expect(result.stderr).toMatch(/left out 1 run\(s\): no normalized score: scaling_law\/mini had no normalization constants when the run was created/);
    expect(result.stderr).toMatch(/wrote 11 run\(s\)/);

    const store = SqliteRunStore.open(db);
    const expected = [];
    for (const summary of await store.listRuns()) {
      const converted = analysisRunFromStore(summary, await store.scoreLog(summary.id));
      if (converted.kind === "run") expected.push({ ...converted.run, curve: undefined });
    }
    await store.close();
    const imported = await parseMetrRuns(readFileSync(exported, "utf8"));
    expect(imported.runs).toEqual(expected);
    expect(imported.runs.filter((r) => r.participant === "human")).toHaveLength(3);
    // Spot-check the normalization: kernel best 1.1 of start 2 → reference 1 is 0.9; the all-invalid run is 0.
    const kernel = imported.runs.filter((r) => r.participant === "agent-a" && r.environment === "optimize_kernel").map((r) => r.score);
    expect(kernel.sort((a, b) => a - b)).toEqual([0, expect.closeTo(0.6, 12), expect.closeTo(0.9, 12)]);
    const lines = readFileSync(exported, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines).toContainEqual(
      expect.objectContaining({ task_id: "ai_rd_triton_cumsum/main", task_family: "ai_rd_triton_cumsum", alias: "agent-a", time_limit: 1800 }),
    );
    // Each row says which constants made its score: the calibration entry (machine class, date, N), or shipped ones.
    const embedding = lines.filter((l) => l.task_family === "ai_rd_fix_embedding");
    expect(embedding.length).toBeGreaterThan(0);
    for (const line of embedding) {
      expect(line.rebench_normalization).toEqual(constantsOf("fix_embedding"));
      expect(line.rebench_normalization.entry).toEqual(FIX_EMBEDDING_ENTRY);
      expect(line.rebench_machine_class).toBe("AMD EPYC, 2 cores");
    }
    const kernelLine = lines.find((l) => l.task_family === "ai_rd_triton_cumsum");
    expect(kernelLine).toMatchObject({ rebench_normalization: { start: 2, reference: 1, source: "shipped" }, rebench_machine_class: null });
    expect(imported.runs.filter((r) => r.environment === "fix_embedding").map((r) => r.normalizedBy)).toEqual(
      embedding.map(() => "AMD EPYC, 2 cores, 2026-12-01, N=3"),
    );
  });

  test("the report from the store equals the report from its export, intervals included", async () => {
    const args = ["--budgets", "1h,2h", "--bootstrap", "300", "--seed", "5", "--json"];
    const fromStore = await rebench("report", "--db", db, ...args);
    const fromFile = await rebench("report", "--runs-file", exported, "--format", "metr", ...args);
    expect(fromStore.code).toBe(0);
    expect(fromFile.code).toBe(0);
    const a = JSON.parse(fromStore.stdout);
    const b = JSON.parse(fromFile.stdout);
    expect(b.rows).toEqual(a.rows);
    expect(b.allocations).toEqual(a.allocations);
    expect(b.usage).toEqual(a.usage);
    expect(b.humanPercentiles).toEqual(a.humanPercentiles);
    expect(a.scoreOverTime.length).toBeGreaterThan(0);
    expect(b.scoreOverTime).toEqual([]);
    const agentA = a.rows.find((r: { participant: string; budget: string }) => r.participant === "agent-a" && r.budget === "1h");
    expect(agentA).toMatchObject({ allocation: { runTimeLimitSeconds: 1800, k: 2 }, coverage: 2 });
    // kernel scores 0, 0.6, 0.9: best of 2 = (0.6·1 + 0.9·2)/3 = 0.8; Scaling Law mean of (0.4−0.2)/0.6 and (0.62−0.2)/0.6 = 0.5167
    expect(agentA.environments.optimize_kernel.score).toBeCloseTo(0.8, 12);
    expect(agentA.environments.scaling_law.score).toBeCloseTo((0.2 / 0.6 + 0.42 / 0.6) / 2, 12);
    expect(agentA.environments.fix_embedding).toEqual({ score: null, n: 0 });
    const usage = a.usage.find((u: { participant: string; budget: string }) => u.participant === "agent-a" && u.budget === "1h");
    expect(usage.scoreCallsPerHour).toBeGreaterThan(0);
    expect(a.input.notes).toEqual([
      "Left out 1 run(s): no normalized score: scaling_law/mini had no normalization constants when the run was created: run `rebench calibrate scaling_law --variant mini --write`.",
      "Left out 1 run(s): not finished (running).",
      expect.stringMatching(/^fix_embedding\/mini normalized by AMD EPYC, 2 cores, 2026-12-01, N=3 \(\d+ runs?\)\.$/),
      expect.stringMatching(/^optimize_kernel\/mini normalized by shipped \(\d+ runs?\)\.$/),
      expect.stringMatching(/^scaling_law\/mini normalized by shipped \(\d+ runs?\)\.$/),
    ]);
  });

  test("--out writes a self-contained HTML page, markdown, and every figure as SVG, PNG and JSON", async () => {
    const out = path.join(dir, "report");
    const result = await rebenchProcess(["report", "--db", db, "--budgets", "1h,2h,4h", "--bootstrap", "100", "--out", out]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/wrote \d+ files to/);
    expect(result.stdout).toMatch(/Score by total time budget/);
    const figures = readdirSync(path.join(out, "figures")).sort();
    const names = [
      "environment-scores-1h",
      "environment-scores-2h",
      "environment-scores-4h",
      "score-over-time-optimize_kernel",
      "score-over-time-fix_embedding",
      "score-over-time-scaling_law",
      "suite-score-vs-budget",
    ];
    expect(figures).toEqual(names.flatMap((n) => [`${n}.json`, `${n}.png`, `${n}.svg`]).sort());
    for (const name of names) {
      const png = readFileSync(path.join(out, "figures", `${name}.png`));
      expect(png.subarray(1, 4).toString()).toBe("PNG");
      expect(png.readUInt32BE(16)).toBe(1800); // width from the IHDR chunk
    }
    const html = readFileSync(path.join(out, "report.html"), "utf8");
    expect(html.match(/<svg /g)).toHaveLength(names.length);
    expect(html).not.toMatch(/<script|<link|src="http|href="http/);
    const md = readFileSync(path.join(out, "report.md"), "utf8");
    expect(md).toMatch(/!\[[^\]]+\]\(figures\/suite-score-vs-budget\.png\)/);
    // The figure's numbers are the report's numbers.
    const report = JSON.parse(readFileSync(path.join(out, "report.json"), "utf8"));
    const suite = JSON.parse(readFileSync(path.join(out, "figures", "suite-score-vs-budget.json"), "utf8"));
    const human = suite.series.find((s: { name: string }) => s.name === "human");
    const humanRows = report.rows.filter((r: { participant: string; score: number | null }) => r.participant === "human" && r.score !== null);
    expect(human.points.map((p: { y: number }) => p.y)).toEqual(humanRows.map((r: { score: number }) => r.score));
    const overTime = JSON.parse(readFileSync(path.join(out, "figures", "score-over-time-optimize_kernel.json"), "utf8"));
    const agentCurve = overTime.series.find((s: { name: string }) => s.name.startsWith("agent-a, 30m runs (n=3)"));
    // At 0.5 h: run 1's best is 1.4 (0.6), run 2's 1.1 (0.9), run 3 has no valid score (0).
    const at = (hours: number) => agentCurve.points.filter((p: { x: number }) => p.x <= hours).at(-1).y;
    expect(at(0.5)).toBeCloseTo((0.6 + 0.9 + 0) / 3, 12);
    // At 450 s: run 1 has logged 1.8 (0.2), run 2 1.9 (0.1), run 3 nothing valid (0).
    expect(at(0.125)).toBeCloseTo((0.2 + 0.1 + 0) / 3, 12);
    expect(at(0)).toBe(0);
    expect(agentCurve.points.map((p: { x: number }) => p.x * 3600)).toEqual([0, 60, 120, 600, 1500, 1800].map((t) => expect.closeTo(t, 9)));
  });
});

/** C(n, k) exactly. */
function binomial(n: number, k: number): bigint {
  let c = 1n;
  for (let i = 1; i <= k; i++) c = (c * BigInt(n - k + i)) / BigInt(i);
  return c;
}

/** ANALYSIS.md's formula with exact integer binomials (independent of the recurrence the code uses). */
function expectedMax(scores: readonly number[], k: number): number {
  const xs = [...scores].sort((a, b) => a - b);
  const scale = 10n ** 30n;
  const total = binomial(xs.length, k);
  return xs.reduce((sum, x, i) => sum + x * (Number((binomial(i, k - 1) * scale) / total) / 1e30), 0);
}

describe("rebench report over a METR-format file of about 2,000 runs", () => {
  const file = path.join(dir, "metr.jsonl");
  writeFileSync(file, generateMetrRuns({ rows: 2000, seed: 11 }));

  test("--json follows ANALYSIS.md: k = floor(B/L), score@k per environment, equal-weight mean, best allocation", async () => {
    const result = await rebench("report", "--runs-file", file, "--format", "metr", "--budgets", "2h,8h,32h", "--json");
    expect(result.code).toBe(0);
    const out = JSON.parse(result.stdout);
    const rows = readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    for (const allocation of out.allocations) {
      const { participant, budgetSeconds } = allocation;
      const { runTimeLimitSeconds: limit, k } = allocation.allocation;
      expect(k).toBe(Math.floor(budgetSeconds / limit));
      let sum = 0;
      let covered = 0;
      for (const [f, env] of Object.entries(METR_FAMILIES)) {
        const scores = rows
          .filter((r) => r.task_family === f && r.alias === participant && (r.time_limit || 28800) === limit)
          .map((r) => (r.score ?? 0) as number);
        expect(allocation.environments[env].n).toBe(scores.length);
        if (k < 1 || scores.length < k) {
          expect(allocation.environments[env].score).toBeNull();
          continue;
        }
        const expected = env === "scaling_law" ? scores.reduce((a, b) => a + b, 0) / scores.length : expectedMax(scores, k);
        expect(allocation.environments[env].score).toBeCloseTo(expected, 10);
        sum += expected;
        covered += 1;
      }
      expect(allocation.coverage).toBe(covered);
      if (covered === 0) expect(allocation.score).toBeNull();
      else expect(allocation.score).toBeCloseTo(sum / covered, 10);
    }
    for (const row of out.rows) {
      const candidates = out.allocations.filter(
        (a: { participant: string; budget: string; score: number | null }) => a.participant === row.participant && a.budget === row.budget && a.score !== null,
      );
      const best = Math.max(...candidates.map((c: { coverage: number }) => c.coverage));
      const top = Math.max(...candidates.filter((c: { coverage: number }) => c.coverage === best).map((c: { score: number }) => c.score));
      if (candidates.length > 0) expect(row.score).toBe(top);
      if (row.score !== null) expect(row.ci[0]).toBeLessThanOrEqual(row.ci[1]);
    }
    const human = out.rows.filter((r: { participant: string }) => r.participant === "human");
    expect(human.map((r: { allocation: unknown }) => r.allocation)).toEqual([null, { runTimeLimitSeconds: 28800, k: 1 }, { runTimeLimitSeconds: 28800, k: 4 }]);
    expect(out.input.notes[0]).toMatch(/^Skipped 6 swe_tasks, 6 crypto_puzzle row\(s\)/);
  });

  test("the same seed gives the same intervals", async () => {
    const args = ["report", "--runs-file", file, "--budgets", "8h", "--bootstrap", "200", "--json"];
    const a = JSON.parse((await rebench(...args, "--seed", "9")).stdout);
    const b = JSON.parse((await rebench(...args, "--seed", "9")).stdout);
    const c = JSON.parse((await rebench(...args, "--seed", "10")).stdout);
    expect(b.rows).toEqual(a.rows);
    expect(c.rows.map((r: { ci: unknown }) => r.ci)).not.toEqual(a.rows.map((r: { ci: unknown }) => r.ci));
  });
});

describe("rebench report over METR's run endings", () => {
  test("usage-limit endings are named as the normal ending; only other fatal errors warn, by kind", async () => {
    const file = path.join(dir, "endings.jsonl");
    const fatal = ["usageLimits", "usageLimits", "usageLimits", "serverError", "agent", "serverError", null];
    const rows = fatal.map((from, i) =>
      JSON.stringify({
        run_id: i,
        task_id: "ai_rd_fix_embedding/main",
        alias: i % 2 ? "model-a" : "human",
        score: 0.1 * i,
        time_limit: i % 2 ? 7200 : 0,
        fatal_error_from: from,
      }),
    );
    writeFileSync(file, `${rows.join("\n")}\n`);
    const result = await rebench("report", "--runs-file", file, "--format", "metr", "--budgets", "8h", "--bootstrap", "0");
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^3 run\(s\) ended at their usage limit \(fatal_error_from "usageLimits"\), as RE-Bench runs normally do\.$/m);
    expect(result.stderr).toMatch(
      /^Warning: 3 run\(s\) ended in a fatal error \(fatal_error_from: 2 serverError, 1 agent\); their scores are used as recorded\.$/m,
    );
    expect(result.stderr).not.toMatch(/\d usageLimits/);

    writeFileSync(file, `${rows.slice(0, 3).join("\n")}\n`);
    const normal = await rebench("report", "--runs-file", file, "--format", "metr", "--budgets", "8h", "--bootstrap", "0", "--json");
    expect(JSON.parse(normal.stdout).input.notes).toEqual([
      '3 run(s) ended at their usage limit (fatal_error_from "usageLimits"), as RE-Bench runs normally do.',
    ]);
  });
});

describe("rebench report refuses what it cannot use, saying what to do", () => {
  test("a missing runs file exits 3", async () => {
    const { code, stderr } = await rebench("report", "--runs-file", path.join(dir, "nope.jsonl"));
    expect(code).toBe(3);
    expect(stderr).toMatch(/cannot read the runs file .*nope\.jsonl: ENOENT/);
  });

  test("bad budgets, formats and counts exit 2", async () => {
    expect((await rebench("report", "--db", path.join(dir, "x.db"), "--budgets", "8 hours")).stderr).toMatch(/cannot read the budget/);
    expect((await rebench("report", "--runs-file", "f", "--format", "csv")).code).toBe(2);
    expect((await rebench("report", "--db", path.join(dir, "x.db"), "--bootstrap", "-1")).stderr).toMatch(/--bootstrap must be an integer >= 0/);
    expect((await rebench("report", "--runs-file", "f", "--db", "g")).stderr).toMatch(/not both/);
  });

  test("an empty store exits 2 with a hint", async () => {
    await SqliteRunStore.open(path.join(dir, "empty.db")).close();
    const { code, stderr } = await rebench("report", "--db", path.join(dir, "empty.db"));
    expect(code).toBe(2);
    expect(stderr).toMatch(/no runs to compare in run store/);
    expect(stderr).toMatch(/hint: record runs first/);
  });
});

describe("rebench report when no budget fits the runs", () => {
  test("an all-'-' table comes with a hint naming --budgets and the runs' time limits and working times", async () => {
    // One real replay run of the default time limit (30m): a budget of 2h needs 4 such runs, so every cell is "-".
    const db = path.join(dir, "short-runs.db");
    const env = { REBENCH_TEST_SANDBOX_ROOT: path.join(dir, "sandboxes") };
    const fixtureCli = ["--import", "tsx", "test/fixtures/rebench-cli.ts"];
    const ran = await new Promise<number | null>((resolve) => {
      const child = spawn(
        process.execPath,
        [...fixtureCli, "run", "test_echo", "--variant", "mini", "--agent", "replay", "--backend", TEST_BACKEND, "--db", db],
        {
          cwd: REPO_ROOT,
          env: { ...process.env, ...env },
          stdio: "ignore",
        },
      );
      child.on("exit", resolve);
    });
    expect(ran).toBe(0);
    const report = await rebenchProcess(["report", "--db", db, "--bootstrap", "0"]);
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).not.toMatch(/\d\.\d/); // every score cell is "-"
    expect(report.stderr).toMatch(
      /^hint: every score is "-": .* time limits of 30m \(at most 1 run\(s\) per participant and environment\) and worked \S+ to \S+: try --budgets 30m$/m,
    );
    // With the budget it suggests, the table has a score and no hint.
    const fitted = await rebenchProcess(["report", "--db", db, "--bootstrap", "0", "--budgets", "30m"]);
    expect(fitted.code, fitted.stderr).toBe(0);
    expect(fitted.stdout).toMatch(/\d\.\d/);
    expect(fitted.stderr).not.toContain("hint: every score");
  });
});
