import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { EVENT_SCHEMA_VERSION } from "../src/core/index.js";
import { startDirRun } from "../src/runs/dir-run.js";
import { SqliteRunStore } from "../src/store/index.js";
import { REPO_ROOT, rebench } from "./helpers/cli.js";
import { registerFixtures } from "./helpers/register-fixtures.js";
import { TEST_BACKEND } from "./helpers/test-backend.js";
import { tempDir } from "./helpers/tmp.js";

const root = tempDir("rebench-cli-start-");
registerFixtures(path.join(root, "sandboxes"));
const db = path.join(root, "runs.db");
let n = 0;
const start = (...extra: string[]) => {
  const dir = path.join(root, `work${++n}`);
  return { dir, result: rebench("start", "test_echo", "--variant", "mini", "--dir", dir, "--db", db, "--backend", TEST_BACKEND, ...extra) };
};
const FAST = 'import sys\nfrom itertools import accumulate\nprint(" ".join(map(str, accumulate(int(a) for a in sys.argv[1:]))))\n';

async function runOf(dir: string) {
  const { runId } = JSON.parse(readFileSync(path.join(dir, ".rebench", "run.json"), "utf8")) as { runId: string };
  const store = SqliteRunStore.open(db);
  try {
    return { run: await store.getRun(runId), log: await store.scoreLog(runId) };
  } finally {
    await store.close();
  }
}

describe("rebench start", () => {
  test("materializes the workspace in DIR, starts a human run and prints the instructions and starting score", async () => {
    const { dir, result } = start("--participant", "alice", "--time-limit", "3600");
    const { code, stdout } = await result;
    expect(code).toBe(0);
    expect(stdout).toMatch(/^started run r[0-9a-z]+: test_echo\/mini \(main\) in /);
    expect(stdout).toMatch(/working-time limit: 1h/);
    expect(stdout).toMatch(/starting solution: score -?\d/);
    expect(stdout).toMatch(/Make solution.py in your workspace fast/);
    expect(stdout).toMatch(/rebench score --dir /);
    expect(existsSync(path.join(dir, "solution.py"))).toBe(true);
    const { run, log } = await runOf(dir);
    expect(run).toMatchObject({ state: "running", spec: { participant: { kind: "human", alias: "alice" }, config: { driver: "cli", sandbox: TEST_BACKEND } } });
    expect(log).toHaveLength(1);
    const shown = await rebench("runs", "show", run.id, "--db", db, "--json");
    const { provenance } = JSON.parse(shown.stdout) as { provenance: Record<string, unknown> };
    // Traceable: which rebench (a commit of this checkout) and which environment files produced the scores.
    expect(provenance).toMatchObject({ rebenchVersion: "0.1.0", eventSchemaVersion: EVENT_SCHEMA_VERSION });
    expect(provenance.rebenchCommit).toMatch(/^[0-9a-f]{12}(-dirty)?$/);
    expect(provenance.environmentDigest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect((await rebench("runs", "show", run.id, "--db", db)).stdout).toMatch(/^provenance: {2}rebench 0\.1\.0 \([0-9a-f]{12}/m);
  });

  test("refuses a directory that is not empty, an unknown environment and an unavailable variant", async () => {
    const { dir, result } = start();
    expect((await result).code).toBe(0);
    const again = await rebench("start", "test_echo", "--variant", "mini", "--dir", dir, "--db", db, "--backend", TEST_BACKEND);
    expect(again.code).toBe(5);
    expect(again.stderr).toMatch(/is not empty/);
    expect((await rebench("start", "nope", "--variant", "mini", "--dir", path.join(root, "x"), "--db", db)).code).toBe(3);
    const gpu = await rebench("start", "test_echo", "--variant", "gpu", "--dir", path.join(root, "y"), "--db", db, "--backend", TEST_BACKEND);
    expect(gpu.code).toBe(4);
    expect(gpu.stderr).toMatch(/only a mini variant/);
  });

  test("a backend that is not built in says so; the directory is left as it was, for the next try", async () => {
    const z = path.join(root, "z");
    const { code, stderr } = await rebench("start", "test_echo", "--variant", "mini", "--dir", z, "--db", db, "--backend", "nowhere");
    expect(code).toBe(4);
    expect(stderr).toMatch(/the sandbox backend "nowhere" is not available/);
    expect(existsSync(z)).toBe(false);
    mkdirSync(z);
    expect((await rebench("start", "test_echo", "--variant", "mini", "--dir", z, "--db", db, "--backend", "nowhere")).code).toBe(4);
    expect(readdirSync(z)).toEqual([]); // an empty directory given stays, emptied
    expect((await rebench("start", "test_echo", "--variant", "mini", "--dir", z, "--db", db, "--backend", TEST_BACKEND)).code).toBe(0);
  });

  test("an interrupted start (Ctrl-C) marks its run failed with the reason and leaves no directory", async () => {
    const dir = path.join(root, "interrupted");
    const store = SqliteRunStore.open(db);
    try {
      const interrupt = new AbortController();
      interrupt.abort(new Error("interrupted by the test"));
      const started = startDirRun({
        store,
        environment: "test_echo",
        variant: "mini",
        task: "main",
        dir,
        participant: { kind: "human", alias: "carol" },
        sandbox: TEST_BACKEND,
        signal: interrupt.signal,
      });
      await expect(started).rejects.toThrow(/interrupted by the test/);
      const carol = (await store.listRuns()).filter((r) => r.spec.participant.alias === "carol");
      expect(carol).toHaveLength(1);
      expect(carol[0]).toMatchObject({ state: "failed", error: expect.stringMatching(/start-up failed: interrupted by the test/) });
      expect(existsSync(dir)).toBe(false);
    } finally {
      await store.close();
    }
  });
});

describe("rebench score", () => {
  test("scores the directory's current files as the score action does, appending to the store", async () => {
    const { dir, result } = start();
    expect((await result).code).toBe(0);
    writeFileSync(path.join(dir, "solution.py"), FAST);
    const good = await rebench("score", "--dir", dir);
    expect(good.code).toBe(0);
    expect(good.stdout).toMatch(/^score -\d+(\.\d+)? {2}\{"seconds":/);
    writeFileSync(path.join(dir, "solution.py"), "print(1)\n");
    const bad = await rebench("score", "--dir", dir, "--json");
    expect(JSON.parse(bad.stdout)).toMatchObject({ kind: "scored", view: { outcome: "invalid" } });
    const { run, log } = await runOf(dir);
    expect(log.map((e) => e.outcome.kind)).toEqual(["scored", "scored", "invalid"]);
    expect(run.usage.actions).toBe(2);
    expect(run.usage.pausedSeconds).toBeGreaterThan(0);
  });

  test("--submit takes the final score and ends the run; scoring again is refused", async () => {
    const { dir, result } = start();
    expect((await result).code).toBe(0);
    writeFileSync(path.join(dir, "solution.py"), FAST);
    const submitted = await rebench("score", "--dir", dir, "--submit", "one pass");
    expect(submitted.code).toBe(0);
    expect(submitted.stdout).toMatch(/has ended \(submitted\)/);
    const { run, log } = await runOf(dir);
    expect(run).toMatchObject({ state: "finished", stopReason: "submitted" });
    expect(run.finalRaw).toBe(Math.min(...log.map((e) => (e.outcome.kind === "scored" ? e.outcome.value : Infinity))));
    const after = await rebench("score", "--dir", dir);
    expect(after.code).toBe(5);
    expect(after.stderr).toMatch(/has ended \(finished\)/);
  });

  test("hidden_score: neither start nor score prints a score value", async () => {
    const { dir, result } = start("--task", "hidden_score");
    const started = await result;
    expect(started.stdout).toMatch(/starting solution: valid \(score hidden for this task\) {2}\{"valid":true\}/);
    const scored = await rebench("score", "--dir", dir, "--json");
    const { log } = await runOf(dir);
    expect(JSON.parse(scored.stdout).view).not.toHaveProperty("score");
    for (const entry of log) {
      const value = entry.outcome.kind === "scored" ? String(entry.outcome.value) : "none";
      expect(started.stdout + scored.stdout).not.toContain(value);
    }
  });

  test("past the time limit, scoring ends the run (scored, as any run stopped by a limit)", async () => {
    const { dir, result } = start("--time-limit", "0.5");
    expect((await result).code).toBe(0);
    await new Promise((r) => setTimeout(r, 700));
    const late = await rebench("score", "--dir", dir);
    expect(late.stdout).toMatch(/has ended \(limit: workingSeconds\)/);
    const { run, log } = await runOf(dir);
    expect(run).toMatchObject({ state: "finished", stopReason: "limit" });
    expect(log).toHaveLength(2);
  });

  test("as a process, rebench score exits once it has printed (the sandbox's idle connections do not hold it)", async () => {
    const { dir, result } = start();
    expect((await result).code).toBe(0);
    const scored = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        ["--import", "tsx", "test/fixtures/rebench-cli.ts", "score", "--dir", dir],
        {
          cwd: REPO_ROOT,
          env: { ...process.env, REBENCH_TEST_SANDBOX_ROOT: path.join(root, "sandboxes") },
          timeout: 90_000,
        },
        (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === "number" ? error.code : null) : 0, stdout, stderr }),
      );
    });
    expect(scored.code, scored.stderr).toBe(0);
    expect(scored.stdout).toMatch(/^score -?\d+(\.\d+)? /);
  }, 120_000);

  test("a directory without a run exits 3 and says how to start one", async () => {
    const { code, stderr } = await rebench("score", "--dir", root);
    expect(code).toBe(3);
    expect(stderr).toMatch(/holds no rebench run/);
    expect(stderr).toMatch(/rebench start NAME/);
  });
});

describe("rebench runs resume", () => {
  test("with nothing unfinished says so; human runs are left to `rebench score`", async () => {
    const { result } = start();
    expect((await result).code).toBe(0);
    const { code, stdout } = await rebench("runs", "resume", "--db", db);
    expect(code).toBe(0);
    expect(stdout).toMatch(/skipped r[0-9a-z]+: a human run/);
  });

  test("start, score and runs resume have --help with an example", async () => {
    for (const args of [["start"], ["score"], ["runs", "resume"]]) {
      const { code, stdout } = await rebench(...args, "--help");
      expect(code, args.join(" ")).toBe(0);
      expect(stdout, args.join(" ")).toMatch(/Example:/);
    }
  });
});
