import { afterEach, describe, expect, test } from "vitest";
import { modelClientContract } from "../client.contract.js";
import { createModelClient } from "../create-model-client.js";
import type { ModelPause } from "../model-client.js";
import { type ScriptedServer, startScriptedServer } from "../testing/scripted-server.js";

modelClientContract("anthropic", {
  provider: "anthropic",
  protocol: "anthropic",
  nativeN: false,
  sends: { temperature: false, stop: true },
  reasoning: { request: { thinking: { budgetTokens: 2048 } }, sentBack: true },
  caches: true,
  streams: true,
  client: (baseUrl, options) => createModelClient("anthropic:test-model", { env: {}, baseUrl, ...options }),
  withoutKey: {
    make: () => createModelClient("anthropic:claude-sonnet-4-20250514", { env: { OPENAI_API_KEY: "not this one" } }),
    variable: "ANTHROPIC_API_KEY",
  },
});

describe("Anthropic messages specifics", () => {
  let server: ScriptedServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  const clientAt = (s: ScriptedServer) => createModelClient("anthropic:claude-sonnet-4-20250514", { env: {}, apiKey: "k", baseUrl: s.baseUrl });

  test("system messages go to `system`, tool results to user turns, and same-role turns are merged", async () => {
    server = await startScriptedServer("anthropic", [{ reply: { text: "ok" } }]);
    await clientAt(server).generate({
      messages: [
        { role: "system", content: "Be brief." },
        { role: "system", content: "Use tools." },
        { role: "user", content: "Run two things." },
        {
          role: "assistant",
          content: "",
          toolCalls: [
            { id: "t1", name: "bash", arguments: { command: "a" } },
            { id: "t2", name: "bash", arguments: { command: "b" } },
          ],
        },
        { role: "tool", toolCallId: "t1", content: "out a" },
        { role: "tool", toolCallId: "t2", content: "failed", isError: true },
        { role: "user", content: "Budget: 10 minutes left." },
      ],
    });
    const body = server.requests[0]?.body as { system: unknown; messages: { role: string; content: unknown[] }[]; max_tokens: number };
    expect(server.requests[0]?.status).toBe(200);
    expect(body.system).toEqual([{ type: "text", text: "Be brief.\n\nUse tools." }]);
    expect(body.max_tokens).toBe(4096);
    expect(body.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(body.messages[1]?.content).toEqual([
      { type: "tool_use", id: "t1", name: "bash", input: { command: "a" } },
      { type: "tool_use", id: "t2", name: "bash", input: { command: "b" } },
    ]);
    expect(body.messages[2]?.content).toEqual([
      { type: "tool_result", tool_use_id: "t1", content: "out a" },
      { type: "tool_result", tool_use_id: "t2", content: "failed", is_error: true },
      { type: "text", text: "Budget: 10 minutes left." },
    ]);
  });

  test("the scripted server refuses what the real API refuses (an unanswered tool_use)", async () => {
    server = await startScriptedServer("anthropic", [{ reply: { text: "never" } }]);
    const failure = clientAt(server).generate({
      messages: [
        { role: "user", content: "go" },
        { role: "assistant", content: "", toolCalls: [{ id: "t1", name: "bash", arguments: {} }] },
        { role: "user", content: "and?" },
      ],
    });
    await expect(failure).rejects.toThrow(/HTTP 400[\s\S]*t1 not answered/);
  });

  test("usage splits cache reads, writes by TTL and thinking; thinking blocks are kept with their signatures; a temperature is not sent", async () => {
    server = await startScriptedServer("anthropic", [
      {
        raw: {
          body: {
            id: "msg_1",
            type: "message",
            role: "assistant",
            model: "claude-sonnet-4-20250514",
            content: [
              { type: "thinking", thinking: "hmm", signature: "x" },
              { type: "redacted_thinking", data: "opaque" },
              { type: "text", text: "Answer.", citations: null },
            ],
            stop_reason: "max_tokens",
            usage: {
              input_tokens: 10,
              output_tokens: 7,
              cache_creation_input_tokens: 100,
              cache_read_input_tokens: 1000,
              cache_creation: { ephemeral_5m_input_tokens: 40, ephemeral_1h_input_tokens: 60 },
              output_tokens_details: { thinking_tokens: 5 },
            },
          },
        },
      },
    ]);
    const result = await clientAt(server).generate({ messages: [{ role: "user", content: "x" }], temperature: 0.5 });
    expect(result.usage).toEqual({
      inputTokens: 10,
      cacheReadTokens: 1000,
      cacheWriteTokens: 100,
      cacheWrite1hTokens: 60,
      outputTokens: 7,
      reasoningTokens: 5,
    });
    // claude-sonnet-4: $3 input, $0.30 cache reads, $3.75 5-minute writes, $6 1-hour writes, $15 output per million.
    expect(result.costUsd).toBeCloseTo((10 * 3 + 1000 * 0.3 + 40 * 3.75 + 60 * 6 + 7 * 15) / 1e6, 12);
    const message = result.choices[0]!.message;
    expect(message.content).toBe("Answer.");
    expect(message.reasoning).toEqual([
      { provider: "anthropic", text: "hmm", raw: { type: "thinking", thinking: "hmm", signature: "x" } },
      { provider: "anthropic", text: "", raw: { type: "redacted_thinking", data: "opaque" } },
    ]);
    expect(result.choices[0]).toMatchObject({ finishReason: "length", rawFinishReason: "max_tokens" });
    expect(result.warnings).toEqual([expect.stringMatching(/takes no temperature/)]);
    expect((server.requests[0]!.body as { temperature?: number }).temperature).toBeUndefined();
  });

  test("with thinking on, a forced tool choice becomes auto with a warning, and a budget at or above maxTokens is refused before sending", async () => {
    server = await startScriptedServer("anthropic", [{ reply: { reasoning: "I will submit.", toolCalls: [{ name: "submit", arguments: {} }] } }]);
    const tools = [{ name: "submit", description: "Submit.", parameters: { type: "object" } }];
    const messages = [{ role: "user" as const, content: "x" }];
    const result = await clientAt(server).generate({ messages, tools, toolChoice: { name: "submit" }, thinking: { budgetTokens: 1024 }, maxTokens: 4096 });
    expect(result.warnings.join("\n")).toMatch(/no forced tool choice/);
    expect(server.requests[0]?.body).toMatchObject({ tool_choice: { type: "auto" }, thinking: { type: "enabled", budget_tokens: 1024 } });
    await expect(clientAt(server).generate({ messages, thinking: { budgetTokens: 4096 }, maxTokens: 4096 })).rejects.toThrow(
      /thinking budget \(4096 tokens\) must be below maxTokens/,
    );
    expect(server.requests).toHaveLength(1);
  });

  test("the scripted server refuses what API version 2026-10-21 refuses: a temperature, and a tool loop without its thinking", async () => {
    server = await startScriptedServer("anthropic", [{ reply: { text: "never" } }]);
    const post = (body: unknown) =>
      fetch(`${server!.baseUrl}/messages`, {
        method: "POST",
        headers: { "content-type": "application/json", "anthropic-version": "2026-10-21", "x-api-key": "k" },
        body: JSON.stringify(body),
      });
    const base = { model: "m", max_tokens: 4096, messages: [{ role: "user", content: "hi" }] };
    expect(await (await post({ ...base, temperature: 1 })).text()).toMatch(/temperature: Extra inputs are not permitted/);
    const loop = {
      ...base,
      thinking: { type: "enabled", budget_tokens: 1024 },
      messages: [
        { role: "user", content: "hi" },
        { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "bash", input: {} }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "ok" }] },
      ],
    };
    expect(await (await post(loop)).text()).toMatch(/must start with a thinking block/);
    expect(server.remaining()).toBe(1);
  });

  test("replies are streamed, and a stream that goes quiet is cut and retried as a pause", async () => {
    server = await startScriptedServer("anthropic", [{ stall: true }, { reply: { text: "after the stall" } }]);
    const pauses: ModelPause[] = [];
    const client = createModelClient("anthropic:claude-sonnet-4-20250514", {
      env: {},
      apiKey: "k",
      baseUrl: server.baseUrl,
      timeoutMs: 300,
      retry: { baseDelayMs: 1 },
    });
    const result = await client.generate({ messages: [{ role: "user", content: "x" }] }, { onPause: (p) => pauses.push(p) });
    expect(result.choices[0]?.message.content).toBe("after the stall");
    expect(server.requests.map((r) => (r.body as { stream?: boolean }).stream)).toEqual([true, true]);
    expect(pauses.map((p) => p.error)).toEqual([expect.stringMatching(/anthropic sent nothing for 0.3 s in the middle of a reply/)]);
    expect(server.requests[0]?.closedEarly).toBe(true);
  });

  test("toolChoice required becomes `any` and a named tool becomes `tool`", async () => {
    server = await startScriptedServer("anthropic", [{ reply: { text: "a" } }, { reply: { text: "b" } }]);
    const tools = [{ name: "submit", description: "Submit.", parameters: { type: "object" } }];
    const messages = [{ role: "user" as const, content: "x" }];
    await clientAt(server).generate({ messages, tools, toolChoice: "required" });
    await clientAt(server).generate({ messages, tools, toolChoice: { name: "submit" } });
    expect(server.requests.map((r) => (r.body as { tool_choice: unknown }).tool_choice)).toEqual([{ type: "any" }, { type: "tool", name: "submit" }]);
  });

  test("a malformed tool_use block is a clear error", async () => {
    server = await startScriptedServer("anthropic", [
      {
        raw: {
          body: {
            id: "m",
            role: "assistant",
            model: "x",
            content: [{ type: "tool_use", id: "t", name: "bash", input: "not an object" }],
            stop_reason: "tool_use",
            usage: { input_tokens: 1, output_tokens: 1 },
          },
        },
      },
    ]);
    await expect(clientAt(server).generate({ messages: [{ role: "user", content: "x" }] })).rejects.toThrow(/malformed tool_use block \(content.0\)/);
  });
});
