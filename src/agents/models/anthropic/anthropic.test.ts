import { afterEach, describe, expect, test } from "vitest";
import { modelClientContract } from "../client.contract.js";
import { createModelClient } from "../create-model-client.js";
import { type ScriptedServer, startScriptedServer } from "../testing/scripted-server.js";

modelClientContract("anthropic", {
  provider: "anthropic",
  protocol: "anthropic",
  nativeN: false,
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
  const clientAt = (s: ScriptedServer) =>
    createModelClient("anthropic:claude-sonnet-4-20250514", { env: {}, apiKey: "k", baseUrl: s.baseUrl });

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
    const body = server.requests[0]?.body as { system: string; messages: { role: string; content: unknown[] }[]; max_tokens: number };
    expect(server.requests[0]?.status).toBe(200);
    expect(body.system).toBe("Be brief.\n\nUse tools.");
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

  test("cache tokens count as input; thinking blocks are passed over; temperature above 1 is clamped with a warning", async () => {
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
              { type: "text", text: "Answer." },
            ],
            stop_reason: "max_tokens",
            usage: { input_tokens: 10, output_tokens: 7, cache_creation_input_tokens: 100, cache_read_input_tokens: 1000 },
          },
        },
      },
    ]);
    const result = await clientAt(server).generate({ messages: [{ role: "user", content: "x" }], temperature: 1.5 });
    expect(result.usage).toEqual({ inputTokens: 1110, outputTokens: 7 });
    expect(result.costUsd).toBeCloseTo((1110 * 3 + 7 * 15) / 1e6, 12);
    expect(result.choices[0]).toMatchObject({ message: { content: "Answer." }, finishReason: "length", rawFinishReason: "max_tokens" });
    expect(result.warnings).toEqual([expect.stringMatching(/temperature 0..1/)]);
    expect((server.requests[0]?.body as { temperature: number }).temperature).toBe(1);
  });

  test("toolChoice required becomes `any` and a named tool becomes `tool`", async () => {
    server = await startScriptedServer("anthropic", [{ reply: { text: "a" } }, { reply: { text: "b" } }]);
    const tools = [{ name: "submit", description: "Submit.", parameters: { type: "object" } }];
    const messages = [{ role: "user" as const, content: "x" }];
    await clientAt(server).generate({ messages, tools, toolChoice: "required" });
    await clientAt(server).generate({ messages, tools, toolChoice: { name: "submit" } });
    expect(server.requests.map((r) => (r.body as { tool_choice: unknown }).tool_choice)).toEqual([
      { type: "any" },
      { type: "tool", name: "submit" },
    ]);
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
    await expect(clientAt(server).generate({ messages: [{ role: "user", content: "x" }] })).rejects.toThrow(
      /malformed tool_use block \(content.0\)/,
    );
  });
});
