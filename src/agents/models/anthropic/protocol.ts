/**
 * @module
 * The Anthropic messages protocol adapter. The messages API returns one choice per request, so `n > 1`
 * is emulated by `n` sequential calls (each charged its input tokens). System messages become the
 * top-level `system`; tool results become `tool_result` blocks in a user turn, and consecutive turns of
 * the same role are merged, as the API requires alternating roles.
 */
import { formatIssues } from "../../../core/index.js";
import { ModelResponseError } from "../errors.js";
import type { ParsedResponse, Protocol } from "../http-model-client.js";
import type { FinishReason, GenerateRequest, Message, ToolCall } from "../model-client.js";
import {
  type AnthropicBlock,
  type AnthropicMessage,
  type AnthropicRequest,
  AnthropicResponse,
  AnthropicTextBlock,
  AnthropicToolUseBlock,
} from "./wire.js";

export interface AnthropicProtocolOptions {
  model: string;
  label: string;
  /** `max_tokens` when the request sets none (the API requires one); default 4096. */
  defaultMaxTokens?: number;
}

export function anthropicProtocol(options: AnthropicProtocolOptions): Protocol {
  return {
    nativeN: false,
    buildBody: (request) => toAnthropicRequest(request, options),
    parseResponse: (json) => fromAnthropicResponse(json, options.label),
  };
}

export function toAnthropicRequest(
  request: GenerateRequest,
  options: AnthropicProtocolOptions,
): { body: AnthropicRequest; warnings: string[] } {
  const warnings: string[] = [];
  const system = request.messages.flatMap((m) => (m.role === "system" ? [m.content] : []));
  const body: AnthropicRequest = {
    model: options.model,
    max_tokens: request.maxTokens ?? options.defaultMaxTokens ?? 4096,
    messages: mergeTurns(request.messages.flatMap(toAnthropicMessage)),
  };
  if (system.length > 0) body.system = system.join("\n\n");
  if (request.tools?.length) {
    body.tools = request.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters }));
    const choice = request.toolChoice;
    if (choice !== undefined) {
      body.tool_choice =
        choice === "auto"
          ? { type: "auto" }
          : choice === "none"
            ? { type: "none" }
            : choice === "required"
              ? { type: "any" }
              : { type: "tool", name: choice.name };
    }
  }
  if (request.temperature !== undefined) {
    body.temperature = Math.min(1, request.temperature);
    if (request.temperature > 1) {
      warnings.push(`Anthropic accepts temperature 0..1; ${request.temperature} was sent as 1`);
    }
  }
  if (request.stop?.length) body.stop_sequences = request.stop;
  return { body, warnings };
}

function toAnthropicMessage(message: Message): AnthropicMessage[] {
  switch (message.role) {
    case "system":
      return [];
    case "user":
      return [{ role: "user", content: [{ type: "text", text: nonEmpty(message.content) }] }];
    case "assistant": {
      const calls = message.toolCalls ?? [];
      const content: AnthropicBlock[] = message.content === "" && calls.length > 0 ? [] : [{ type: "text", text: nonEmpty(message.content) }];
      for (const c of calls) content.push({ type: "tool_use", id: c.id, name: c.name, input: c.arguments });
      return [{ role: "assistant", content }];
    }
    case "tool":
      return [
        {
          role: "user",
          content: [
            {
              type: "tool_result",
              tool_use_id: message.toolCallId,
              content: message.content,
              ...(message.isError ? { is_error: true } : {}),
            },
          ],
        },
      ];
  }
}

/** The API refuses empty text blocks; an empty turn is sent as a visible placeholder instead. */
function nonEmpty(text: string): string {
  return text === "" ? "(empty)" : text;
}

function mergeTurns(messages: AnthropicMessage[]): AnthropicMessage[] {
  const merged: AnthropicMessage[] = [];
  for (const message of messages) {
    const last = merged.at(-1);
    if (last?.role === message.role) last.content = [...last.content, ...message.content];
    else merged.push({ role: message.role, content: [...message.content] });
  }
  return merged;
}

export function fromAnthropicResponse(json: unknown, label: string): ParsedResponse {
  const parsed = AnthropicResponse.safeParse(json);
  if (!parsed.success) {
    throw new ModelResponseError(`${label} answered with a body that is not a message:\n${formatIssues(parsed.error)}`, {
      hint: "check that the base URL points at the Anthropic messages API (POST /v1/messages)",
    });
  }
  const response = parsed.data;
  const texts: string[] = [];
  const toolCalls: ToolCall[] = [];
  response.content.forEach((block, index) => {
    const schema = block.type === "text" ? AnthropicTextBlock : block.type === "tool_use" ? AnthropicToolUseBlock : undefined;
    if (schema === undefined) return; // thinking and other block types are not part of the neutral message
    const checked = schema.safeParse(block);
    if (!checked.success) {
      throw new ModelResponseError(
        `${label} answered with a malformed ${block.type} block (content.${index}):\n${formatIssues(checked.error)}`,
      );
    }
    const value = checked.data;
    if (value.type === "text") texts.push(value.text);
    else toolCalls.push({ id: value.id, name: value.name, arguments: value.input, rawArguments: JSON.stringify(value.input) });
  });
  const u = response.usage;
  return {
    id: response.id,
    model: response.model,
    choices: [
      {
        message: { role: "assistant", content: texts.join(""), ...(toolCalls.length > 0 ? { toolCalls } : {}) },
        finishReason: finishReason(response.stop_reason),
        rawFinishReason: response.stop_reason,
      },
    ],
    usage: u
      ? {
          inputTokens: u.input_tokens + (u.cache_creation_input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0),
          outputTokens: u.output_tokens,
        }
      : undefined,
  };
}

function finishReason(reason: string | null): FinishReason {
  switch (reason) {
    case "end_turn":
    case "stop_sequence":
      return "stop";
    case "max_tokens":
      return "length";
    case "tool_use":
      return "tool_calls";
    case "refusal":
      return "content_filter";
    default:
      return "other";
  }
}
