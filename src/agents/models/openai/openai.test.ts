import { afterEach, describe, expect, test } from "vitest";
import { ZERO_TOKENS } from "../../../core/index.js";
import { modelClientContract } from "../client.contract.js";
import { createModelClient } from "../create-model-client.js";
import { type ScriptedServer, startScriptedServer } from "../testing/scripted-server.js";

modelClientContract("openai (Responses API)", {
  provider: "openai",
  protocol: "openai",
  nativeN: false,
  sends: { temperature: true, stop: false },
  reasoning: { request: { reasoningEffort: "high", reasoningSummary: "auto" }, sentBack: true },
  caches: true,
  streams: false,
  client: (baseUrl, options) => createModelClient("openai:test-model", { env: {}, baseUrl, ...options }),
  withoutKey: { make: () => createModelClient("openai:gpt-4o", { env: {} }), variable: "OPENAI_API_KEY" },
});

const compat = { sends: { temperature: true, stop: true }, reasoning: { request: {}, sentBack: false }, caches: false, streams: false };

modelClientContract("compat (vLLM-style, n=native)", {
  ...compat,
  provider: "compat",
  protocol: "openai",
  nativeN: true,
  client: (baseUrl, options) => createModelClient(`compat:${baseUrl}#test-model;n=native`, { env: {}, ...options }),
  withoutKey: {
    make: () => createModelClient("compat:http://127.0.0.1:9/v1#m;key=MY_ENDPOINT_KEY", { env: {} }),
    variable: "MY_ENDPOINT_KEY",
  },
});

modelClientContract("compat (llama.cpp-style, one call per choice by default)", {
  ...compat,
  provider: "compat",
  protocol: "openai",
  nativeN: false,
  client: (baseUrl, options) => createModelClient(`compat:${baseUrl}#test-model`, { env: {}, ...options }),
  withoutKey: {
    make: () => createModelClient("compat:http://127.0.0.1:9/v1#m;key=LLAMA_KEY", { env: {} }),
    variable: "LLAMA_KEY",
  },
});

describe("chat-completions specifics", () => {
  let server: ScriptedServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  test("arguments that are not a JSON object become argumentsError, not a crash", async () => {
    server = await startScriptedServer("openai", [
      {
        reply: {
          toolCalls: [
            { name: "bash", arguments: '{"command": "ls' },
            { name: "bash", arguments: "[1]" },
          ],
        },
      },
    ]);
    const client = createModelClient("openai:gpt-4o", { env: {}, apiKey: "k", baseUrl: server.baseUrl });
    const [broken, array] = (await client.generate({ messages: [{ role: "user", content: "go" }] })).choices[0]!.message.toolCalls!;
    expect(broken).toMatchObject({ arguments: {}, rawArguments: '{"command": "ls' });
    expect(broken?.argumentsError).toMatch(/not valid JSON/);
    expect(array?.argumentsError).toMatch(/JSON object/);
  });

  test("openai: speaks the Responses API (store false, max_output_tokens, tool_choice by name); compat servers get chat completions with max_tokens", async () => {
    server = await startScriptedServer("openai", [{ reply: { text: "a" } }, { reply: { text: "b" } }]);
    const tools = [{ name: "submit", description: "Submit.", parameters: { type: "object", properties: {} } }];
    const request = { messages: [{ role: "user" as const, content: "x" }], tools, toolChoice: { name: "submit" }, maxTokens: 99 };
    await createModelClient("openai:gpt-4o", { env: {}, apiKey: "k", baseUrl: server.baseUrl }).generate(request);
    await createModelClient(`compat:${server.baseUrl}#local`, { env: {} }).generate(request);
    expect(server.requests.map((r) => [r.path, r.status])).toEqual([
      ["/v1/responses", 200],
      ["/v1/chat/completions", 200],
    ]);
    expect(server.requests[0]?.body).toMatchObject({ model: "gpt-4o", store: false, max_output_tokens: 99, tool_choice: { type: "function", name: "submit" } });
    expect(server.requests[0]?.body).not.toHaveProperty("reasoning");
    expect(server.requests[0]?.body).not.toHaveProperty("include");
    expect(server.requests[1]?.body).toMatchObject({ model: "local", max_tokens: 99 });
    expect(server.requests[1]?.headers.authorization).toBeUndefined();
  });

  test("a reasoning model is asked for its encrypted reasoning, which goes back in its place, and gets no temperature", async () => {
    server = await startScriptedServer("openai", [
      { reply: { reasoning: "Think first.", toolCalls: [{ name: "bash", arguments: { command: "ls" } }] } },
      { reply: { text: "done" } },
    ]);
    const client = createModelClient("openai:o3", { env: {}, apiKey: "k", baseUrl: server.baseUrl });
    const first = await client.generate({ messages: [{ role: "user", content: "go" }], temperature: 0.3, reasoningEffort: "low" });
    expect(server.requests[0]?.body).toMatchObject({ include: ["reasoning.encrypted_content"], reasoning: { effort: "low" }, store: false });
    expect(server.requests[0]?.body).not.toHaveProperty("temperature");
    expect(first.warnings.join("\n")).toMatch(/reasoning model, which takes no temperature/);
    // No summary was asked for: the reasoning is there (encrypted) but has no text to read.
    expect(first.choices[0]?.message.reasoning).toEqual([expect.objectContaining({ provider: "openai", text: "" })]);
    const message = first.choices[0]!.message;
    const call = message.toolCalls![0]!;
    const next = await client.generate({
      messages: [{ role: "user", content: "go" }, message, { role: "tool", toolCallId: call.id, content: "a.py" }],
      reasoningEffort: "low",
    });
    expect(next.choices[0]?.message.content).toBe("done");
    const input = (server.requests[1]!.body as { input: Array<{ type?: string; encrypted_content?: string }> }).input;
    expect(input.map((i) => i.type)).toEqual(["message", "reasoning", "function_call", "function_call_output"]);
    expect(input[1]?.encrypted_content).toEqual(message.reasoning![0]!.raw.encrypted_content);
    expect(message.providerOutput?.items.map((i) => i.type)).toEqual(["reasoning", "function_call"]);
  });

  test("a reasoning reply that used up its output tokens is `length` with a warning to raise maxTokens; a failed response is an error", async () => {
    server = await startScriptedServer("openai", [
      { reply: { reasoning: "A very long thought.", finishReason: "max_output_tokens" } },
      {
        raw: {
          body: { id: "resp_x", object: "response", status: "failed", model: "o3", error: { code: "server_error", message: "The model crashed" }, output: [] },
        },
      },
    ]);
    const client = createModelClient("openai:o3", { env: {}, apiKey: "k", baseUrl: server.baseUrl, retry: { maxAttempts: 1 } });
    const cut = await client.generate({ messages: [{ role: "user", content: "go" }], maxTokens: 100 });
    expect(cut.choices[0]).toMatchObject({ finishReason: "length", rawFinishReason: "max_output_tokens" });
    expect(cut.warnings.join("\n")).toMatch(/ran out of output tokens after \d+ tokens of reasoning before it said anything: raise maxTokens/);
    await expect(client.generate({ messages: [{ role: "user", content: "go" }] })).rejects.toThrow(
      /openai could not answer: The model crashed \(server_error\)/,
    );
  });

  test("replies are streamed, and a stream that goes quiet is cut and retried as a pause", async () => {
    server = await startScriptedServer("openai", [{ stall: true }, { reply: { text: "after the stall" } }]);
    const pauses: string[] = [];
    const client = createModelClient("openai:gpt-4o", { env: {}, apiKey: "k", baseUrl: server.baseUrl, timeoutMs: 300, retry: { baseDelayMs: 1 } });
    const result = await client.generate({ messages: [{ role: "user", content: "x" }] }, { onPause: (p) => pauses.push(p.error) });
    expect(result.choices[0]?.message.content).toBe("after the stall");
    expect(server.requests.map((r) => (r.body as { stream?: boolean }).stream)).toEqual([true, true]);
    expect(pauses).toEqual([expect.stringMatching(/openai sent nothing for 0.3 s in the middle of a reply/)]);
  });

  test("a server that returns fewer choices than n is asked again for the rest", async () => {
    server = await startScriptedServer("openai", [
      { reply: { choices: [{ text: "a" }], usage: { inputTokens: 10, outputTokens: 1 } } },
      { reply: { choices: [{ text: "b" }, { text: "c" }], usage: { inputTokens: 10, outputTokens: 2 } } },
    ]);
    const client = createModelClient(`compat:${server.baseUrl}#local;n=native`, { env: {}, prices: {} });
    const result = await client.generate({ messages: [{ role: "user", content: "x" }], n: 3 });
    expect(result.choices.map((c) => c.message.content)).toEqual(["a", "b", "c"]);
    expect(server.requests.map((r) => (r.body as { n?: number }).n)).toEqual([3, 2]);
    expect(result.usage).toEqual({ ...ZERO_TOKENS, inputTokens: 20, outputTokens: 3 });
  });

  test("a compat key comes from ;key=VAR, else from REBENCH_COMPAT_API_KEY", async () => {
    server = await startScriptedServer("openai", [{ reply: { text: "a" } }, { reply: { text: "b" } }], { apiKey: "s3cret" });
    const url = server.baseUrl;
    await createModelClient(`compat:${url}#m;key=VLLM_KEY`, { env: { VLLM_KEY: "s3cret" } }).generate({
      messages: [{ role: "user", content: "x" }],
    });
    await createModelClient(`compat:${url}#m`, { env: { REBENCH_COMPAT_API_KEY: "s3cret" } }).generate({
      messages: [{ role: "user", content: "x" }],
    });
    expect(server.requests.map((r) => r.status)).toEqual([200, 200]);
  });

  test("the model table gives the context window of known models", () => {
    const client = createModelClient("openai:gpt-4o", { env: { OPENAI_API_KEY: "k" } });
    expect(client.contextWindow).toBe(128_000);
    expect(createModelClient("compat:http://127.0.0.1:9/v1#x", { env: {} }).contextWindow).toBeUndefined();
  });
});
