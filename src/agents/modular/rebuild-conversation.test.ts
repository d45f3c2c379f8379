import { afterEach, describe, expect, test } from "vitest";
import { type NewRunEvent, type RunEvent, StoredEvent } from "../../core/index.js";
import { createModelClient } from "../models/create-model-client.js";
import type { Message, ToolDefinition } from "../models/model-client.js";
import { type ScriptedServer, startScriptedServer } from "../models/testing/scripted-server.js";
import { SAVE_OUTPUT_MARKER } from "./modular-tools.js";
import { RESUMED_NOTE, rebuildConversation } from "./rebuild-conversation.js";

const ts = "2026-11-29T12:00:00.000Z";
const stored = (events: NewRunEvent[]): StoredEvent[] =>
  events.map((event, i) => ({ runId: "r0000000000000000", seq: i + 1, event: { ts, ...event } as RunEvent }));
const generation = (calls: Array<{ id: string; name: string; arguments: Record<string, unknown> }>) => ({
  type: "generation" as const,
  model: "openai:gpt-4o",
  inputTokens: 1,
  outputTokens: 1,
  costUsd: 0,
  content: { choices: [{ message: { role: "assistant", content: "", toolCalls: calls }, finishReason: "tool_calls", rawFinishReason: "tool_calls" }] },
});
const bashTool: ToolDefinition = { name: "bash", description: "Run a command.", parameters: { type: "object", properties: { command: { type: "string" } } } };
const command = { exitCode: 0, signal: null, timedOut: false, truncated: false, durationMs: 5, stdout: "hi\n", stderr: "", timeoutSeconds: 600 };

describe("rebuildConversation()", () => {
  test("answers each tool call with its observation, skips the scaffold's own saves, marks a call cut off by a crash", () => {
    const messages = rebuildConversation(
      stored([
        generation([{ id: "c1", name: "bash", arguments: { command: "echo hi" } }]),
        { type: "action", actionId: "a1", tool: "bash", input: { command: "echo hi" } },
        { type: "action", actionId: "a2", tool: "python", input: { code: `${SAVE_OUTPUT_MARKER}\nprint(1)` } },
        { type: "observation", actionId: "a2", tool: "python", output: command },
        { type: "observation", actionId: "a1", tool: "bash", output: command },
        generation([
          { id: "c2", name: "score", arguments: {} },
          { id: "c3", name: "bash", arguments: { command: "sleep 100" } },
        ]),
        { type: "action", actionId: "a3", tool: "score", input: {} },
        { type: "observation", actionId: "a3", tool: "score", output: { timestamp: ts, elapsedSeconds: 3, outcome: "scored", score: -2, message: {} } },
        { type: "action", actionId: "a4", tool: "bash", input: { command: "sleep 100" } },
        { type: "observation", actionId: "a4", tool: "bash", output: { interrupted: true, error: "the orchestrator stopped while this ran" } },
        generation([{ id: "c4", name: "score_log", arguments: {} }]),
      ]),
      "min",
      1000,
    );
    expect(messages.map((m) => (m.role === "tool" ? `${m.toolCallId}: ${m.content}` : m.role))).toEqual([
      "assistant",
      "c1: exit code 0\n--- stdout ---\nhi",
      "assistant",
      "c2: score -2 (lower is better)",
      "c3: interrupted: the orchestrator stopped while this ran",
      "assistant",
      "c4: interrupted: the run stopped before this call returned",
      "user",
    ]);
    expect(messages.at(-1)!.content).toBe(RESUMED_NOTE);
  });

  test("an empty history gives nothing to add", () => {
    expect(rebuildConversation([], "min", 1000)).toEqual([]);
  });
});

describe("a conversation rebuilt after a restart sends the model's reasoning back as it was issued", () => {
  let server: ScriptedServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  const cases = [
    { model: "openai:o3", protocol: "openai" as const, extra: { reasoningEffort: "medium" as const } },
    { model: "anthropic:claude-sonnet-4-5-20250929", protocol: "anthropic" as const, extra: { thinking: { budgetTokens: 1024 }, maxTokens: 4096 } },
  ];
  test.each(cases)("$model", async ({ model, protocol, extra }) => {
    server = await startScriptedServer(protocol, [
      { reply: { reasoning: "List the files first.", toolCalls: [{ name: "bash", arguments: { command: "echo hi" } }] } },
      { reply: { text: "Resumed." } },
    ]);
    const client = createModelClient(model, { env: {}, apiKey: "k", baseUrl: server.baseUrl });
    const head: Message[] = [
      { role: "system", content: "You are an agent." },
      { role: "user", content: "Do the task." },
    ];
    const result = await client.generate({ messages: head, tools: [bashTool], ...extra });
    const call = result.choices[0]!.message.toolCalls![0]!;
    // What the store keeps of the run, read back: events through their schema, as JSON.
    const history = stored([
      { type: "generation", model, inputTokens: 1, outputTokens: 1, costUsd: 0, content: JSON.parse(JSON.stringify({ choices: result.choices })) },
      { type: "action", actionId: "a1", tool: "bash", input: { command: "echo hi" } },
      { type: "observation", actionId: "a1", tool: "bash", output: command },
    ]).map((e) => StoredEvent.parse(JSON.parse(JSON.stringify(e))));
    const rebuilt = rebuildConversation(history, "min", 1000);
    expect(rebuilt.map((m) => m.role)).toEqual(["assistant", "tool", "user"]);
    expect(rebuilt[1]).toMatchObject({ toolCallId: call.id });
    const next = await client.generate({ messages: [...head, ...rebuilt], tools: [bashTool], ...extra });
    expect(next.choices[0]?.message.content).toBe("Resumed.");
    expect(server.requests[1]?.status).toBe(200);
    const raw = JSON.stringify(result.choices[0]!.message.reasoning![0]!.raw).slice(1, -1);
    expect(JSON.stringify(server.requests[1]?.body)).toContain(raw);
  });
});
