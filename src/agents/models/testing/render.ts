/**
 * @module
 * What a scripted server says, in each protocol's words: a scripted reply (text, tool calls, choices,
 * usage) rendered as an OpenAI chat completion or an Anthropic message, and errors in each provider's
 * error shape. Kept apart from the server so scaffold tests can script replies without caring which
 * protocol carries them.
 */

export type ScriptedProtocol = "openai" | "anthropic";

export interface ScriptedToolCall {
  /** Default `call_<request>_<k>` (OpenAI) or `toolu_<request>_<k>` (Anthropic). */
  id?: string;
  name: string;
  /** An object is sent as JSON; a string is sent as-is (OpenAI), to script malformed arguments. */
  arguments: Record<string, unknown> | string;
}

export interface ScriptedChoice {
  text?: string;
  toolCalls?: ScriptedToolCall[];
  /** The provider's own word; default `tool_calls`/`tool_use` with tool calls, else `stop`/`end_turn`. */
  finishReason?: string;
}

export interface ScriptedReply extends ScriptedChoice {
  /** Several choices in one response (OpenAI only); otherwise the reply itself is the one choice. */
  choices?: ScriptedChoice[];
  /** Default: about one token per 4 characters of the request's messages and of the reply; `null` sends none. */
  usage?: { inputTokens: number; outputTokens: number } | null;
  /** Default: the requested model. */
  model?: string;
}

export interface Rendered {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

interface RequestInfo {
  index: number;
  body: unknown;
}

export function renderReply(protocol: ScriptedProtocol, reply: ScriptedReply, request: RequestInfo): Rendered {
  const choices = reply.choices ?? [reply];
  const requestBody = (request.body ?? {}) as { model?: unknown; messages?: unknown; system?: unknown };
  const model = reply.model ?? (typeof requestBody.model === "string" ? requestBody.model : "scripted");
  const usage =
    reply.usage === undefined
      ? {
          inputTokens: approxTokens(JSON.stringify([requestBody.system ?? "", requestBody.messages ?? []])),
          outputTokens: choices.reduce((sum, c) => sum + approxTokens(JSON.stringify([c.text ?? "", c.toolCalls ?? []])), 0),
        }
      : reply.usage;
  if (protocol === "openai") {
    return {
      status: 200,
      body: {
        id: `chatcmpl-scripted-${request.index}`,
        object: "chat.completion",
        created: Math.floor(Date.now() / 1000),
        model,
        choices: choices.map((c, i) => ({
          index: i,
          message: {
            role: "assistant",
            content: c.text ?? null,
            ...(c.toolCalls?.length
              ? {
                  tool_calls: c.toolCalls.map((t, k) => ({
                    id: t.id ?? `call_${request.index}_${i}_${k}`,
                    type: "function",
                    function: {
                      name: t.name,
                      arguments: typeof t.arguments === "string" ? t.arguments : JSON.stringify(t.arguments),
                    },
                  })),
                }
              : {}),
          },
          finish_reason: c.finishReason ?? (c.toolCalls?.length ? "tool_calls" : "stop"),
        })),
        ...(usage === null
          ? {}
          : {
              usage: {
                prompt_tokens: usage.inputTokens,
                completion_tokens: usage.outputTokens,
                total_tokens: usage.inputTokens + usage.outputTokens,
              },
            }),
      },
    };
  }
  if (choices.length !== 1) {
    return renderError(
      protocol,
      400,
      `scripted server: a reply with ${choices.length} choices cannot travel over anthropic (one choice per ` +
        "response); script one step per choice",
    );
  }
  const [choice] = choices as [ScriptedChoice];
  return {
    status: 200,
    body: {
      id: `msg_scripted_${request.index}`,
      type: "message",
      role: "assistant",
      model,
      content: [
        ...(choice.text ? [{ type: "text", text: choice.text }] : []),
        ...(choice.toolCalls ?? []).map((t, k) => ({
          type: "tool_use",
          id: t.id ?? `toolu_${request.index}_${k}`,
          name: t.name,
          input: t.arguments,
        })),
      ],
      stop_reason: choice.finishReason ?? (choice.toolCalls?.length ? "tool_use" : "end_turn"),
      stop_sequence: null,
      ...(usage === null ? {} : { usage: { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens } }),
    },
  };
}

export function renderError(
  protocol: ScriptedProtocol,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): Rendered {
  const type = errorType(status);
  const body =
    protocol === "openai"
      ? { error: { message, type, param: null, code: null } }
      : { type: "error", error: { type, message } };
  return { status, body, headers };
}

function errorType(status: number): string {
  if (status === 429) return "rate_limit_error";
  if (status === 401) return "authentication_error";
  if (status === 404) return "not_found_error";
  if (status === 529) return "overloaded_error";
  if (status >= 500) return "api_error";
  return "invalid_request_error";
}

function approxTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}
