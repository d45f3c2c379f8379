import { describe, expect, test } from "vitest";
import type { RecordedRequest, ScriptStep } from "../../src/agents/models/testing/scripted-server.js";
import { scaffoldRuns } from "../helpers/scaffold-runs.js";

const runs = scaffoldRuns("modular");

const TURNS = 200;

/** Turn i (0-based): a thought, then a bash call; the last turn submits. */
function turn(request: RecordedRequest): ScriptStep {
  const i = request.index;
  if (i === TURNS - 1)
    return { reply: { reasoning: "Enough measurements: submit.", toolCalls: [{ name: "submit", arguments: { submission: "the starting solution" } }] } };
  return {
    reply: { reasoning: `Step ${i}: look at one more thing.`, toolCalls: [{ name: "bash", arguments: { command: `echo "step ${i}: $(( ${i} * ${i} ))"` } }] },
  };
}

type Reported = {
  input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
  cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
  output_tokens: number;
};

describe("prompt caching over a long modular conversation", () => {
  test(`${TURNS} turns against the scripted Anthropic server: the growing prefix is read from the cache, and the run's dollars match a hand computation to the cent`, {
    timeout: 600_000,
  }, async () => {
    const script = Array.from({ length: TURNS }, () => turn);
    const { summary, run } = await runs.runModel(
      "anthropic:claude-sonnet-4-5-20250929",
      script,
      "--agent-config",
      JSON.stringify({ thinkingBudget: 1024, maxTokens: 4096, promptCache: "1h" }),
      "--time-limit",
      "2h",
    );
    expect(summary).toMatchObject({ state: "finished", stopReason: "submitted" });
    const requests = runs.server.requests;
    expect(requests).toHaveLength(TURNS);
    expect(requests.every((r) => r.status === 200)).toBe(true);
    const usage = requests.map((r) => (r.response as { usage: Reported }).usage);

    // The prompt is cached once it is long enough (1024 tokens); from then on every request reads what the
    // one before wrote, writes only its own new turn, and sends nothing uncached (its end is a breakpoint).
    const first = usage.findIndex((u) => u.cache_creation_input_tokens > 0);
    expect(first).toBeGreaterThan(0);
    expect(first).toBeLessThan(5);
    expect(usage.slice(0, first).every((u) => u.cache_read_input_tokens === 0)).toBe(true);
    for (let k = first + 1; k < TURNS; k++) {
      expect(usage[k]!.cache_read_input_tokens).toBe(usage[k - 1]!.cache_read_input_tokens + usage[k - 1]!.cache_creation_input_tokens);
      expect(usage[k]!.cache_creation_input_tokens).toBeGreaterThan(0);
      expect(usage[k]!.cache_creation_input_tokens).toBeLessThan(400);
      expect(usage[k]!.input_tokens).toBe(0);
    }
    // Everything is written for an hour (promptCache "1h").
    expect(usage.every((u) => u.cache_creation.ephemeral_5m_input_tokens === 0)).toBe(true);

    // By hand, from what the server reported, at claude-sonnet-4-5's list prices per million tokens:
    // $3 input, $0.30 cache reads, $3.75 5-minute and $6 1-hour cache writes, $15 output (thinking included).
    const sum = (pick: (u: Reported) => number) => usage.reduce((s, u) => s + pick(u), 0);
    const input = sum((u) => u.input_tokens);
    const read = sum((u) => u.cache_read_input_tokens);
    const written5m = sum((u) => u.cache_creation.ephemeral_5m_input_tokens);
    const written1h = sum((u) => u.cache_creation.ephemeral_1h_input_tokens);
    const output = sum((u) => u.output_tokens);
    const dollars = (input * 3 + read * 0.3 + written5m * 3.75 + written1h * 6 + output * 15) / 1e6;
    expect(summary.usage.costUsd.toFixed(2)).toBe(dollars.toFixed(2));
    expect(summary.usage.costUsd).toBeCloseTo(dollars, 9);
    expect(run.costUsd).toBeCloseTo(dollars, 9);
    expect(summary.usage).toMatchObject({
      inputTokens: input,
      cacheReadTokens: read,
      cacheWriteTokens: written5m + written1h,
      cacheWrite1hTokens: written1h,
      outputTokens: output,
    });
    expect(summary.usage.costByKind!.cacheRead).toBeCloseTo((read * 0.3) / 1e6, 9);

    // Charging every input token at the full price, as rebench once did, would have cost several times as much.
    const uncached = ((input + read + written5m + written1h) * 3 + output * 15) / 1e6;
    expect(uncached / dollars).toBeGreaterThan(4);
  });
});
