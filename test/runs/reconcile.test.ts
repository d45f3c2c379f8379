import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { driveRun } from "../../src/runs/drive-run.js";
import { runHarness } from "../helpers/run-harness.js";
import { tempDir } from "../helpers/tmp.js";

const root = tempDir("rebench-reconcile-");
const harness = runHarness(root);
const actions = path.join(root, "actions.jsonl");
writeFileSync(actions, [{ tool: "score" }, { tool: "submit", input: { submission: "" } }].map((s) => JSON.stringify(s)).join("\n"));
const participant = { kind: "agent" as const, alias: "script-agent", scaffold: "script", model: actions };

/** A run whose orchestrator "died" inside a score action: the action and its scoring pause are in the log. */
async function crashedInScoring(alsoLogged: boolean) {
  const { log, session, sandbox, env } = await harness.start({ participant });
  session.close();
  await log.append({ type: "action", actionId: "a1", tool: "score", input: {} });
  await log.append({ type: "pause_started", reason: "scoring" });
  if (alsoLogged) {
    const { runGrader } = await import("../../src/scoring/run-grader.js");
    const result = await runGrader(sandbox, { command: env.implementation.grader.command, task: "main", variant: "mini", timeoutSeconds: 30 });
    await log.append({ type: "score_logged", trigger: "action", entry: { timestamp: new Date().toISOString(), elapsedSeconds: 0, ...result } });
  }
  return log.id;
}

const kinds = async (runId: string) =>
  (await harness.store.events(runId)).map(({ event }) => event.type).filter((t) => t !== "time_reported" && t !== "driver_attached");

describe("reconciling a run cut off inside a score action", () => {
  test("the score is taken again, its pause closed, and the agent continues from its next step", async () => {
    const runId = await crashedInScoring(false);
    const run = await driveRun(runId, { store: harness.store });
    expect(run).toMatchObject({ state: "finished", stopReason: "submitted", scoreCalls: 3 });
    expect((await harness.store.scoreLog(runId)).map((e) => e.outcome.kind)).toEqual(["scored", "scored", "scored"]);
    const events = await kinds(runId);
    const afterCrash = events.slice(events.indexOf("pause_started"));
    expect(afterCrash.slice(0, 8)).toEqual([
      "pause_started", // the scoring pause left open by the crash...
      "pause_ended", // ...closed where the log stopped
      "pause_started", // the downtime, as a recovery pause
      "pause_ended",
      "pause_started", // the score action, taken again
      "score_logged",
      "pause_ended",
      "observation",
    ]);
  });

  test("an entry logged before the crash is reused, never duplicated", async () => {
    const runId = await crashedInScoring(true);
    const before = await harness.store.scoreLog(runId);
    const run = await driveRun(runId, { store: harness.store });
    expect(run).toMatchObject({ state: "finished", scoreCalls: 3 });
    const after = await harness.store.scoreLog(runId);
    expect(after.slice(0, 2)).toEqual(before);
    const observation = (await harness.store.events(runId, { types: ["observation"] }))[0]!.event;
    expect(observation).toMatchObject({ actionId: "a1", tool: "score", output: { outcome: before[1]!.outcome.kind } });
  });

  test("a run whose sandbox is gone fails with its score log kept", async () => {
    const { log, session, sandbox } = await harness.start({ participant });
    session.close();
    await sandbox.destroy();
    const run = await driveRun(log.id, { store: harness.store });
    expect(run).toMatchObject({ state: "failed", scoreCalls: 1 });
    expect(run.error).toMatch(/sandbox is gone/);
    expect(await harness.store.scoreLog(log.id)).toHaveLength(1);
  });
});

describe("resuming where something is missing", () => {
  test("a run whose scaffold is not in this process is skipped and left as it was, not failed", async () => {
    const { resumeRuns } = await import("../../src/runs/resume-runs.js");
    const { log, session } = await harness.start({ participant: { kind: "agent", alias: "ghost", scaffold: "nowhere" } });
    session.close();
    const before = (await harness.store.getRun(log.id)).lastSeq;
    const report = await resumeRuns({ store: harness.store, runIds: [log.id] });
    expect(report.resumed).toEqual([]);
    expect(report.skipped[0]?.why).toMatch(/no scaffold "nowhere"/);
    const after = await harness.store.getRun(log.id);
    expect(after.state).toBe("running");
    expect((await harness.store.events(log.id, { afterSeq: before })).map(({ event }) => event.type)).toEqual(["driver_attached"]);
  });
});
