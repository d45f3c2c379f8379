import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { readCalibrationFile } from "../src/environments/index.js";
import { SqliteRunStore } from "../src/store/index.js";
import { withBusyLoops } from "./helpers/busy-loops.js";
import { rebench } from "./helpers/cli.js";
import { echoCopy, FIXTURES_DIR } from "./helpers/echo-copy.js";
import { registerFixtures, TEST_BACKEND } from "./helpers/register-fixtures.js";
import { tempDir } from "./helpers/tmp.js";

// Scores taken while other work uses the machine: the user and the participant are told, calibrate refuses.
const root = tempDir("rebench-contention-cli-");
registerFixtures(path.join(root, "sandboxes"));
const BURN = path.join(FIXTURES_DIR, "contention-graders", "burn.py");
/** A timing-sensitive copy of test_echo whose grader burns a CPU-second and scores its wall time (+ `gap` for the start). */
const burning = (name: string, gap = 0) =>
  echoCopy(
    root,
    name,
    (dir) =>
      writeFileSync(
        path.join(dir, "grader", "score.py"),
        readFileSync(BURN, "utf8").replace('"--gap", type=float, default=0.0', `"--gap", type=float, default=${gap}`),
      ),
    {
      timingSensitive: true,
    },
  );
const skip = TEST_BACKEND === "process" ? test.skip : test; // the process backend cannot tell its CPU time from other work's

async function inStore<T>(db: string, fn: (store: SqliteRunStore) => Promise<T>): Promise<T> {
  const store = SqliteRunStore.open(db);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

describe("scores under contention", () => {
  skip("rebench run beside a busy loop per CPU: the user is warned, the agent's score observation carries the note, runs show and report say so", async () => {
    const family = burning("test_echo_burn_run");
    const db = path.join(root, "run.db");
    const { code, stdout, stderr } = await withBusyLoops(() =>
      rebench("run", family.name, "--variant", "mini", "--agent", "replay", "--backend", TEST_BACKEND, "--db", db, "--json"),
    );
    expect(code, stderr).toBe(0);
    const [result] = JSON.parse(stdout).runs;
    expect(result.contendedScores).toBeGreaterThanOrEqual(2); // the `score` action and the final scoring at least
    expect(stderr).toMatch(
      new RegExp(
        `rebench: warning: run ${result.runId} \\(${family.name}/mini\\) had \\d of its \\d scorings taken while other work used up to \\d\\.\\d of \\d+ CPUs.*: this timing is not comparable; score again on a quiet machine`,
      ),
    );
    const observations = await inStore(db, async (store) =>
      (await store.events(result.runId)).map((e) => e.event).filter((e) => e.type === "observation" && e.tool === "score"),
    );
    expect(observations).toHaveLength(1);
    expect((observations[0] as { output: { notice?: string } }).output.notice).toMatch(
      /^while this was scored, other work on this machine used \d\.\d of \d+ CPUs.*: this timing is slower .* not comparable/,
    );

    const shown = await rebench("runs", "show", result.runId, "--db", db);
    expect(shown.stdout).toMatch(/OTHER CPUS/);
    expect(shown.stdout).toMatch(/\d\.\d\d\/\d+ contended/);
    const report = await rebench("report", "--db", db, "--budgets", "1h", "--bootstrap", "10");
    expect(report.stderr).toMatch(/Warning: 1 of 1 run\(s\) have score entries taken while other work used the machine/);
  }, 300_000);

  skip("rebench score --dir beside busy loops prints the warning under the score", async () => {
    const family = burning("test_echo_burn_dir");
    const dir = path.join(root, "work");
    const db = path.join(root, "dir.db");
    const started = await rebench("start", family.name, "--variant", "mini", "--dir", dir, "--db", db, "--backend", TEST_BACKEND);
    expect(started.code, started.stderr).toBe(0);
    const scored = await withBusyLoops(() => rebench("score", "--dir", dir));
    expect(scored.code, scored.stderr).toBe(0);
    expect(scored.stdout).toMatch(/^score -?\d.*\nwarning: while this was scored, other work on this machine used \d\.\d of \d+ CPUs/);
    await rebench("score", "--dir", dir, "--submit");
  }, 300_000);

  skip("rebench calibrate refuses a busy machine for a timing-sensitive variant; --allow-busy calibrates and records it in the note", async () => {
    const family = burning("test_echo_burn_cal", 10);
    const db = path.join(root, "cal.db");
    const args = ["calibrate", family.name, "--variant", "mini", "--runs", "2", "--backend", TEST_BACKEND, "--db", db, "--write"];
    const refused = await withBusyLoops(() => rebench(...args));
    expect(refused.code).toBe(5);
    expect(refused.stderr).toMatch(/is timing-sensitive and other work is using \d\.\d of this machine's \d+ CPUs/);
    expect(refused.stderr).toMatch(/--allow-busy/);
    expect(await inStore(db, (store) => store.listRuns())).toHaveLength(0); // refused before any run

    const allowed = await withBusyLoops(() => rebench(...args, "--allow-busy", "--json"));
    expect(allowed.code, allowed.stderr).toBe(0);
    const result = JSON.parse(allowed.stdout);
    expect(result.contended.start.length + result.contended.reference.length).toBeGreaterThan(0);
    expect(result.written).toBe(path.join(family.dir, "calibration.json"));
    // The entry of this machine's class (the only one the copy has).
    const entries = Object.values(readCalibrationFile(family.dir)?.mini ?? {});
    expect(entries).toHaveLength(1);
    expect(entries[0]!.note).toMatch(
      /^calibrated with --allow-busy: other work used \d\.\d\d of \d+ CPUs before it started; \d of 4 runs were scored under contention$/,
    );
  }, 600_000);

  skip("rebench calibrate --write refuses runs scored under contention (here the machine looked quiet enough by --quiet-below)", async () => {
    const family = burning("test_echo_burn_contended", 10);
    const db = path.join(root, "contended.db");
    const { code, stdout, stderr } = await withBusyLoops(() =>
      rebench("calibrate", family.name, "--variant", "mini", "--runs", "2", "--backend", TEST_BACKEND, "--db", db, "--write", "--quiet-below", "1000"),
    );
    expect(code).toBe(1);
    expect(stdout).toMatch(/contended: \d of 4 runs were scored while other work used the machine/);
    expect(stdout).toMatch(/nothing written to .*calibration\.json: \d run\(s\) were scored under contention/);
    expect(stderr).toMatch(/were scored while other work used the machine, so nothing was written/);
    expect(readCalibrationFile(family.dir)).toBeUndefined();
  }, 600_000);

  test("a variant whose reference trains for a fixed time: calibrate refuses a busy machine and runs at once on the CPUs, and its plan says why", async () => {
    const family = echoCopy(root, "test_echo_timed_ref", undefined, { timedReference: "the reference trains for a fixed number of minutes" });
    const db = path.join(root, "timed-ref.db");
    const args = ["calibrate", family.name, "--variant", "mini", "--runs", "2", "--backend", TEST_BACKEND, "--db", db, "--write"];
    const busy = await withBusyLoops(() => rebench(...args));
    expect(busy.code).toBe(5);
    expect(busy.stderr).toMatch(
      /test_echo_timed_ref\/mini needs a quiet machine \(the reference trains for a fixed number of minutes\) and other work is using \d\.\d of this machine's \d+ CPUs/,
    );
    const together = await rebench(...args, "--concurrency", "2");
    expect(together.code).toBe(2);
    expect(together.stderr).toMatch(
      /the reference trains for a fixed number of minutes, so runs at once on this machine's CPUs would cost each other's training steps/,
    );
    expect(await inStore(db, (store) => store.listRuns())).toHaveLength(0); // refused before any run
    const plan = await rebench("calibrate", family.name, "test_echo", "--variant", "mini", "--dry-run", "--db", db);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(/test_echo_timed_ref\/mini\s+reference\s+5 \+ 5 runs/);
    expect(plan.stdout).toMatch(/test_echo\/mini\s+no\s+/);
  }, 300_000);

  test("a variant that is not timing-sensitive is calibrated on a busy machine without a word about it", async () => {
    const family = echoCopy(root, "test_echo_plain_cal", (dir) =>
      copyFileSync(path.join(FIXTURES_DIR, "calibration-graders", "steady.py"), path.join(dir, "grader", "score.py")),
    );
    const db = path.join(root, "plain.db");
    const { code, stderr } = await withBusyLoops(() =>
      rebench("calibrate", family.name, "--variant", "mini", "--runs", "2", "--backend", TEST_BACKEND, "--db", db, "--json"),
    );
    expect(code, stderr).toBe(0);
    expect(stderr).not.toMatch(/timing-sensitive|contention|other work/);
  }, 300_000);
});
