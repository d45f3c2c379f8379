/**
 * @module
 * Scripting a model for scaffold tests: replies that call one tool, and readers of what the scaffold sent
 * (the last tool result, the prompt text) from the scripted server's recorded requests (the Responses
 * API's input items, chat-completions messages and Anthropic's content blocks, read alike).
 */
import type { RecordedRequest, ScriptedUsage, ScriptStep } from "../../src/agents/models/testing/scripted-server.js";

type Usage = ScriptedUsage;

/** A reply that calls `name` with `args`. */
export function call(name: string, args: Record<string, unknown>, usage?: Usage): ScriptStep {
  return { reply: { toolCalls: [{ name, arguments: args }], ...(usage ? { usage } : {}) } };
}

/** A reply with text only (no tool call). */
export function say(text: string, usage?: Usage): ScriptStep {
  return { reply: { text, ...(usage ? { usage } : {}) } };
}

interface WireMessage {
  role: string;
  content: string | null;
  tool_call_id?: string;
}

type InputItem = { type?: string; role?: string; content?: string | Array<{ text?: string }>; call_id?: string; output?: string };

type Block = { type: string; text?: string; content?: string | Array<{ text?: string }>; tool_use_id?: string };

export function messagesOf(request: RecordedRequest): WireMessage[] {
  if (request.api === "messages") {
    const body = request.body as { system?: string | Array<{ text: string }>; messages: Array<{ role: string; content: string | Block[] }> };
    const system = typeof body.system === "string" ? body.system : (body.system ?? []).map((b) => b.text).join("\n");
    return [
      ...(system ? [{ role: "system", content: system }] : []),
      ...body.messages.flatMap((m): WireMessage[] =>
        typeof m.content === "string"
          ? [{ role: m.role, content: m.content }]
          : m.content.flatMap((b): WireMessage[] => {
              if (b.type === "text") return [{ role: m.role, content: b.text ?? "" }];
              if (b.type === "tool_result") {
                const text = typeof b.content === "string" ? b.content : (b.content ?? []).map((c) => c.text ?? "").join("");
                return [{ role: "tool", content: text, tool_call_id: b.tool_use_id! }];
              }
              return [];
            }),
      ),
    ];
  }
  if (request.api !== "responses") return (request.body as { messages: WireMessage[] }).messages;
  return (request.body as { input: InputItem[] }).input.flatMap((item): WireMessage[] => {
    if (item.type === "function_call_output") return [{ role: "tool", content: item.output ?? "", tool_call_id: item.call_id! }];
    if (item.type === "function_call" || item.type === "reasoning") return [];
    const content = typeof item.content === "string" ? item.content : (item.content ?? []).map((p) => p.text ?? "").join("");
    return [{ role: item.role ?? "user", content }];
  });
}

/** The content of the last `tool` message of a request. */
export function lastToolResult(request: RecordedRequest): string {
  return (
    messagesOf(request)
      .filter((m) => m.role === "tool")
      .at(-1)?.content ?? ""
  );
}

/** Everything the scaffold wrote to the model in a request, joined. */
export function promptText(request: RecordedRequest): string {
  return messagesOf(request)
    .map((m) => m.content ?? "")
    .join("\n");
}

/** The Python one-liner that solves test_echo fast. */
export const FAST_ECHO = 'import sys\nfrom itertools import accumulate\nprint(" ".join(map(str, accumulate(int(a) for a in sys.argv[1:]))))\n';
