/**
 * @module
 * `anthropic:` models through the official SDK's messages API, streamed (`messages.stream`, as Anthropic asks
 * of requests that may run long; a stream that goes quiet is cut). The API returns one choice per request, so
 * `n > 1` is emulated by `n` calls in a row (each charged its input). System messages become the top-level
 * `system`; tool results become `tool_result` blocks in a user turn; turns of the same role are merged, as
 * the API requires alternating roles.
 *
 * Extended thinking (`thinking`): the reply's thinking blocks, with their signatures, are kept with the
 * message and sent back unchanged on the next turn (the API requires it while the model is using tools).
 * With thinking on, the API takes no forced tool choice: rebench sends `auto`, with a warning. The API
 * version the SDK speaks (2026-10-21) takes no sampling settings at all: a temperature is not sent, with a
 * warning.
 *
 * Prompt caching (`cache`): `cache_control` on the last tool, on the system prompt and on the last block of
 * the latest two messages marked `cacheBreakpoint` (the API allows four breakpoints): the scaffold marks
 * the end of the conversation each turn, so each request reads the prefix the previous one wrote.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { AnthropicError, APIError } from "@anthropic-ai/sdk";
import type {
  CacheControlEphemeral,
  ContentBlock,
  ContentBlockParam,
  MessageCreateParamsNonStreaming,
  MessageParam,
  TextBlockParam,
  Tool,
} from "@anthropic-ai/sdk/resources/messages/messages";
import { z } from "zod";
import { formatIssues, InvalidInputError } from "../../../core/index.js";
import { ModelResponseError } from "../errors.js";
import type { AssistantMessage, FinishReason, GenerateRequest, Message, ReasoningBlock, ToolCall } from "../model-client.js";
import type { ParsedResponse, ProviderAdapter } from "../provider-client.js";
import { finishStream } from "../stream-watch.js";

export interface MessagesAdapterOptions {
  client: Anthropic;
  model: string;
  label: string;
  /** `max_tokens` when the request sets none (the API requires one); default 4096. */
  defaultMaxTokens?: number;
  /** A stream that sends no event for this long is cut (a retryable failure); default 600,000 ms. */
  idleTimeoutMs?: number;
}

/** The `anthropic-version` the SDK sends; the API refuses temperature, top_p and top_k from it on. */
export const ANTHROPIC_API_VERSION = "2026-10-21";

/** Breakpoints on messages; with the tools and the system prompt, the API's four. */
const MESSAGE_BREAKPOINTS = 2;

const Count = z.number().int().nonnegative();
const MessageShape = z.object({
  id: z.string(),
  role: z.literal("assistant"),
  model: z.string(),
  content: z.array(z.object({ type: z.string() }).loose()),
  stop_reason: z.string().nullable(),
  /** Anthropic always sends usage; proxies in between may not, which costs a warning, not the call. */
  usage: z
    .object({
      input_tokens: Count,
      output_tokens: Count,
      cache_creation_input_tokens: Count.nullable().optional(),
      cache_read_input_tokens: Count.nullable().optional(),
      cache_creation: z.object({ ephemeral_5m_input_tokens: Count.optional(), ephemeral_1h_input_tokens: Count.optional() }).nullable().optional(),
      output_tokens_details: z.object({ thinking_tokens: Count.optional() }).nullable().optional(),
    })
    .nullable()
    .optional(),
});
const TextBlock = z.object({ type: z.literal("text"), text: z.string() });
const ToolUseBlock = z.object({ type: z.literal("tool_use"), id: z.string().min(1), name: z.string().min(1), input: z.record(z.string(), z.unknown()) });
const ThinkingBlock = z.object({ type: z.literal("thinking"), thinking: z.string(), signature: z.string() });
const RedactedThinkingBlock = z.object({ type: z.literal("redacted_thinking"), data: z.string() });
const KNOWN_BLOCKS: Record<string, z.ZodType> = { text: TextBlock, tool_use: ToolUseBlock, thinking: ThinkingBlock, redacted_thinking: RedactedThinkingBlock };

export function messagesAdapter(options: MessagesAdapterOptions): ProviderAdapter<MessageCreateParamsNonStreaming> {
  return {
    nativeN: false,
    build: (request) => buildMessagesParams(request, options),
    send: async (params, { signal }) => {
      // Streamed, as Anthropic asks of long requests (thinking replies take minutes); finalMessage() is the whole message.
      const stream = options.client.messages.stream(params, signal === undefined ? {} : { signal });
      let message: unknown;
      try {
        message = await finishStream(
          { onEvent: (listener) => stream.on("streamEvent", listener), abort: () => stream.abort(), final: () => stream.finalMessage() },
          { idleMs: options.idleTimeoutMs ?? 600_000, label: options.label },
        );
      } catch (error) {
        if (error instanceof AnthropicError && !(error instanceof APIError)) {
          // A 2xx answer that is not an event stream of a message (a proxy's page, a bare JSON body).
          throw new ModelResponseError(`${options.label} answered with a body that is not a message stream: ${error.message}`, {
            hint: "check that the base URL points at the Anthropic messages API (POST /v1/messages)",
          });
        }
        throw error;
      }
      return parseMessage(message, options.label);
    },
  };
}

export function buildMessagesParams(
  request: GenerateRequest,
  options: Pick<MessagesAdapterOptions, "model" | "defaultMaxTokens">,
): { params: MessageCreateParamsNonStreaming; warnings: string[] } {
  const warnings: string[] = [];
  const cache: CacheControlEphemeral | undefined = request.cache ? { type: "ephemeral", ttl: request.cache.ttl } : undefined;
  const system = request.messages.flatMap((m) => (m.role === "system" ? [m.content] : []));
  const maxTokens = request.maxTokens ?? options.defaultMaxTokens ?? 4096;
  const marked = new Set(
    request.messages
      .map((m, i) => (m.cacheBreakpoint && m.role !== "system" ? i : -1))
      .filter((i) => i >= 0)
      .slice(-MESSAGE_BREAKPOINTS),
  );
  const params: MessageCreateParamsNonStreaming = {
    model: options.model,
    max_tokens: maxTokens,
    messages: mergeTurns(request.messages.flatMap((m, i) => toAnthropicMessages(m, cache !== undefined && marked.has(i) ? cache : undefined))),
  };
  if (system.length > 0) {
    const block: TextBlockParam = { type: "text", text: system.join("\n\n") };
    if (cache) block.cache_control = cache;
    params.system = [block];
  }
  const thinking = request.thinking;
  if (thinking !== undefined) {
    if (thinking !== "adaptive" && thinking.budgetTokens >= maxTokens) {
      throw new InvalidInputError(
        `the thinking budget (${thinking.budgetTokens} tokens) must be below maxTokens (${maxTokens}), which counts the thinking too`,
        {
          hint: "raise maxTokens or lower the thinking budget in --agent-config",
        },
      );
    }
    params.thinking = thinking === "adaptive" ? { type: "adaptive" } : { type: "enabled", budget_tokens: thinking.budgetTokens };
  }
  if (request.tools?.length) {
    params.tools = request.tools.map(
      (t, i): Tool => ({
        name: t.name,
        description: t.description,
        input_schema: t.parameters as Tool["input_schema"],
        ...(cache && i === request.tools!.length - 1 ? { cache_control: cache } : {}),
      }),
    );
    const choice = request.toolChoice;
    if (choice !== undefined) {
      const forced = choice === "required" || typeof choice === "object";
      if (forced && thinking !== undefined) {
        warnings.push("with thinking on, Anthropic takes no forced tool choice; the model was left to choose (tool_choice auto)");
        params.tool_choice = { type: "auto" };
      } else {
        params.tool_choice =
          choice === "auto"
            ? { type: "auto" }
            : choice === "none"
              ? { type: "none" }
              : choice === "required"
                ? { type: "any" }
                : { type: "tool", name: choice.name };
      }
    }
  }
  if (request.temperature !== undefined) {
    warnings.push(`Anthropic's API (version ${ANTHROPIC_API_VERSION}, which the SDK speaks) takes no temperature; ${request.temperature} was not sent`);
  }
  if (request.stop?.length) params.stop_sequences = request.stop;
  if (request.reasoningEffort !== undefined) warnings.push("reasoningEffort is an OpenAI setting; for Anthropic models set a thinking budget");
  return { params, warnings };
}

function toAnthropicMessages(message: Message, cache: CacheControlEphemeral | undefined): Turn[] {
  const out = ((): Turn[] => {
    switch (message.role) {
      case "system":
        return [];
      case "user":
        return [{ role: "user", content: [{ type: "text", text: nonEmpty(message.content) }] }];
      case "assistant":
        return [{ role: "assistant", content: assistantBlocks(message) }];
      case "tool":
        return [
          {
            role: "user",
            content: [{ type: "tool_result", tool_use_id: message.toolCallId, content: message.content, ...(message.isError ? { is_error: true } : {}) }],
          },
        ];
    }
  })();
  const last = out.at(-1)?.content;
  if (cache && last !== undefined && last.length > 0) {
    const block = { ...last.at(-1)! } as ContentBlockParam & { cache_control?: CacheControlEphemeral };
    block.cache_control = cache;
    last[last.length - 1] = block;
  }
  return out;
}

function assistantBlocks(message: AssistantMessage): ContentBlockParam[] {
  const verbatim = verbatimBlocks(message);
  if (verbatim) return verbatim;
  const calls = message.toolCalls ?? [];
  const content: ContentBlockParam[] = (message.reasoning ?? []).filter((r) => r.provider === "anthropic").map((r) => r.raw as unknown as ContentBlockParam);
  if (message.content !== "" || calls.length === 0) content.push({ type: "text", text: nonEmpty(message.content) });
  for (const c of calls) content.push({ type: "tool_use", id: c.id, name: c.name, input: c.arguments });
  return content;
}

/** The reply's own blocks, when they still say what the message says. */
function verbatimBlocks(message: AssistantMessage): ContentBlockParam[] | undefined {
  const output = message.providerOutput;
  if (output?.provider !== "anthropic") return undefined;
  const blocks = output.items as unknown as ContentBlock[];
  const text = blocks.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");
  const uses = blocks.flatMap((b) => (b.type === "tool_use" ? [b] : []));
  const mine = message.toolCalls ?? [];
  const same =
    text === message.content &&
    !blocks.some((b) => b.type === "text" && b.text === "") &&
    uses.length === mine.length &&
    uses.every((u, k) => u.id === mine[k]!.id && JSON.stringify(u.input) === JSON.stringify(mine[k]!.arguments));
  return same && blocks.length > 0 ? ([...blocks] as unknown as ContentBlockParam[]) : undefined;
}

/** The API refuses empty text blocks; an empty turn is sent as a visible placeholder instead. */
function nonEmpty(text: string): string {
  return text === "" ? "(empty)" : text;
}

type Turn = { role: "user" | "assistant"; content: ContentBlockParam[] };

function mergeTurns(messages: Turn[]): MessageParam[] {
  const merged: Turn[] = [];
  for (const message of messages) {
    const last = merged.at(-1);
    if (last?.role === message.role) last.content = [...last.content, ...message.content];
    else merged.push({ role: message.role, content: [...message.content] });
  }
  return merged;
}

export function parseMessage(json: unknown, label: string): ParsedResponse {
  const parsed = MessageShape.safeParse(json);
  if (!parsed.success) {
    throw new ModelResponseError(
      typeof json === "string"
        ? `${label} answered with a body that is not JSON: ${json.slice(0, 200)}`
        : `${label} answered with a body that is not a message:\n${formatIssues(parsed.error)}`,
      { hint: "check that the base URL points at the Anthropic messages API (POST /v1/messages)" },
    );
  }
  const response = parsed.data;
  const texts: string[] = [];
  const toolCalls: ToolCall[] = [];
  const reasoning: ReasoningBlock[] = [];
  response.content.forEach((block, index) => {
    const schema = KNOWN_BLOCKS[block.type];
    if (schema === undefined) return; // server tools and other block types are not part of the neutral message
    const checked = schema.safeParse(block);
    if (!checked.success) {
      throw new ModelResponseError(`${label} answered with a malformed ${block.type} block (content.${index}):\n${formatIssues(checked.error)}`);
    }
    const value = checked.data as
      | z.infer<typeof TextBlock>
      | z.infer<typeof ToolUseBlock>
      | z.infer<typeof ThinkingBlock>
      | z.infer<typeof RedactedThinkingBlock>;
    if (value.type === "text") texts.push(value.text);
    else if (value.type === "tool_use") toolCalls.push({ id: value.id, name: value.name, arguments: value.input, rawArguments: JSON.stringify(value.input) });
    else reasoning.push({ provider: "anthropic", text: value.type === "thinking" ? value.thinking : "", raw: block });
  });
  const u = response.usage;
  const written = u?.cache_creation_input_tokens ?? 0;
  return {
    id: response.id,
    model: response.model,
    choices: [
      {
        message: {
          role: "assistant",
          content: texts.join(""),
          ...(toolCalls.length > 0 ? { toolCalls } : {}),
          ...(reasoning.length > 0 ? { reasoning } : {}),
          providerOutput: { provider: "anthropic", items: response.content },
        },
        finishReason: finishReason(response.stop_reason),
        rawFinishReason: response.stop_reason,
      },
    ],
    usage: u
      ? {
          inputTokens: u.input_tokens,
          cacheReadTokens: u.cache_read_input_tokens ?? 0,
          cacheWriteTokens: written,
          cacheWrite1hTokens: Math.min(written, u.cache_creation?.ephemeral_1h_input_tokens ?? 0),
          outputTokens: u.output_tokens,
          reasoningTokens: u.output_tokens_details?.thinking_tokens ?? 0,
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
