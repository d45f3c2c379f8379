/**
 * @module
 * The contract every ModelClient passes, against a scripted server speaking its protocol on a real
 * socket: text and tool-call round trips, several choices, usage and cost, retries recorded as pauses,
 * aborts in flight and in backoff, malformed responses, keys. Each client's own test file calls
 * `modelClientContract` with a target.
 */
import { afterEach, describe, expect, test } from "vitest";
import { InvalidInputError } from "../../core/index.js";
import type { ModelClientOptions } from "./create-model-client.js";
import { ModelApiError, ModelResponseError } from "./errors.js";
import type {
  GenerateRequest,
  ModelClient,
  ModelPause,
  ModelPauseStart,
  Provider,
  ToolDefinition,
} from "./model-client.js";
import type { PriceTable } from "./prices.js";
import { fakeClock } from "./testing/fake-clock.js";
import {
  type ScriptedChoice,
  type ScriptedProtocol,
  type ScriptedServer,
  type ScriptStep,
  startScriptedServer,
  type Script,
} from "./testing/scripted-server.js";

export interface ModelClientTarget {
  provider: Provider;
  protocol: ScriptedProtocol;
  /** Whether the client asks for several choices in one request. */
  nativeN: boolean;
  /** The client for model `test-model` at `baseUrl`, with these options (key, prices, clock, retry). */
  client(baseUrl: string, options: ModelClientOptions): ModelClient;
  /** Make a client with no key in the environment; must throw naming `variable`. */
  withoutKey: { make(): ModelClient; variable: string };
}

const bash: ToolDefinition = {
  name: "bash",
  description: "Run a shell command.",
  parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] },
};

const ask = (text: string, extra: Partial<GenerateRequest> = {}): GenerateRequest => ({
  messages: [
    { role: "system", content: "You are a careful engineer." },
    { role: "user", content: text },
  ],
  ...extra,
});

export function modelClientContract(name: string, target: ModelClientTarget): void {
  describe(`ModelClient contract: ${name}`, () => {
    let server: ScriptedServer | undefined;
    afterEach(async () => {
      await server?.close();
      server = undefined;
    });
    const prices: PriceTable = { [`${target.provider}:test-model`]: { inputPerMTok: 2, outputPerMTok: 10 } };
    const start = async (script: Script, apiKey = "test-key"): Promise<ScriptedServer> => {
      server = await startScriptedServer(target.protocol, script, { apiKey });
      return server;
    };
    const clientFor = (s: ScriptedServer, options: ModelClientOptions = {}): ModelClient =>
      target.client(s.baseUrl, { apiKey: "test-key", prices, retry: { baseDelayMs: 1 }, ...options });
    /** One step per response: all choices in one when the client asks natively, else one step each. */
    const choiceSteps = (choices: ScriptedChoice[], usage: { inputTokens: number; outputTokens: number }): ScriptStep[] =>
      target.nativeN
        ? [{ reply: { choices, usage } }]
        : choices.map((c) => ({ reply: { ...c, usage } }));

    test("generate() returns the text, usage, cost and the model the server reported", async () => {
      const s = await start([{ reply: { text: "Hello.", usage: { inputTokens: 1000, outputTokens: 200 }, model: "test-model-v2" } }]);
      const result = await clientFor(s).generate(ask("Say hello."));
      expect(result.choices).toHaveLength(1);
      expect(result.choices[0]?.message).toEqual({ role: "assistant", content: "Hello." });
      expect(result.choices[0]?.finishReason).toBe("stop");
      expect(result.usage).toEqual({ inputTokens: 1000, outputTokens: 200 });
      expect(result.costUsd).toBeCloseTo((1000 * 2 + 200 * 10) / 1e6, 12);
      expect(result).toMatchObject({ model: "test-model-v2", requestedModel: "test-model", attempts: 1, pausedMs: 0, warnings: [] });
      expect(result.responseIds).toHaveLength(1);
      expect(JSON.stringify(s.requests[0]?.body)).toContain("You are a careful engineer.");
    });

    test("a tool call round trip: the call comes back parsed, and its result travels in the next request", async () => {
      const s = await start([
        { reply: { text: "Let me look.", toolCalls: [{ name: "bash", arguments: { command: "ls -la" } }] } },
        { reply: { text: "There are two files." } },
      ]);
      const client = clientFor(s);
      const request = ask("What is here?", { tools: [bash], toolChoice: "auto" });
      const first = await client.generate(request);
      const choice = first.choices[0];
      expect(choice?.finishReason).toBe("tool_calls");
      const call = choice?.message.toolCalls?.[0];
      expect(call).toMatchObject({ name: "bash", arguments: { command: "ls -la" } });
      expect(call?.argumentsError).toBeUndefined();
      const second = await client.generate({
        ...request,
        messages: [
          ...request.messages,
          choice!.message,
          { role: "tool", toolCallId: call!.id, content: "a.py\nb.py" },
        ],
      });
      expect(second.choices[0]?.message.content).toBe("There are two files.");
      const sent = JSON.stringify(s.requests[1]?.body);
      expect(sent).toContain(call!.id);
      expect(sent).toContain("a.py\\nb.py");
      expect(JSON.stringify(s.requests[0]?.body)).toContain('"bash"');
    });

    test("n > 1 returns n choices and sums the usage of every call it took", async () => {
      const s = await start(choiceSteps([{ text: "one" }, { text: "two" }, { text: "three" }], { inputTokens: 50, outputTokens: 5 }));
      const result = await clientFor(s).generate(ask("Draft three plans.", { n: 3 }));
      expect(result.choices.map((c) => c.message.content)).toEqual(["one", "two", "three"]);
      const calls = target.nativeN ? 1 : 3;
      expect(s.requests).toHaveLength(calls);
      expect(result.usage).toEqual({ inputTokens: 50 * calls, outputTokens: 5 * calls });
      expect(result.attempts).toBe(calls);
    });

    test("temperature, max tokens and stop sequences reach the server", async () => {
      const s = await start([{ reply: { text: "ok" } }]);
      await clientFor(s).generate(ask("x", { temperature: 0.25, maxTokens: 77, stop: ["END"] }));
      const body = JSON.stringify(s.requests[0]?.body);
      expect(body).toContain('"temperature":0.25');
      expect(body).toMatch(/"max_(completion_)?tokens":77/);
      expect(body).toContain('"END"');
    });

    test("an unpriced model costs 0 and says so in a warning", async () => {
      const s = await start([{ reply: { text: "ok", usage: { inputTokens: 10, outputTokens: 10 } } }]);
      const result = await clientFor(s, { prices: {} }).generate(ask("x"));
      expect(result.costUsd).toBe(0);
      expect(result.warnings.join("\n")).toMatch(/no price for .*test-model.*REBENCH_PRICES/);
    });

    test("a response without usage counts 0 tokens and warns", async () => {
      const s = await start([{ reply: { text: "ok", usage: null } }]);
      const result = await clientFor(s).generate(ask("x"));
      expect(result.usage).toEqual({ inputTokens: 0, outputTokens: 0 });
      expect(result.warnings.join("\n")).toMatch(/no token usage/);
    });

    test("429 and 503 are retried; Retry-After is honoured and each wait is reported as a pause", async () => {
      const s = await start([
        { error: { status: 429, message: "Rate limit reached", retryAfter: 2 } },
        { error: { status: 503, message: "Overloaded" } },
        { reply: { text: "finally" } },
      ]);
      const clock = fakeClock();
      const pauses: ModelPause[] = [];
      const starts: ModelPauseStart[] = [];
      const client = clientFor(s, { clock, random: () => 0.5, retry: { baseDelayMs: 1000 } });
      const result = await client.generate(ask("x"), { onPause: (p) => pauses.push(p), onPauseStart: (p) => starts.push(p) });
      expect(result.choices[0]?.message.content).toBe("finally");
      // Retry-After: 2 s exactly; then backoff after the 2nd failure: ceiling 2000 ms, half fixed + 0.5 * half.
      expect(clock.sleeps).toEqual([2000, 1500]);
      expect(result).toMatchObject({ attempts: 3, pausedMs: 3500 });
      expect(result.durationMs).toBeGreaterThanOrEqual(3500);
      expect(pauses.map((p) => [p.reason, p.attempt, p.aborted])).toEqual([
        ["model_retry", 1, false],
        ["model_retry", 2, false],
      ]);
      expect(pauses[0]?.error).toMatch(/429.*Rate limit reached/);
      expect(pauses[1]?.error).toMatch(/503.*Overloaded/);
      expect(Date.parse(pauses[0]!.endedAt) - Date.parse(pauses[0]!.startedAt)).toBe(2000);
      expect(starts.map((p) => p.waitMs)).toEqual([2000, 1500]);
    });

    test("with the real clock, the client waits out a short Retry-After before the next request", async () => {
      const s = await start([
        { error: { status: 429, message: "slow down", headers: { "retry-after-ms": "150" } } },
        { reply: { text: "ok" } },
      ]);
      const pauses: ModelPause[] = [];
      const result = await clientFor(s).generate(ask("x"), { onPause: (p) => pauses.push(p) });
      const gap = s.requests[1]!.receivedAt - s.requests[0]!.receivedAt;
      expect(gap).toBeGreaterThanOrEqual(145);
      expect(result.pausedMs).toBeGreaterThanOrEqual(145);
      expect(pauses).toHaveLength(1);
    });

    test("a dropped connection is a network error that is retried", async () => {
      const s = await start([{ drop: true }, { reply: { text: "ok" } }]);
      const pauses: ModelPause[] = [];
      const result = await clientFor(s).generate(ask("x"), { onPause: (p) => pauses.push(p) });
      expect(result.attempts).toBe(2);
      expect(pauses[0]?.error).toMatch(/network error/);
    });

    test("after the last attempt the error carries the provider's message", async () => {
      const s = await start([
        { error: { status: 500, message: "boom one" } },
        { error: { status: 500, message: "boom two" } },
      ]);
      const failure = clientFor(s, { retry: { maxAttempts: 2, baseDelayMs: 1 } }).generate(ask("x"));
      await expect(failure).rejects.toThrow(ModelApiError);
      await expect(failure).rejects.toThrow(/HTTP 500: boom two/);
      expect(s.requests).toHaveLength(2);
    });

    test("a 400 fails at once, naming what the server refused", async () => {
      const s = await start([{ error: { status: 400, message: "context length exceeded" } }, { reply: { text: "never" } }]);
      const error = await clientFor(s).generate(ask("x")).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ModelApiError);
      expect((error as ModelApiError).status).toBe(400);
      expect((error as Error).message).toMatch(/context length exceeded/);
      expect(s.requests).toHaveLength(1);
    });

    test("a wrong key is refused with a hint about the key", async () => {
      const s = await start([{ reply: { text: "never" } }], "the-right-key");
      const error = await clientFor(s, { apiKey: "a-wrong-key" }).generate(ask("x")).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ModelApiError);
      expect((error as ModelApiError).status).toBe(401);
      expect((error as ModelApiError).hint).toMatch(/key/i);
    });

    test("a missing API key fails when the client is made, naming the variable to set", () => {
      expect(() => target.withoutKey.make()).toThrow(InvalidInputError);
      expect(() => target.withoutKey.make()).toThrow(new RegExp(target.withoutKey.variable));
    });

    test("aborting mid-request rejects with the abort reason and closes the connection", async () => {
      const s = await start([{ hang: true }]);
      const controller = new AbortController();
      const pending = clientFor(s).generate(ask("x"), { signal: controller.signal });
      await s.waitForRequests(1);
      controller.abort();
      await expect(pending).rejects.toMatchObject({ name: "AbortError" });
      await expect.poll(() => s.requests[0]?.closedEarly).toBe(true);
    });

    test("aborting during a retry wait stops at once, reports the cut pause and sends nothing more", async () => {
      const s = await start([{ error: { status: 429, retryAfter: 60 } }, { reply: { text: "never" } }]);
      const controller = new AbortController();
      const pauses: ModelPause[] = [];
      const started = Date.now();
      const pending = clientFor(s).generate(ask("x"), {
        signal: controller.signal,
        onPauseStart: () => setTimeout(() => controller.abort(), 20),
        onPause: (p) => pauses.push(p),
      });
      await expect(pending).rejects.toMatchObject({ name: "AbortError" });
      expect(Date.now() - started).toBeLessThan(30_000);
      expect(pauses).toHaveLength(1);
      expect(pauses[0]?.aborted).toBe(true);
      expect(s.requests).toHaveLength(1);
    });

    test("a 200 whose body is not JSON, or not the protocol's shape, is a clear error", async () => {
      const s = await start([
        { raw: { body: "<html>gateway</html>" } },
        { raw: { body: { hello: "world" } } },
      ]);
      const client = clientFor(s);
      await expect(client.generate(ask("x"))).rejects.toThrow(ModelResponseError);
      await expect(client.generate(ask("x"))).rejects.toThrow(/not a (chat completion|message)[\s\S]*choices|content/);
    });

    test("a request the scaffold got wrong is refused before anything is sent", async () => {
      const s = await start([]);
      await expect(clientFor(s).generate({ messages: [] })).rejects.toThrow(InvalidInputError);
      expect(s.requests).toHaveLength(0);
    });
  });
}
