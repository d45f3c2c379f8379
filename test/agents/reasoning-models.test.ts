import { describe, expect, test } from "vitest";
import type { RunEvent } from "../../src/core/index.js";
import { rebench } from "../helpers/cli.js";
import { FAST_ECHO } from "../helpers/model-script.js";
import { scaffoldRuns } from "../helpers/scaffold-runs.js";

const runs = scaffoldRuns("modular");

/** A modular run's steps, each with the reasoning the model had before it. */
const THOUGHTS = [
  "The baseline may be slow; read it first.",
  "It sleeps: rewrite it with accumulate.",
  "Measure the new version.",
  "The score is good; submit.",
];
const script = [
  { reply: { reasoning: THOUGHTS[0], toolCalls: [{ name: "bash", arguments: { command: "cat solution.py" } }] } },
  { reply: { reasoning: THOUGHTS[1], toolCalls: [{ name: "bash", arguments: { command: `cat > solution.py <<'PY'\n${FAST_ECHO}PY` } }] } },
  { reply: { reasoning: THOUGHTS[2], toolCalls: [{ name: "score", arguments: {} }] } },
  { reply: { reasoning: THOUGHTS[3], toolCalls: [{ name: "submit", arguments: { submission: "accumulate in one pass" } }] } },
];

type Generation = Extract<RunEvent, { type: "generation" }>;
type StoredMessage = { reasoning?: Array<{ provider: string; text: string }> };
const generationsOf = (events: RunEvent[]): Generation[] => events.filter((e): e is Generation => e.type === "generation");
const storedThoughts = (g: Generation) =>
  ((g.content as { choices: Array<{ message: StoredMessage }> }).choices[0]!.message.reasoning ?? []).map((r) => r.text);

describe("reasoning models end to end (rebench run against the scripted servers)", () => {
  test("openai:o3 through the Responses API: effort set, reasoning carried encrypted to every later turn, summaries stored, costs split by kind", async () => {
    const { summary, events, run } = await runs.runModel("openai:o3", script, "--agent-config", JSON.stringify({ reasoningEffort: "high" }));
    expect(summary).toMatchObject({ state: "finished", stopReason: "submitted" });
    expect(summary.spec.participant.alias).toBe("o3 (modular)");
    const requests = runs.server.requests;
    expect(requests.map((r) => [r.path, r.status])).toEqual(requests.map(() => ["/v1/responses", 200]));
    for (const r of requests) {
      expect(r.body).toMatchObject({ model: "o3", store: false, include: ["reasoning.encrypted_content"], reasoning: { effort: "high", summary: "auto" } });
      expect(r.body).not.toHaveProperty("temperature");
    }
    // Each request sends back, in place, the reasoning of every earlier reply, exactly as the server issued it.
    const issued = requests.map(
      (r) => (r.response as { output: Array<{ type: string; encrypted_content?: string }> }).output.find((i) => i.type === "reasoning")!.encrypted_content,
    );
    requests.forEach((r, k) => {
      const sent = (r.body as { input: Array<{ type?: string; encrypted_content?: string }> }).input
        .filter((i) => i.type === "reasoning")
        .map((i) => i.encrypted_content);
      expect(sent).toEqual(issued.slice(0, k));
    });
    const generations = generationsOf(events);
    expect(generations.map(storedThoughts)).toEqual(THOUGHTS.map((t) => [t]));
    expect(generations.every((g) => (g.reasoningTokens ?? 0) > 0 && g.outputTokens > g.reasoningTokens!)).toBe(true);
    expect(summary.usage.reasoningTokens).toBe(generations.reduce((s, g) => s + g.reasoningTokens!, 0));
    // By hand from what the server reported: o3 is $2 per million input, $0.50 cached input, $8 output (reasoning included).
    const reported = requests.map(
      (r) => (r.response as { usage: { input_tokens: number; input_tokens_details: { cached_tokens: number }; output_tokens: number } }).usage,
    );
    const hand = reported.reduce(
      (s, u) => s + ((u.input_tokens - u.input_tokens_details.cached_tokens) * 2 + u.input_tokens_details.cached_tokens * 0.5 + u.output_tokens * 8) / 1e6,
      0,
    );
    expect(run.costUsd).toBeCloseTo(hand, 12);
    expect(summary.usage.outputTokens).toBe(reported.reduce((s, u) => s + u.output_tokens, 0));

    const shown = await rebench("runs", "show", run.runId, "--db", runs.db);
    expect(shown.stdout).toMatch(/tokens: +\d[\d,]* input, [\d,]+ cache read, [\d,]+ cache write, [\d,]+ output \(\d[\d,]* reasoning\)/);
    expect(shown.stdout).toMatch(/cost: +\$\d+\.\d{4} \(input \$[\d.]+, cache read \$[\d.]+, cache write \$[\d.]+, output \$[\d.]+\)/);
  });

  test("anthropic with extended thinking: the budget is sent, signed thinking goes back unchanged, thinking is stored, costs split by kind", async () => {
    const { summary, events, run } = await runs.runModel(
      "anthropic:claude-sonnet-4-5-20250929",
      script,
      "--agent-config",
      JSON.stringify({ thinkingBudget: 2048, maxTokens: 8192 }),
    );
    expect(summary).toMatchObject({ state: "finished", stopReason: "submitted" });
    const requests = runs.server.requests;
    expect(requests.map((r) => r.status)).toEqual(requests.map(() => 200));
    for (const r of requests) {
      expect(r.body).toMatchObject({ max_tokens: 8192, thinking: { type: "enabled", budget_tokens: 2048 } });
      expect(r.body).not.toHaveProperty("temperature");
    }
    type Block = { type: string; thinking?: string; signature?: string };
    const issued = requests.map((r) => (r.response as { content: Block[] }).content.find((b) => b.type === "thinking")!);
    requests.forEach((r, k) => {
      const assistant = (r.body as { messages: Array<{ role: string; content: Block[] }> }).messages.filter((m) => m.role === "assistant");
      // Each earlier reply goes back starting with its thinking block, signature and all.
      expect(assistant.map((m) => m.content[0])).toEqual(issued.slice(0, k));
    });
    const generations = generationsOf(events);
    expect(generations.map(storedThoughts)).toEqual(THOUGHTS.map((t) => [t]));
    // By hand: claude-sonnet-4-5 is $3 input, $0.30 cache reads, $3.75 cache writes (5 minutes), $15 output per million.
    type Usage = {
      input_tokens: number;
      cache_read_input_tokens: number;
      cache_creation_input_tokens: number;
      output_tokens: number;
      output_tokens_details: { thinking_tokens: number };
    };
    const reported = requests.map((r) => (r.response as { usage: Usage }).usage);
    const hand = reported.reduce(
      (s, u) => s + (u.input_tokens * 3 + u.cache_read_input_tokens * 0.3 + u.cache_creation_input_tokens * 3.75 + u.output_tokens * 15) / 1e6,
      0,
    );
    expect(run.costUsd).toBeCloseTo(hand, 12);
    expect(summary.usage).toMatchObject({
      inputTokens: reported.reduce((s, u) => s + u.input_tokens, 0),
      cacheReadTokens: reported.reduce((s, u) => s + u.cache_read_input_tokens, 0),
      cacheWriteTokens: reported.reduce((s, u) => s + u.cache_creation_input_tokens, 0),
      reasoningTokens: reported.reduce((s, u) => s + u.output_tokens_details.thinking_tokens, 0),
    });
    expect(summary.usage.reasoningTokens).toBeGreaterThan(0);
  });
});
