import { describe, expect, test } from "vitest";
import { RunEndedError } from "../../src/core/index.js";
import { ManualClock } from "../../src/runs/clock.js";
import { ClockedBackend, runHarness } from "../helpers/run-harness.js";
import { tempDir } from "../helpers/tmp.js";

const harness = runHarness(tempDir("rebench-budgets-"));

const pauses = async (runId: string) =>
  (await harness.store.events(runId, { types: ["pause_started", "pause_ended"] })).map(({ event }) => `${event.type}:${"reason" in event ? event.reason : ""}`);

describe("working time", () => {
  test("excludes scoring pauses and model-API retries, each an interval in the log", async () => {
    const clock = new ManualClock();
    const backend = new ClockedBackend(harness.backend, clock, { agentSeconds: 10, graderSeconds: 100 });
    const { log, tools, session } = await harness.start({ clock, backend, limits: { workingSeconds: 25 } });
    // The starting score (100 s of grading) happened before the run's clock started.
    expect(log.usage()).toMatchObject({ wallSeconds: 0, workingSeconds: 0 });

    await tools.bash({ command: "echo one" }); // +10 working
    const score = await tools.score(); // +100 paused
    expect(score.elapsedSeconds).toBe(10);
    await session.paused("model_retry", async () => clock.advance(50)); // +50 paused
    expect(log.usage()).toMatchObject({ wallSeconds: 160, workingSeconds: 10, pausedSeconds: 150 });
    expect((await tools.usage()).remaining.workingSeconds).toBe(15);
    expect(await pauses(log.id)).toEqual(["pause_started:scoring", "pause_ended:scoring", "pause_started:model_retry", "pause_ended:model_retry"]);

    await tools.bash({ command: "echo two" }); // +10: 20 of 25
    expect(log.state).toBe("running");
    const third = await tools.bash({ command: "echo three", timeoutSeconds: 60 }); // +10: 30 > 25, the run ends
    expect(third.timeoutSeconds).toBe(5); // cut to the time left
    expect(log.summary).toMatchObject({ state: "finished", stopReason: "limit" });
    expect(log.summary.usage).toMatchObject({ workingSeconds: 30, pausedSeconds: 150, wallSeconds: 180 });
    // The final scoring (another 100 s of grading) came after the clock stopped.
    expect(log.usage()).toMatchObject({ workingSeconds: 30, wallSeconds: 180 });
  });
});

describe("budgets", () => {
  test("a command is cut at the working-time budget, and the run is stopped and still scored", async () => {
    const { log, tools, session } = await harness.start({ limits: { workingSeconds: 1.5 } });
    const started = Date.now();
    const result = await tools.bash({ command: "sleep 30", timeoutSeconds: 60 });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(result.timedOut).toBe(true);
    expect(result.timeoutSeconds).toBeLessThanOrEqual(1.5);
    const outcome = await session.ended;
    expect(outcome).toMatchObject({ stopReason: "limit", limit: "workingSeconds", finalScore: { outcome: "scored" } });
    const events = await harness.store.events(log.id, { types: ["score_logged", "run_finished"] });
    expect(events.map(({ event }) => (event.type === "score_logged" ? event.trigger : event.type))).toEqual(["start", "limit", "run_finished"]);
    const scores = (await harness.store.scoreLog(log.id)).map((e) => (e.outcome.kind === "scored" ? e.outcome.value : NaN));
    expect(log.summary).toMatchObject({ state: "finished", stopReason: "limit", finalRaw: Math.min(...scores) });
    expect(log.summary.normalized).not.toBeNull();
  });

  test("the action budget stops the run after its last allowed action; later calls are refused", async () => {
    const { log, tools, session } = await harness.start({ limits: { actions: 2 } });
    await tools.bash({ command: "true" });
    expect(log.state).toBe("running");
    await tools.bash({ command: "true" });
    expect(session.signal.aborted).toBe(true);
    expect(await session.ended).toMatchObject({ stopReason: "limit", limit: "actions" });
    await expect(tools.bash({ command: "true" })).rejects.toBeInstanceOf(RunEndedError);
    await expect(tools.score()).rejects.toThrow(/has ended/);
    expect(log.summary).toMatchObject({ state: "finished", stopReason: "limit", scoreCalls: 2, validScores: 2 });
    expect(log.summary.usage.actions).toBe(2);
  });

  test("tokens and cost: a generation that crosses the budget ends the run", async () => {
    const { log, session } = await harness.start({ limits: { tokens: 100 } });
    await session.recordGeneration({ model: "m", inputTokens: 40, outputTokens: 10, costUsd: 0.01 });
    expect(log.state).toBe("running");
    await session.recordGeneration({ model: "m", inputTokens: 40, outputTokens: 20, costUsd: 0.01 });
    expect(await session.ended).toMatchObject({ stopReason: "limit", limit: "tokens" });
    expect(log.summary.usage).toMatchObject({ inputTokens: 80, outputTokens: 30 });
  });

  test("the watchdog ends a run whose time runs out while the agent is thinking", async () => {
    const { session } = await harness.start({ limits: { workingSeconds: 1 }, watchdogMs: 50 });
    expect(await session.ended).toMatchObject({ stopReason: "limit", limit: "workingSeconds" });
    expect(session.signal.aborted).toBe(true);
  });
});
