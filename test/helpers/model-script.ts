/**
 * @module
 * Scripting a model for scaffold tests: replies that call one tool, and readers of what the scaffold sent
 * (the last tool result, the prompt text) from the scripted server's recorded OpenAI-format requests.
 */
import type { RecordedRequest, ScriptStep } from "../../src/agents/models/testing/scripted-server.js";

type Usage = { inputTokens: number; outputTokens: number };

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

export function messagesOf(request: RecordedRequest): WireMessage[] {
  return (request.body as { messages: WireMessage[] }).messages;
}

/** The content of the last `tool` message of a request. */
export function lastToolResult(request: RecordedRequest): string {
  return messagesOf(request).filter((m) => m.role === "tool").at(-1)?.content ?? "";
}

/** Everything the scaffold wrote to the model in a request, joined. */
export function promptText(request: RecordedRequest): string {
  return messagesOf(request)
    .map((m) => m.content ?? "")
    .join("\n");
}

/** The Python one-liner that solves test_echo fast. */
export const FAST_ECHO = 'import sys\nfrom itertools import accumulate\nprint(" ".join(map(str, accumulate(int(a) for a in sys.argv[1:]))))\n';
