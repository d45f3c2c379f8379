/**
 * @module
 * The chat-completions protocol adapter, for OpenAI itself and for compatible servers: neutral messages
 * to OpenAI's, tool calls with their JSON-string arguments parsed (a model's malformed JSON becomes
 * `argumentsError`, not a crash), several choices per request when the server supports `n`.
 */
import { formatIssues } from "../../../core/index.js";
import { ModelResponseError } from "../errors.js";
import type { ParsedResponse, Protocol } from "../http-model-client.js";
import type { Choice, FinishReason, GenerateRequest, Message, ToolCall } from "../model-client.js";
import { OpenAIChatResponse, type OpenAIChatRequest, type OpenAIMessage } from "./wire.js";

export interface OpenAIProtocolOptions {
  model: string;
  /** Names the endpoint in error messages. */
  label: string;
  /** `max_completion_tokens` for OpenAI (required by its reasoning models); `max_tokens` for compatible servers. */
  maxTokensField: "max_completion_tokens" | "max_tokens";
  /** Whether the server returns several choices for `n` (OpenAI, vLLM) or needs one call each (llama.cpp). */
  nativeN: boolean;
}

export function openaiProtocol(options: OpenAIProtocolOptions): Protocol {
  return {
    nativeN: options.nativeN,
    buildBody: (request, n) => ({ body: toOpenAIRequest(request, n, options), warnings: [] }),
    parseResponse: (json) => fromOpenAIResponse(json, options.label),
  };
}

export function toOpenAIRequest(request: GenerateRequest, n: number, options: OpenAIProtocolOptions): OpenAIChatRequest {
  const body: OpenAIChatRequest = { model: options.model, messages: request.messages.map(toOpenAIMessage) };
  if (request.tools?.length) {
    body.tools = request.tools.map((t) => ({
      type: "function",
      function: { name: t.name, description: t.description, parameters: t.parameters },
    }));
    if (request.toolChoice !== undefined) {
      body.tool_choice =
        typeof request.toolChoice === "string"
          ? request.toolChoice
          : { type: "function", function: { name: request.toolChoice.name } };
    }
  }
  if (n > 1) body.n = n;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.maxTokens !== undefined) body[options.maxTokensField] = request.maxTokens;
  if (request.stop?.length) body.stop = request.stop;
  return body;
}

function toOpenAIMessage(message: Message): OpenAIMessage {
  switch (message.role) {
    case "system":
    case "user":
      return { role: message.role, content: message.content };
    case "assistant": {
      const calls = message.toolCalls ?? [];
      if (calls.length === 0) return { role: "assistant", content: message.content };
      return {
        role: "assistant",
        content: message.content === "" ? null : message.content,
        tool_calls: calls.map((c) => ({
          id: c.id,
          type: "function",
          function: { name: c.name, arguments: c.rawArguments ?? JSON.stringify(c.arguments) },
        })),
      };
    }
    case "tool":
      return { role: "tool", tool_call_id: message.toolCallId, content: message.content };
  }
}

export function fromOpenAIResponse(json: unknown, label: string): ParsedResponse {
  const parsed = OpenAIChatResponse.safeParse(json);
  if (!parsed.success) {
    throw new ModelResponseError(
      `${label} answered with a body that is not a chat completion:\n${formatIssues(parsed.error)}`,
      { hint: "check that the endpoint speaks the OpenAI chat-completions API (POST /v1/chat/completions)" },
    );
  }
  const response = parsed.data;
  const choices = [...response.choices]
    .sort((a, b) => (a.index ?? 0) - (b.index ?? 0))
    .map((choice, c): Choice => {
      const toolCalls = (choice.message.tool_calls ?? []).map((call, k) =>
        toolCall(call.id || `call_${c}_${k}`, call.function.name, call.function.arguments ?? ""),
      );
      return {
        message: {
          role: "assistant",
          content: choice.message.content ?? choice.message.refusal ?? "",
          ...(toolCalls.length > 0 ? { toolCalls } : {}),
        },
        finishReason: finishReason(choice.finish_reason ?? null),
        rawFinishReason: choice.finish_reason ?? null,
      };
    });
  return {
    id: response.id,
    model: response.model,
    choices,
    usage: response.usage
      ? { inputTokens: response.usage.prompt_tokens, outputTokens: response.usage.completion_tokens }
      : undefined,
  };
}

/** A tool call with its arguments parsed; arguments that are not a JSON object are reported, not thrown. */
export function toolCall(id: string, name: string, rawArguments: string): ToolCall {
  const text = rawArguments.trim() === "" ? "{}" : rawArguments;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { id, name, arguments: {}, rawArguments, argumentsError: `arguments are not valid JSON: ${(error as Error).message}` };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { id, name, arguments: {}, rawArguments, argumentsError: "arguments must be a JSON object" };
  }
  return { id, name, arguments: value as Record<string, unknown>, rawArguments };
}

function finishReason(reason: string | null): FinishReason {
  switch (reason) {
    case "stop":
      return "stop";
    case "length":
      return "length";
    case "tool_calls":
    case "function_call":
      return "tool_calls";
    case "content_filter":
      return "content_filter";
    default:
      return "other";
  }
}
