import { afterEach, describe, expect, test } from "vitest";
import { type ScriptedServer, startScriptedServer } from "./scripted-server.js";

describe("startScriptedServer", () => {
  let server: ScriptedServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });

  test("plays steps in order, lets a step depend on the request, and says when the script ran out", async () => {
    server = await startScriptedServer("openai", [
      { reply: { text: "first" } },
      (request) => ({ reply: { text: `you sent ${(request.body as { messages: unknown[] }).messages.length} messages` } }),
    ]);
    const body = { model: "m", messages: [{ role: "user", content: "hi" }] };
    const texts: unknown[] = [];
    for (let i = 0; i < 2; i++) {
      const json = (await (await post(`${server.baseUrl}/chat/completions`, body)).json()) as {
        choices: { message: { content: string } }[];
      };
      texts.push(json.choices[0]?.message.content);
    }
    expect(texts).toEqual(["first", "you sent 1 messages"]);
    expect(server.remaining()).toBe(0);
    const out = await post(`${server.baseUrl}/chat/completions`, body);
    expect(out.status).toBe(400);
    expect(await out.text()).toMatch(/no step left for request 3 \(the script has 2\)/);
    expect(server.requests.map((r) => r.status)).toEqual([200, 200, 400]);
  });

  test("a step function that throws answers 400 naming the step, instead of crashing the test process", async () => {
    server = await startScriptedServer("openai", [
      () => {
        throw new Error("script bug");
      },
    ]);
    const out = await post(`${server.baseUrl}/chat/completions`, { model: "m", messages: [{ role: "user", content: "x" }] });
    expect(out.status).toBe(400);
    expect(await out.text()).toMatch(/step 1 threw: Error: script bug/);
  });

  test("refuses a wrong route, a missing anthropic-version and an invalid request without using a step", async () => {
    server = await startScriptedServer("anthropic", [{ reply: { text: "kept" } }]);
    expect((await post(`${server.baseUrl}/chat/completions`, {})).status).toBe(404);
    const good = { model: "m", max_tokens: 5, messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }] };
    expect((await post(`${server.baseUrl}/messages`, good)).status).toBe(400);
    const noMax = await post(`${server.baseUrl}/messages`, { ...good, max_tokens: undefined }, { "anthropic-version": "2023-06-01" });
    expect(await noMax.text()).toMatch(/max_tokens/);
    expect(server.remaining()).toBe(1);
    expect((await post(`${server.baseUrl}/messages`, good, { "anthropic-version": "2023-06-01" })).status).toBe(200);
  });
});
