/**
 * @module
 * The contract every ModelClient passes, through its official SDK against a scripted server speaking its
 * API on a real socket: text and tool-call round trips, several choices, usage by token kind and cost by
 * kind, reasoning carried to the next turn (also from a stored and reloaded message, as after a restart),
 * prompt caching, retries recorded as pauses with Retry-After honoured, aborts in flight and in backoff,
 * malformed responses, keys. Each client's own test file calls `modelClientContract` with a target.
 */
import { afterEach, describe, expect, test } from "vitest";
import { InvalidInputError, ZERO_TOKENS } from "../../core/index.js";
import type { ModelClientOptions } from "./create-model-client.js";
import { ModelApiError, ModelResponseError } from "./errors.js";
import type { GenerateRequest, Message, ModelClient, ModelPause, ModelPauseStart, Provider, ToolDefinition } from "./model-client.js";
import type { PriceTable } from "./prices.js";
import { fakeClock } from "./testing/fake-clock.js";
import {
  type Script,
  type ScriptedChoice,
  type ScriptedProtocol,
  type ScriptedServer,
  type ScriptStep,
  startScriptedServer,
} from "./testing/scripted-server.js";

export interface ModelClientTarget {
  provider: Provider;
  protocol: ScriptedProtocol;
  /** Whether the client asks for several choices in one request. */
  nativeN: boolean;
  /** Whether the API takes a temperature and stop sequences (else the client warns and sends none). */
  sends: { temperature: boolean; stop: boolean };
  /** How to make the model reason, and whether its reasoning goes back to the provider on the next turn. */
  reasoning: { request: Partial<GenerateRequest>; sentBack: boolean };
  /** Whether the provider caches prompts (then a repeated long prefix is read from the cache). */
  caches: boolean;
  /** Whether replies are streamed (a stream always carries usage, so a reply without it cannot happen). */
  streams: boolean;
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
    const prices: PriceTable = {
      [`${target.provider}:test-model`]: { inputPerMTok: 2, outputPerMTok: 10, cacheReadPerMTok: 0.2, cacheWritePerMTok: 2.5, cacheWrite1hPerMTok: 4 },
    };
    const start = async (script: Script, apiKey = "test-key", reasoningModel = false): Promise<ScriptedServer> => {
      server = await startScriptedServer(target.protocol, script, { apiKey, ...(reasoningModel ? { reasoningModels: /^test-model/ } : {}) });
      return server;
    };
    const clientFor = (s: ScriptedServer, options: ModelClientOptions = {}): ModelClient =>
      target.client(s.baseUrl, { apiKey: "test-key", prices, retry: { baseDelayMs: 1 }, ...options });
    /** One step per response: all choices in one when the client asks natively, else one step each. */
    const choiceSteps = (choices: ScriptedChoice[], usage: { inputTokens: number; outputTokens: number }): ScriptStep[] =>
      target.nativeN ? [{ reply: { choices, usage } }] : choices.map((c) => ({ reply: { ...c, usage } }));

    test("generate() returns the text, usage, cost and the model the server reported", async () => {
      const s = await start([{ reply: { text: "Hello.", usage: { inputTokens: 1000, outputTokens: 200 }, model: "test-model-v2" } }]);
      const result = await clientFor(s).generate(ask("Say hello."));
      expect(result.choices).toHaveLength(1);
      expect(result.choices[0]?.message).toMatchObject({ role: "assistant", content: "Hello." });
      expect(result.choices[0]?.message.toolCalls).toBeUndefined();
      expect(result.choices[0]?.finishReason).toBe("stop");
      expect(result.usage).toEqual({ ...ZERO_TOKENS, inputTokens: 1000, outputTokens: 200 });
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
        messages: [...request.messages, choice!.message, { role: "tool", toolCallId: call!.id, content: "a.py\nb.py" }],
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
      expect(result.usage).toEqual({ ...ZERO_TOKENS, inputTokens: 50 * calls, outputTokens: 5 * calls });
      expect(result.attempts).toBe(calls);
    });

    test("max tokens reach the server; temperature and stop sequences do where the API takes them, else a warning says so", async () => {
      const s = await start([{ reply: { text: "ok" } }]);
      const result = await clientFor(s).generate(ask("x", { temperature: 0.25, maxTokens: 77, stop: ["END"] }));
      const body = JSON.stringify(s.requests[0]?.body);
      expect(body).toMatch(/"max_(output_)?tokens":77/);
      expect(body.includes('"temperature":0.25')).toBe(target.sends.temperature);
      expect(body.includes('"END"')).toBe(target.sends.stop);
      const warnings = result.warnings.join("\n");
      expect(/temperature/.test(warnings)).toBe(!target.sends.temperature);
      expect(/stop sequences/.test(warnings)).toBe(!target.sends.stop);
    });

    test("usage comes back by kind (cache reads and writes, reasoning within the output) and each kind is priced", async () => {
      const usage = {
        inputTokens: 1000,
        cacheReadTokens: 30_000,
        cacheWriteTokens: 4000,
        cacheWrite1hTokens: target.provider === "anthropic" ? 1000 : 0,
        outputTokens: 500,
        reasoningTokens: 300,
      };
      const shown = target.provider === "compat" ? { ...usage, cacheWriteTokens: 0, cacheWrite1hTokens: 0 } : usage;
      const s = await start([{ reply: { text: "ok", usage: shown } }]);
      const result = await clientFor(s).generate(ask("x"));
      expect(result.usage).toEqual(shown);
      const expected = {
        input: (1000 * 2) / 1e6,
        cacheRead: (30_000 * 0.2) / 1e6,
        cacheWrite: ((shown.cacheWriteTokens - shown.cacheWrite1hTokens) * 2.5 + shown.cacheWrite1hTokens * 4) / 1e6,
        output: (500 * 10) / 1e6,
      };
      for (const [kind, usd] of Object.entries(expected)) expect(result.costByKind[kind as keyof typeof expected]).toBeCloseTo(usd, 12);
      expect(result.costUsd).toBeCloseTo(expected.input + expected.cacheRead + expected.cacheWrite + expected.output, 12);
    });

    test("reasoning is kept with the message and travels back unchanged on the next turn, also from a stored copy", async () => {
      const s = await start(
        [
          { reply: { reasoning: "The listing will tell me which files exist.", toolCalls: [{ name: "bash", arguments: { command: "ls" } }] } },
          { reply: { text: "Two files." } },
          { reply: { text: "Still two files." } },
          { reply: { text: "never" } },
        ],
        "test-key",
        true,
      );
      const client = clientFor(s);
      const request = ask("What is here?", { tools: [bash], maxTokens: 8000, ...target.reasoning.request });
      const first = await client.generate(request);
      const message = first.choices[0]!.message;
      expect(message.reasoning?.map((r) => [r.provider, r.text])).toEqual([[target.provider, "The listing will tell me which files exist."]]);
      expect(first.usage.reasoningTokens).toBeGreaterThan(0);
      expect(first.usage.reasoningTokens).toBeLessThan(first.usage.outputTokens);
      const call = message.toolCalls![0]!;
      const continued = (m: typeof message): GenerateRequest => ({
        ...request,
        messages: [...request.messages, m, { role: "tool", toolCallId: call.id, content: "a.py\nb.py" }],
      });
      expect((await client.generate(continued(message))).choices[0]?.message.content).toBe("Two files.");
      // As after a restart: the message as stored in the run's events, parsed back from JSON.
      const stored = JSON.parse(JSON.stringify(message)) as typeof message;
      expect((await client.generate(continued(stored))).choices[0]?.message.content).toBe("Still two files.");
      for (const index of [1, 2]) {
        const sent = JSON.stringify(s.requests[index]?.body);
        const raw = JSON.stringify(message.reasoning![0]!.raw).slice(1, -1);
        expect(sent.includes(raw)).toBe(target.reasoning.sentBack);
        expect(s.requests[index]?.status).toBe(200);
      }
      if (target.reasoning.sentBack) {
        // Reasoning that does not come back as it was issued is refused by the provider.
        const forged = { ...message, providerOutput: undefined, reasoning: message.reasoning!.map((r) => ({ ...r, raw: tamper(r.raw) })) };
        await expect(client.generate(continued(forged))).rejects.toThrow(/HTTP 400[\s\S]*(signature|encrypted content)/);
      }
    });

    test("a long prefix sent again is read from the prompt cache and priced as cache reads", async () => {
      const s = await start([{ reply: { text: "first" } }, { reply: { text: "second" } }]);
      const client = clientFor(s);
      const long = "A line of the task that is long enough to matter for the cache. ".repeat(120);
      const messages: Message[] = [
        { role: "system", content: "You are a careful engineer.", cacheBreakpoint: true },
        { role: "user", content: long, cacheBreakpoint: true },
      ];
      const one = await client.generate({ messages, tools: [bash], cache: { ttl: "1h" } });
      const two = await client.generate({
        messages: [...messages, one.choices[0]!.message, { role: "user", content: "And now?", cacheBreakpoint: true }],
        tools: [bash],
        cache: { ttl: "1h" },
      });
      if (!target.caches) {
        expect(two.usage.cacheReadTokens).toBe(0);
        return;
      }
      expect(two.usage.cacheReadTokens).toBeGreaterThan(1000);
      expect(two.costByKind.cacheRead).toBeCloseTo((two.usage.cacheReadTokens * 0.2) / 1e6, 12);
      if (target.provider === "anthropic") {
        expect(one.usage.cacheWriteTokens).toBeGreaterThan(1000);
        expect(one.usage.cacheWrite1hTokens).toBe(one.usage.cacheWriteTokens);
        const body = s.requests[1]!.body as {
          tools: { cache_control?: unknown }[];
          system: { cache_control?: unknown }[];
          messages: { content: { cache_control?: unknown }[] }[];
        };
        const mark = { type: "ephemeral", ttl: "1h" };
        expect(body.tools.at(-1)?.cache_control).toEqual(mark);
        expect(body.system[0]?.cache_control).toEqual(mark);
        expect(body.messages.flatMap((m) => m.content.filter((b) => b.cache_control)).length).toBe(2);
        expect(body.messages.at(-1)?.content.at(-1)?.cache_control).toEqual(mark);
      }
    });

    test("an unpriced model costs 0 and says so in a warning", async () => {
      const s = await start([{ reply: { text: "ok", usage: { inputTokens: 10, outputTokens: 10 } } }]);
      const result = await clientFor(s, { prices: {} }).generate(ask("x"));
      expect(result.costUsd).toBe(0);
      expect(result.warnings.join("\n")).toMatch(/no price for .*test-model.*REBENCH_PRICES/);
    });

    test.skipIf(target.streams)("a response without usage counts 0 tokens and warns (where usage can be missing: not in a stream)", async () => {
      const s = await start([{ reply: { text: "ok", usage: null } }]);
      const result = await clientFor(s).generate(ask("x"));
      expect(result.usage).toEqual(ZERO_TOKENS);
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
      const s = await start([{ error: { status: 429, message: "slow down", headers: { "retry-after-ms": "150" } } }, { reply: { text: "ok" } }]);
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
      const s = await start([{ error: { status: 500, message: "boom one" } }, { error: { status: 500, message: "boom two" } }]);
      const failure = clientFor(s, { retry: { maxAttempts: 2, baseDelayMs: 1 } }).generate(ask("x"));
      await expect(failure).rejects.toThrow(ModelApiError);
      await expect(failure).rejects.toThrow(/HTTP 500: boom two/);
      expect(s.requests).toHaveLength(2);
    });

    test("a 400 fails at once, naming what the server refused", async () => {
      const s = await start([{ error: { status: 400, message: "context length exceeded" } }, { reply: { text: "never" } }]);
      const error = await clientFor(s)
        .generate(ask("x"))
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ModelApiError);
      expect((error as ModelApiError).status).toBe(400);
      expect((error as Error).message).toMatch(/context length exceeded/);
      expect(s.requests).toHaveLength(1);
    });

    test("a wrong key is refused with a hint about the key", async () => {
      const s = await start([{ reply: { text: "never" } }], "the-right-key");
      const error = await clientFor(s, { apiKey: "a-wrong-key" })
        .generate(ask("x"))
        .catch((e: unknown) => e);
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
      const s = await start([{ raw: { body: "<html>gateway</html>" } }, { raw: { body: { hello: "world" } } }]);
      const client = clientFor(s);
      await expect(client.generate(ask("x"))).rejects.toThrow(ModelResponseError);
      await expect(client.generate(ask("x"))).rejects.toThrow(/not a (chat completion|message|response|message stream)\b/);
    });

    test("a request the scaffold got wrong is refused before anything is sent", async () => {
      const s = await start([]);
      await expect(clientFor(s).generate({ messages: [] })).rejects.toThrow(InvalidInputError);
      expect(s.requests).toHaveLength(0);
    });
  });
}

/** The same item with its signature or encrypted reasoning altered. */
function tamper(raw: Record<string, unknown>): Record<string, unknown> {
  if (typeof raw.signature === "string") return { ...raw, thinking: `${String(raw.thinking)} (edited)` };
  if (typeof raw.encrypted_content === "string") return { ...raw, encrypted_content: `x${raw.encrypted_content}` };
  return raw;
}
