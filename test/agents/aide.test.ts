import { describe, expect, test } from "vitest";
import type { RecordedRequest, Script } from "../../src/agents/models/testing/scripted-server.js";
import type { RunEvent } from "../../src/core/index.js";
import { call, FAST_ECHO, promptText } from "../helpers/model-script.js";
import { scaffoldRuns } from "../helpers/scaffold-runs.js";

const runs = scaffoldRuns("aide");

const solution = (plan: string, content: string, command?: string) =>
  call("write_solution", { plan, files: [{ path: "solution.py", content }], ...(command ? { command } : {}) });
const WRONG = "import sys\nprint(' '.join(sys.argv[1:]))\n";
const SLOWISH = `import time\ntime.sleep(0.05)\n${FAST_ECHO}`;

/** A model that answers each AIDE stage: a buggy first draft, a good second one, a fix, an improvement. */
function aideModel(): Script {
  let drafts = 0;
  const step = (request: RecordedRequest) => {
    const prompt = promptText(request);
    if (prompt.includes("Propose a new solution")) {
      drafts += 1;
      return drafts === 1 ? solution("echo the arguments", WRONG) : solution("accumulate in one pass", FAST_ECHO, "python3 solution.py 1 2 3");
    }
    if (prompt.includes("does not work")) return solution("print the sums, not the arguments", SLOWISH);
    if (prompt.includes("Improve the solution")) return solution("same, tidier", FAST_ECHO);
    throw new Error(`unexpected prompt: ${prompt.slice(0, 300)}`);
  };
  return [step, step, step, step, step, step];
}

const runAide = (script: Script, config: Record<string, unknown>, ...extra: string[]) => runs.run(script, "--agent-config", JSON.stringify(config), ...extra);

const notes = (events: RunEvent[]) => events.flatMap((e) => (e.type === "note" ? [e] : []));

describe("the aide scaffold on test_echo", () => {
  test("drafts, debugs a buggy leaf, improves the best node by the environment's score, stores its journal and submits", async () => {
    const { run, summary, events, log } = await runAide(aideModel(), { numDrafts: 2, debugProb: 1, maxSteps: 4, seed: 7, checkTimeoutSeconds: 30 });
    expect(summary).toMatchObject({ state: "finished", stopReason: "submitted" });
    const requests = runs.server.requests;
    expect(requests).toHaveLength(4);
    expect((requests[0]!.body as { tool_choice: unknown }).tool_choice).toEqual({ type: "function", name: "write_solution" });
    expect(promptText(requests[0]!)).toMatch(/--- solution\.py ---\n[\s\S]*time\.sleep\(1\.0\)/);
    // The debug prompt carries the scorer's verdict on the buggy draft; the improvement prompt the best node's score.
    expect(promptText(requests[2]!)).toMatch(
      /The solution to fix \(design 1\)[\s\S]*It did not work: invalid: the output is not the running sums[\s\S]*does not work/,
    );
    expect(promptText(requests[3]!)).toMatch(/Its score is -\d[\s\S]*Improve the solution/);
    expect(promptText(requests[3]!)).toMatch(/Memory \(earlier working designs\)[\s\S]*accumulate in one pass/);

    const journal = notes(events).find((n) => n.message === "aide: journal")!.data as {
      best: number;
      nodes: Array<{ id: number; parentId: number | null; stage: string; buggy: boolean; metric: number | null }>;
    };
    expect(journal.nodes.map((n) => [n.id, n.parentId, n.stage, n.buggy])).toEqual([
      [1, null, "draft", true],
      [2, null, "draft", false],
      [3, 1, "debug", false],
      [4, journal.nodes[3]!.parentId, "improve", false],
    ]);
    // The improved node's parent is the node with the best environment score so far.
    const [, second, third] = journal.nodes;
    expect(journal.nodes[3]!.parentId).toBe(second!.metric! <= third!.metric! ? 2 : 3);
    expect(notes(events).filter((n) => n.message.startsWith("aide: node "))).toHaveLength(4);
    const node2 = notes(events).find((n) => n.message.startsWith("aide: node 2"))!.data as { files: Record<string, string>; execution: string };
    expect(node2.files["solution.py"]).toBe(FAST_ECHO);
    expect(node2.execution).toMatch(/exit code 0\n--- stdout ---\n1 3 6/);
    // Metrics are the environment's own scores: start, four nodes, the final submission.
    expect(log).toHaveLength(6);
    expect(log.map((e) => e.outcome.kind)).toEqual(["scored", "invalid", "scored", "scored", "scored", "scored"]);
    const metrics = journal.nodes.filter((n) => !n.buggy).map((n) => n.metric);
    expect(metrics).toEqual(log.slice(2, 5).map((e) => (e.outcome.kind === "scored" ? e.outcome.value : null)));
    expect(events.find((e) => e.type === "submitted")).toMatchObject({ submission: expect.stringMatching(/^AIDE design [234]: /) });
    expect(run.normalizedScore!).toBeGreaterThan(0.3);
    expect(summary.usage.costUsd).toBeGreaterThan(0);
    expect(summary.usage.inputTokens).toBeGreaterThan(0);
  });

  test("on Anthropic with thinking: every step's prompt begins with the task and the workspace as a cached prefix, and the forced tool becomes a choice", async () => {
    // test_echo's task and workspace are short: the server caches from 256 tokens on (Anthropic's minimum is 1024 and up).
    const { summary, events } = await runs.runModel(
      { model: "anthropic:claude-sonnet-4-5-20250929", server: { minCacheTokens: 256 } },
      aideModel(),
      "--agent-config",
      JSON.stringify({ numDrafts: 2, debugProb: 1, maxSteps: 3, seed: 7, checkTimeoutSeconds: 30, thinkingBudget: 1024, workspaceChars: 8000 }),
    );
    expect(summary).toMatchObject({ state: "finished", stopReason: "submitted" });
    const requests = runs.server.requests;
    expect(requests.map((r) => r.status)).toEqual([200, 200, 200]);
    const mark = { type: "ephemeral", ttl: "5m" };
    type Body = {
      tools: Array<{ cache_control?: unknown }>;
      system: Array<{ cache_control?: unknown }>;
      messages: Array<{ content: Array<{ text: string; cache_control?: unknown }> }>;
      tool_choice: unknown;
    };
    for (const r of requests) {
      const body = r.body as Body;
      expect(body.tools.at(-1)?.cache_control).toEqual(mark);
      expect(body.system[0]?.cache_control).toEqual(mark);
      expect(body.messages[0]!.content[0]).toMatchObject({ cache_control: mark, text: expect.stringMatching(/^# Task[\s\S]*# Starting workspace/) });
      expect(body.messages[0]!.content[1]?.cache_control).toBeUndefined();
      expect(body.tool_choice).toEqual({ type: "auto" });
    }
    // The prefix is the same in every step: each step after the first reads it from the cache.
    const usage = requests.map((r) => (r.response as { usage: { cache_read_input_tokens: number; cache_creation_input_tokens: number } }).usage);
    expect(usage[0]!.cache_creation_input_tokens).toBeGreaterThan(0);
    expect(usage.slice(1).every((u) => u.cache_read_input_tokens === usage[0]!.cache_creation_input_tokens)).toBe(true);
    const warnings = events.flatMap((e) => (e.type === "generation" ? ((e.content as { warnings?: string[] }).warnings ?? []) : []));
    expect(warnings).toEqual(requests.map(() => expect.stringMatching(/no forced tool choice/)));
  });

  test("hidden scores: nodes are valid or not, the latest valid node is the best, and nothing shows a value", async () => {
    const { summary, events, log } = await runAide(aideModel(), { numDrafts: 2, debugProb: 0, maxSteps: 3, seed: 1 }, "--task", "hidden_score");
    expect(summary).toMatchObject({ state: "finished", stopReason: "submitted" });
    const journal = notes(events).find((n) => n.message === "aide: journal")!.data as {
      best: number;
      nodes: Array<{ stage: string; metric: number | null; parentId: number | null }>;
    };
    expect(journal.nodes.map((n) => n.metric)).toEqual([null, null, null]);
    expect(journal.nodes.map((n) => [n.stage, n.parentId])).toEqual([
      ["draft", null],
      ["draft", null],
      ["improve", 2],
    ]);
    expect(journal.best).toBe(3);
    expect(promptText(runs.server.requests[2]!)).toMatch(/valid \(the score is not shown for this task\)|It is valid \(the score is not shown/);
    expect(promptText(runs.server.requests[2]!)).toMatch(/Scores are not shown for this task/);
    const prompts = runs.server.requests.map(promptText).join("\n");
    for (const entry of log) if (entry.outcome.kind === "scored") expect(prompts).not.toContain(String(entry.outcome.value).slice(0, 8));
  });

  test("a time budget ends the search mid-generation; the run is still scored", async () => {
    const { summary, events } = await runAide([{ hang: true }], {}, "--time-limit", "2s");
    expect(summary).toMatchObject({ state: "finished", stopReason: "limit" });
    expect(events.find((e) => e.type === "run_finished")).toMatchObject({ limit: "workingSeconds" });
    expect(runs.server.requests[0]!.closedEarly).toBe(true);
    expect(events.flatMap((e) => (e.type === "score_logged" ? [e.trigger] : []))).toEqual(["start", "limit"]);
    expect(summary.finalRaw).not.toBeNull();
  });
});
