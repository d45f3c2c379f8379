/**
 * @module
 * `compat:` models (vLLM, llama.cpp server, any OpenAI-compatible server) through the official SDK's chat
 * completions: neutral messages to OpenAI's, tool calls with their JSON-string arguments parsed, several
 * choices per request where the server supports `n`. Compatible servers leave out ids, usage or the model
 * now and then; the response is read leniently and filled in. A server's `reasoning_content` (vLLM's
 * reasoning parsers, DeepSeek-style) is kept as reasoning and not sent back, as those servers ask.
 */
import type OpenAI from "openai";
import type { ChatCompletionCreateParamsNonStreaming, ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { z } from "zod";
import { formatIssues } from "../../../core/index.js";
import { ModelResponseError } from "../errors.js";
import type { Choice, FinishReason, GenerateRequest, Message } from "../model-client.js";
import type { ParsedResponse, ProviderAdapter } from "../provider-client.js";
import { argumentsText, toolCall } from "../tool-arguments.js";

export interface ChatAdapterOptions {
  client: OpenAI;
  model: string;
  /** Names the endpoint in error messages. */
  label: string;
  /** Whether the server returns several choices for `n` (vLLM) or needs one call each (llama.cpp). */
  nativeN: boolean;
}

const Count = z.number().int().nonnegative();
const ChatResponseShape = z.object({
  id: z.string().optional(),
  model: z.string().optional(),
  choices: z.array(
    z.object({
      index: z.number().int().nonnegative().optional(),
      message: z.object({
        content: z.string().nullable().optional(),
        refusal: z.string().nullable().optional(),
        reasoning_content: z.string().nullable().optional(),
        tool_calls: z
          .array(z.object({ id: z.string().optional(), function: z.object({ name: z.string(), arguments: z.string().nullable().optional() }) }))
          .nullable()
          .optional(),
      }),
      finish_reason: z.string().nullable().optional(),
    }),
  ),
  usage: z
    .object({
      prompt_tokens: Count,
      completion_tokens: Count,
      prompt_tokens_details: z.object({ cached_tokens: Count.nullable().optional() }).nullable().optional(),
      completion_tokens_details: z.object({ reasoning_tokens: Count.nullable().optional() }).nullable().optional(),
    })
    .nullable()
    .optional(),
});

export function chatAdapter(options: ChatAdapterOptions): ProviderAdapter<ChatCompletionCreateParamsNonStreaming> {
  return {
    nativeN: options.nativeN,
    build: (request, n) => buildChatParams(request, n, options.model),
    send: async (params, { signal }) => {
      const response: unknown = await options.client.chat.completions.create(params, signal === undefined ? {} : { signal });
      return parseChatCompletion(response, options.label);
    },
  };
}

export function buildChatParams(request: GenerateRequest, n: number, model: string): { params: ChatCompletionCreateParamsNonStreaming; warnings: string[] } {
  const warnings: string[] = [];
  const params: ChatCompletionCreateParamsNonStreaming = { model, messages: request.messages.map(toChatMessage) };
  if (request.tools?.length) {
    params.tools = request.tools.map((t) => ({ type: "function", function: { name: t.name, description: t.description, parameters: t.parameters } }));
    const choice = request.toolChoice;
    if (choice !== undefined) params.tool_choice = typeof choice === "string" ? choice : { type: "function", function: { name: choice.name } };
  }
  if (n > 1) params.n = n;
  if (request.temperature !== undefined) params.temperature = request.temperature;
  if (request.maxTokens !== undefined) params.max_tokens = request.maxTokens;
  if (request.stop?.length) params.stop = request.stop;
  if (request.reasoningEffort !== undefined) params.reasoning_effort = request.reasoningEffort;
  if (request.thinking !== undefined) warnings.push("thinking is an Anthropic setting; a compatible server was not sent it");
  return { params, warnings };
}

function toChatMessage(message: Message): ChatCompletionMessageParam {
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
        tool_calls: calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: argumentsText(c) } })),
      };
    }
    case "tool":
      return { role: "tool", tool_call_id: message.toolCallId, content: message.content };
  }
}

export function parseChatCompletion(json: unknown, label: string): ParsedResponse {
  const parsed = ChatResponseShape.safeParse(json);
  if (!parsed.success) {
    throw new ModelResponseError(
      typeof json === "string"
        ? `${label} answered with a body that is not JSON: ${json.slice(0, 200)}`
        : `${label} answered with a body that is not a chat completion:\n${formatIssues(parsed.error)}`,
      { hint: "check that the URL points at an OpenAI-compatible API (usually ending in /v1, serving POST /chat/completions)" },
    );
  }
  const response = parsed.data;
  const choices = [...response.choices]
    .sort((a, b) => (a.index ?? 0) - (b.index ?? 0))
    .map((choice, c): Choice => {
      const toolCalls = (choice.message.tool_calls ?? []).map((call, k) =>
        toolCall(call.id || `call_${c}_${k}`, call.function.name, call.function.arguments ?? ""),
      );
      const thought = choice.message.reasoning_content;
      return {
        message: {
          role: "assistant",
          content: choice.message.content ?? choice.message.refusal ?? "",
          ...(toolCalls.length > 0 ? { toolCalls } : {}),
          ...(thought ? { reasoning: [{ provider: "compat" as const, text: thought, raw: { reasoning_content: thought } }] } : {}),
        },
        finishReason: finishReason(choice.finish_reason ?? null),
        rawFinishReason: choice.finish_reason ?? null,
      };
    });
  const u = response.usage;
  const cached = u?.prompt_tokens_details?.cached_tokens ?? 0;
  return {
    id: response.id,
    model: response.model,
    choices,
    usage: u
      ? {
          inputTokens: Math.max(0, u.prompt_tokens - cached),
          cacheReadTokens: cached,
          cacheWriteTokens: 0,
          cacheWrite1hTokens: 0,
          outputTokens: u.completion_tokens,
          reasoningTokens: u.completion_tokens_details?.reasoning_tokens ?? 0,
        }
      : undefined,
  };
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
