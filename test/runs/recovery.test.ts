import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { RunRecord, type RunSummary, type ScoreLogEntry, type StoredEvent } from "../../src/core/index.js";
import { SqliteRunStore } from "../../src/store/index.js";
import { finished, node as spawnNode } from "../helpers/child.js";
import { TEST_BACKEND, testBackend } from "../helpers/test-backend.js";
import { tempDir } from "../helpers/tmp.js";

const root = tempDir("rebench-recovery-");
const sandboxes = path.join(root, "sandboxes");
const env = { ...process.env, REBENCH_TEST_SANDBOX_ROOT: sandboxes };
const actions = path.join(root, "actions.jsonl");
writeFileSync(
  actions,
  [
    { tool: "score" },
    { tool: "bash", input: { command: "sleep 0.1" } },
    { tool: "score" },
    { tool: "bash", input: { command: "sleep 60" } },
    { tool: "score" },
    { tool: "submit", input: { submission: "after the crash" } },
  ]
    .map((s) => JSON.stringify(s))
    .join("\n"),
);

const node = (script: string, args: string[]) => spawnNode(script, args, env);

/** Wait until every run of the batch is inside its `sleep 60` (an action without an observation). */
async function waitUntilSleeping(db: string, batchId: string, runs: number): Promise<void> {
  const store = SqliteRunStore.open(db);
  try {
    for (let i = 0; i < 300; i++) {
      const list = await store.listRuns({ batchId });
      const sleeping = await Promise.all(list.map(async (run) => inSleep(await store.events(run.id))));
      if (list.length === runs && sleeping.every(Boolean)) return;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error("the orchestrator never reached the long command");
  } finally {
    await store.close();
  }
}

function inSleep(events: StoredEvent[]): boolean {
  const last = events.filter(({ event }) => event.type === "action" || event.type === "observation").at(-1)?.event;
  return last?.type === "action" && JSON.stringify(last.input).includes("sleep 60");
}

async function snapshot(db: string, batchId: string): Promise<Array<{ run: RunSummary; log: ScoreLogEntry[]; events: StoredEvent[] }>> {
  const store = SqliteRunStore.open(db);
  try {
    const runs = await store.listRuns({ batchId });
    return await Promise.all(runs.map(async (run) => ({ run, log: await store.scoreLog(run.id), events: await store.events(run.id) })));
  } finally {
    await store.close();
  }
}

async function killMidRun(db: string, batchId: string) {
  const orchestrator = node("test/fixtures/orchestrator.ts", [db, batchId, "2", "2", actions]);
  const exit = finished(orchestrator);
  await waitUntilSleeping(db, batchId, 2);
  orchestrator.kill("SIGKILL");
  expect((await exit).signal).toBe("SIGKILL");
  const before = await snapshot(db, batchId);
  for (const { run, log } of before) {
    expect(run.state).toBe("running");
    expect(log).toHaveLength(3); // the starting score and two score actions
  }
  await new Promise((r) => setTimeout(r, 1000)); // the orchestrator is down for a while
  return before;
}

function expectRecovered(before: Awaited<ReturnType<typeof snapshot>>, after: Awaited<ReturnType<typeof snapshot>>) {
  expect(after).toHaveLength(2);
  for (const { run, log, events } of after) {
    const earlier = before.find((b) => b.run.id === run.id)!;
    expect(run).toMatchObject({ state: "finished", stopReason: "submitted" });
    // Every entry logged before the crash is still there, unchanged, followed by the score and submit calls.
    expect(log.slice(0, earlier.log.length)).toEqual(earlier.log);
    expect(log).toHaveLength(earlier.log.length + 2);
    const interrupted = events.find(
      ({ event }) => event.type === "observation" && event.tool === "bash" && JSON.stringify(event.output).includes('"interrupted":true'),
    );
    expect(interrupted).toBeDefined();
    const recovery = events.filter(({ event }) => (event.type === "pause_started" || event.type === "pause_ended") && event.reason === "recovery");
    expect(recovery.map(({ event }) => event.type)).toEqual(["pause_started", "pause_ended"]);
    const downtime = (Date.parse(recovery[1]!.event.ts) - Date.parse(recovery[0]!.event.ts)) / 1000;
    expect(downtime).toBeGreaterThanOrEqual(1);
    // The downtime is a pause: it never counts as working time.
    expect(run.usage.pausedSeconds).toBeGreaterThanOrEqual(downtime);
    expect(run.usage.workingSeconds).toBeLessThan(run.usage.wallSeconds - 1);
    const valid = log.flatMap((e) => (e.outcome.kind === "scored" ? [e.outcome.value] : []));
    expect(run.finalRaw).toBe(Math.min(...valid));
  }
}

describe("recovery after the orchestrator is killed with SIGKILL", () => {
  test("`rebench runs resume` continues every run with its score log intact", async () => {
    const db = path.join(root, "resume.db");
    const before = await killMidRun(db, "batch-resume");
    const resume = await finished(node("test/fixtures/rebench-cli.ts", ["runs", "resume", "--db", db]));
    expect(resume.output).toMatch(/resumed 2 run\(s\), skipped 0/);
    expect(resume.output).toMatch(/review: 2 run\(s\) clean/); // reviewed once they finished, as `rebench run` does
    expect(resume.code).toBe(0);
    expectRecovered(before, await snapshot(db, "batch-resume"));
    const again = await finished(node("test/fixtures/rebench-cli.ts", ["runs", "resume", "--db", db]));
    expect(again.output).toMatch(/no unfinished runs to resume/);
  });

  test("restarting the batch reconciles its runs instead of starting new ones", async () => {
    const db = path.join(root, "restart.db");
    const before = await killMidRun(db, "batch-restart");
    const restart = await finished(node("test/fixtures/orchestrator.ts", [db, "batch-restart", "2", "2", actions]));
    expect(restart.code, restart.output).toBe(0);
    expectRecovered(before, await snapshot(db, "batch-restart"));
  });
});

describe("`rebench runs resume` reports and exits as `rebench run` does", () => {
  test("it prints each resumed run as it ends, exits 1 when one failed, and --json holds run records (no specs)", async () => {
    const db = path.join(root, "resume-failed.db");
    const before = await killMidRun(db, "batch-resume-failed");
    // One run's sandbox is gone (the machine was wiped, say): continuing it fails it, its score log kept.
    const [lost, kept] = before.map((b) => b.run);
    const sandbox = await testBackend(sandboxes).reattach(lost!.id);
    await sandbox!.destroy();
    const resume = node("test/fixtures/rebench-cli.ts", ["runs", "resume", "--db", db, "--json"]);
    let stdout = "";
    let stderr = "";
    resume.stdout?.on("data", (d) => (stdout += d));
    resume.stderr?.on("data", (d) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => resume.on("exit", resolve));
    expect(code, stderr).toBe(1);
    // Progress on stderr, as `rebench run --json` prints it: what it resumes, then each run as it ends.
    expect(stderr).toContain(`resuming 2 run(s)`);
    expect(stderr).toContain(`run ${lost!.id} failed (error): failed: the run's sandbox is gone`);
    expect(stderr).toContain(`run ${kept!.id} finished (submitted): raw `);
    expect(stderr).toContain(`1 of 2 resumed run(s) failed`);
    const json = JSON.parse(stdout) as { db: string; runs: unknown[]; skipped: unknown[] };
    expect(Object.keys(json).sort()).toEqual(["db", "runs", "skipped"]);
    expect(json.skipped).toEqual([]);
    const records = json.runs.map((r) => RunRecord.parse(r));
    expect(records.map((r) => [r.runId, r.state]).sort()).toEqual(
      [
        [lost!.id, "failed"],
        [kept!.id, "finished"],
      ].sort(),
    );
    expect(records.find((r) => r.runId === kept!.id)!.rawScore).not.toBeNull();
    expect(stdout).not.toContain('"spec"');
  });
});

describe("an orchestrator interrupted with Ctrl-C (SIGINT)", () => {
  test("`rebench run` says what it leaves and how to go on, exits 130, and `runs resume` continues the run", async () => {
    const db = path.join(root, "sigint.db");
    const run = node("test/fixtures/rebench-cli.ts", [
      "run",
      "test_echo",
      "--variant",
      "mini",
      "--agent",
      "replay",
      "--actions",
      actions,
      "--db",
      db,
      "--backend",
      TEST_BACKEND,
      "--progress",
      "3600",
    ]);
    const exit = finished(run);
    const store = SqliteRunStore.open(db);
    let batchId: string | undefined;
    try {
      for (let i = 0; i < 300 && batchId === undefined; i++) {
        const [first] = await store.listRuns({});
        if (first && inSleep(await store.events(first.id))) batchId = first.spec.batchId;
        else await new Promise((r) => setTimeout(r, 200));
      }
    } finally {
      await store.close();
    }
    expect(batchId, "the run never reached its long command").toBeDefined();
    run.kill("SIGINT");
    const { code, output } = await exit;
    expect(code).toBe(130);
    const [left] = (await snapshot(db, batchId!)).map((s) => s.run);
    expect(left!.state).toBe("running");
    expect(output).toContain(`unfinished runs of batch ${batchId}: ${left!.id} (running)`);
    expect(output).toContain(`rebench runs resume --db ${db}`);
    const resume = await finished(node("test/fixtures/rebench-cli.ts", ["runs", "resume", "--db", db]));
    expect(resume.code, resume.output).toBe(0);
    const [after] = (await snapshot(db, batchId!)).map((s) => s.run);
    expect(after).toMatchObject({ state: "finished", stopReason: "submitted" });
  });
});
