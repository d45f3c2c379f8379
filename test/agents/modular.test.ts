import path from "node:path";
import { describe, expect, test } from "vitest";
import type { Script } from "../../src/agents/models/testing/scripted-server.js";
import { budgetTokens, type RunEvent } from "../../src/core/index.js";
import { SqliteRunStore } from "../../src/store/index.js";
import { rebench } from "../helpers/cli.js";
import { call, FAST_ECHO, lastToolResult, promptText, say } from "../helpers/model-script.js";
import { TEST_BACKEND } from "../helpers/register-fixtures.js";
import { scaffoldRuns } from "../helpers/scaffold-runs.js";

const runs = scaffoldRuns("modular");
const { root, db } = runs;
const runModular = (script: Script, ...extra: string[]) => runs.run(script, ...extra);

describe("the modular scaffold on test_echo", () => {
  test("calls the tools, logs scores, saves a long output to a file, records tokens and cost, and submits", async () => {
    const { run, summary, events, log, out } = await runModular([
      call("bash", { command: "cat solution.py" }),
      call("bash", { command: `cat > solution.py <<'PY'\n${FAST_ECHO}PY` }),
      call("score", {}),
      call("python", { code: "print('x' * 30000)" }),
      call("score_log", {}),
      say("Thinking about what to do next."),
      call("submit", { submission: "one pass with itertools.accumulate" }),
    ]);
    const requests = runs.server.requests;
    expect(requests).toHaveLength(7);
    expect(promptText(requests[0]!)).toMatch(/Make solution.py in your workspace fast[\s\S]*30 minutes of working time/);
    expect(lastToolResult(requests[1]!)).toMatch(/^exit code 0\n--- stdout ---\n[\s\S]*time\.sleep\(1\.0\)/);
    expect(lastToolResult(requests[3]!)).toMatch(/^score -\d+(\.\d+)? \(lower is better\) {2}\{"seconds":/);
    const long = lastToolResult(requests[4]!);
    expect(long.length).toBeLessThan(11_000);
    expect(long).toMatch(/\[\.\.\. \d+ characters left out; the whole output is in \S+\/\.outputs\/output-\w+\.txt \.\.\.\]/);
    expect(lastToolResult(requests[5]!)).toMatch(/^1\. at 0 s: score [\s\S]*\n2\. at \d+ s: score/);
    expect(promptText(requests[6]!)).toMatch(/No tool was called/);

    const actions = events.flatMap((e) => (e.type === "action" ? [e.tool] : []));
    expect(actions).toEqual(["bash", "bash", "score", "python", "python", "score_log", "submit"]);
    const generations = events.filter((e) => e.type === "generation");
    expect(generations).toHaveLength(7);
    const sum = (pick: (g: Extract<RunEvent, { type: "generation" }>) => number) =>
      generations.reduce((s, g) => s + (g.type === "generation" ? pick(g) : 0), 0);
    const tokens = sum((g) => g.inputTokens + (g.cacheReadTokens ?? 0) + (g.cacheWriteTokens ?? 0) + g.outputTokens);
    expect(budgetTokens(summary.usage)).toBe(tokens);
    expect(run.tokens).toBe(tokens);
    // The prompt grows by a turn each time: from the second long prompt on, OpenAI reads its prefix from the cache.
    expect(summary.usage.cacheReadTokens).toBe(sum((g) => g.cacheReadTokens ?? 0));
    expect(summary.usage.cacheReadTokens).toBeGreaterThan(0);
    // gpt-4o: $2.50 input, $1.25 cached input, $10 output per million tokens.
    expect(run.costUsd).toBeCloseTo((summary.usage.inputTokens * 2.5 + summary.usage.cacheReadTokens * 1.25 + summary.usage.outputTokens * 10) / 1e6, 10);
    expect(generations[0]).toMatchObject({ model: "openai:gpt-4o" });
    expect(log.map((e) => e.outcome.kind)).toEqual(["scored", "scored", "scored"]);
    expect(summary).toMatchObject({ state: "finished", stopReason: "submitted" });
    expect(run.rawScore).toBe(Math.min(...log.map((e) => (e.outcome.kind === "scored" ? e.outcome.value : Infinity))));
    expect(run.normalizedScore!).toBeGreaterThan(0.3);
    expect(out.stderr).toMatch(/run r\w+ finished \(submitted\): raw -?\d/);
  });

  test("speaks Anthropic's protocol too: tool results, errors and nudges in alternating turns", async () => {
    const { summary, events } = await runs.runOn("anthropic", [
      call("bash", { command: "exit 3" }),
      say("Let me think."),
      call("bash", { command: `cat > solution.py <<'PY'\n${FAST_ECHO}PY` }),
      call("submit", { submission: "done" }),
    ]);
    expect(summary).toMatchObject({ state: "finished", stopReason: "submitted" });
    const body = runs.server.requests[1]!.body as { messages: Array<{ role: string; content: Array<{ type: string; is_error?: boolean; content?: string }> }> };
    const result = body.messages.at(-1)!.content.find((b) => b.type === "tool_result")!;
    expect(result).toMatchObject({ is_error: true, content: "exit code 3\n(no output)" });
    expect(events.filter((e) => e.type === "generation")[0]).toMatchObject({ model: expect.stringMatching(/^anthropic:/) });
    expect(summary.usage.costUsd).toBeGreaterThan(0);
    expect(summary.normalized!).toBeGreaterThan(0.3);
  });

  test("a token budget stops the run after the generation that crosses it, and the run is still scored", async () => {
    const usage = { inputTokens: 300, outputTokens: 100 };
    const { summary, events, log } = await runModular(
      [call("bash", { command: "echo one" }, usage), call("bash", { command: "echo two" }, usage), call("bash", { command: "echo three" }, usage)],
      "--tokens",
      "500",
    );
    expect(summary).toMatchObject({ state: "finished", stopReason: "limit", usage: { inputTokens: 600, outputTokens: 200 } });
    expect(events.find((e) => e.type === "run_finished")).toMatchObject({ limit: "tokens" });
    expect(events.flatMap((e) => (e.type === "action" ? [e.tool] : []))).toEqual(["bash"]);
    expect(events.flatMap((e) => (e.type === "score_logged" ? [e.trigger] : []))).toEqual(["start", "limit"]);
    expect(summary.finalRaw).toBe(Math.min(...log.map((e) => (e.outcome.kind === "scored" ? e.outcome.value : Infinity))));
    expect(runs.server.remaining()).toBe(1);
  });

  test("a working-time budget cuts a long command, stops the run and scores it; a retry wait is a pause, not working time", async () => {
    const { summary, events } = await runModular(
      [{ error: { status: 429, retryAfter: 1 } }, call("bash", { command: "sleep 30", timeout: 120 }), call("bash", { command: "echo never" })],
      "--time-limit",
      "3s",
    );
    expect(summary).toMatchObject({ state: "finished", stopReason: "limit" });
    expect(events.find((e) => e.type === "run_finished")).toMatchObject({ limit: "workingSeconds" });
    const observation = events.find((e) => e.type === "observation" && e.tool === "bash");
    expect(observation).toMatchObject({ output: { timedOut: true } });
    expect((observation as { output: { timeoutSeconds: number } }).output.timeoutSeconds).toBeLessThanOrEqual(3);
    const pauses = events.flatMap((e) => (e.type === "pause_started" || e.type === "pause_ended" ? [`${e.type}:${e.reason}`] : []));
    expect(pauses.slice(0, 2)).toEqual(["pause_started:model_retry", "pause_ended:model_retry"]);
    expect(summary.usage.pausedSeconds).toBeGreaterThanOrEqual(0.9);
    expect(events.flatMap((e) => (e.type === "score_logged" ? [e.trigger] : []))).toEqual(["start", "limit"]);
    expect(summary.finalRaw).not.toBeNull();
  });

  test("keeps the task and the latest turns when the history outgrows the context window", async () => {
    const big = (n: number) => call("bash", { command: `python3 -c "print('${n}' * 2500)"` });
    const { summary } = await runModular(
      [big(1), big(2), big(3), big(4), big(5), call("submit", { submission: "done" })],
      "--agent-config",
      JSON.stringify({ contextWindow: 4000, maxTokens: 500, outputLimitChars: 3000 }),
    );
    expect(summary).toMatchObject({ state: "finished", stopReason: "submitted" });
    const last = runs.server.requests.at(-1)!;
    const text = promptText(last);
    expect(text).toMatch(/Make solution.py in your workspace fast/);
    expect(text).toMatch(/earlier turn\(s\) of this conversation were left out/);
    expect(text).toContain("5".repeat(100));
    expect(text).not.toContain("1".repeat(100));
  });

  test("without --model, with a key missing or a misspelt setting, nothing is started", async () => {
    const noModel = await rebench("run", "test_echo", "--variant", "mini", "--agent", "aide", "--backend", TEST_BACKEND, "--db", db);
    expect(noModel.code).toBe(2);
    expect(noModel.stderr).toMatch(/needs --model/);
    const noKey = await rebench(
      "run",
      "test_echo",
      "--variant",
      "mini",
      "--agent",
      "modular",
      "--model",
      "compat:http://127.0.0.1:9/v1#m;key=REBENCH_TEST_NO_SUCH_KEY",
      "--backend",
      TEST_BACKEND,
      "--db",
      path.join(root, "empty.db"),
    );
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toMatch(/REBENCH_TEST_NO_SUCH_KEY is not set/);
    const typo = await rebench(
      "run",
      "test_echo",
      "--variant",
      "mini",
      "--agent",
      "modular",
      "--model",
      "openai:gpt-4o",
      "--agent-config",
      '{"maxToken": 5}',
      "--backend",
      TEST_BACKEND,
      "--db",
      path.join(root, "empty.db"),
    );
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/settings of the modular scaffold[\s\S]*maxToken/);
    const store = SqliteRunStore.open(path.join(root, "empty.db"));
    expect(await store.listRuns()).toHaveLength(0);
    await store.close();
  });
});
