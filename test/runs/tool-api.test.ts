import { describe, expect, test } from "vitest";
import { registerFailingGrader } from "../helpers/crash-env.js";
import { runHarness } from "../helpers/run-harness.js";
import { tempDir } from "../helpers/tmp.js";

const harness = runHarness(tempDir("rebench-tools-"));
const FAST = 'import sys\nfrom itertools import accumulate\nprint(" ".join(map(str, accumulate(int(a) for a in sys.argv[1:]))))\n';

describe("the tool API", () => {
  test("bash keeps the working directory and exports between calls, and records action and observation", async () => {
    const { log, tools } = await harness.start();
    await tools.bash({ command: "mkdir -p sub && cd sub && export GREETING=hello" });
    const second = await tools.bash({ command: 'echo "$(basename "$PWD") $GREETING"' });
    expect(second).toMatchObject({ exitCode: 0, stdout: "sub hello\n", timedOut: false, truncated: false });
    const events = await harness.store.events(log.id, { types: ["action", "observation"] });
    expect(events.map(({ event }) => `${event.type}:${"actionId" in event ? event.actionId : ""}`)).toEqual([
      "action:a1",
      "observation:a1",
      "action:a2",
      "observation:a2",
    ]);
  });

  test("bash has a per-call timeout that kills the command", async () => {
    const { tools, log } = await harness.start();
    const started = Date.now();
    const result = await tools.bash({ command: "sleep 20; echo never", timeoutSeconds: 0.5 });
    expect(result).toMatchObject({ timedOut: true, exitCode: null, stdout: "" });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(log.state).toBe("running");
  });

  test("python runs a program in the agent's current directory", async () => {
    const { tools } = await harness.start();
    await tools.bash({ command: "mkdir -p data && cd data" });
    const result = await tools.python({ code: "import os\nprint(os.path.basename(os.getcwd()), 6 * 7)" });
    expect(result).toMatchObject({ exitCode: 0, stdout: "data 42\n" });
  });

  test("score, score_log and submit: the reference solution scores better than the start; the final score aggregates the log", async () => {
    const { log, tools } = await harness.start();
    const start = (await tools.scoreLog())[0]!;
    await tools.bash({ command: `cat > solution.py <<'PY'\n${FAST}PY` });
    const better = await tools.score();
    expect(better.outcome).toBe("scored");
    expect(better.score!).toBeLessThan(start.score!);
    await tools.bash({ command: "echo 'print(1)' > solution.py" });
    const broken = await tools.score();
    expect(broken).toMatchObject({ outcome: "invalid", reason: "the output is not the running sums of the arguments" });
    expect((await tools.scoreLog()).map((v) => v.outcome)).toEqual(["scored", "scored", "invalid"]);
    const outcome = await tools.submit({ submission: "done" });
    expect(outcome).toMatchObject({ stopReason: "submitted", finalScore: { outcome: "invalid" } });
    expect(log.summary).toMatchObject({ state: "finished", stopReason: "submitted", finalRaw: better.score, scoreCalls: 4, validScores: 2 });
    const submitted = await harness.store.events(log.id, { types: ["submitted"] });
    expect(submitted[0]?.event).toMatchObject({ submission: "done" });
  });

  test("usage reports what is left of each limit and is not an action", async () => {
    const { tools } = await harness.start({ limits: { actions: 10, tokens: 1000 } });
    await tools.bash({ command: "true" });
    const usage = await tools.usage();
    expect(usage).toMatchObject({ state: "running", usage: { actions: 1 }, remaining: { actions: 9, tokens: 1000 } });
    expect((await tools.usage()).usage.actions).toBe(1);
  });
});

describe("hidden scores", () => {
  test("hidden_score: the agent's score, score_log and submit views carry no score; the store keeps it", async () => {
    const { log, tools } = await harness.start({ task: "hidden_score" });
    await tools.bash({ command: `cat > solution.py <<'PY'\n${FAST}PY` });
    const view = await tools.score();
    expect(view).toMatchObject({ outcome: "scored", message: { valid: true } });
    expect(view).not.toHaveProperty("score");
    for (const v of await tools.scoreLog()) expect(v).not.toHaveProperty("score");
    const outcome = await tools.submit({ submission: "" });
    expect(outcome.finalScore).not.toHaveProperty("score");
    const stored = await harness.store.scoreLog(log.id);
    const values = stored.map((e) => (e.outcome.kind === "scored" ? e.outcome.value : null));
    expect(values.every((v) => typeof v === "number")).toBe(true);
    // Nothing the agent was shown (observation events) contains a score value.
    const observations = JSON.stringify(await harness.store.events(log.id, { types: ["observation"] }));
    for (const v of values) expect(observations).not.toContain(String(v));
    expect(log.summary.finalRaw).toBe(Math.min(...(values as number[])));
  });
});

describe("failed scoring never becomes a score", () => {
  test.each(["crash", "garbage", "nofile"] as const)("a run whose grader always fails (%s) finishes with no final score", async (mode) => {
    registerFailingGrader(`test_fail_${mode}`, mode);
    const { log, tools } = await harness.start({ environment: `test_fail_${mode}` });
    expect((await tools.score()).outcome).toBe("error");
    const outcome = await tools.submit({ submission: "" });
    expect(outcome.finalScore?.outcome).toBe("error");
    expect(log.summary).toMatchObject({ state: "finished", finalRaw: null, normalized: null, currentRaw: null, scoreCalls: 3, validScores: 0 });
  });

  test("a grader past its time limit is a timedOut entry, not a score", async () => {
    registerFailingGrader("test_fail_hang", "hang", 1);
    const { log, tools } = await harness.start({ environment: "test_fail_hang" });
    expect(await tools.score()).toMatchObject({ outcome: "timedOut", reason: "scoring took longer than 1 s" });
    expect(log.summary).toMatchObject({ validScores: 0, currentRaw: null });
  });
});

describe("the session's history", () => {
  test("holds only what the agent did and was shown: no score-log entries, no details", async () => {
    const { session, tools } = await harness.start({ task: "hidden_score" });
    await tools.bash({ command: "true" });
    await tools.score();
    const history = await session.history();
    expect(new Set(history.map(({ event }) => event.type))).toEqual(new Set(["action", "observation"]));
    expect(JSON.stringify(history)).not.toMatch(/"details"|"score":/);
  });
});
