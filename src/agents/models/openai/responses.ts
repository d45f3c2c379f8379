/**
 * @module
 * `openai:` models through the official SDK's Responses API, streamed (`responses.stream`; a stream that goes
 * quiet is cut). The conversation is sent whole on every turn
 * (`store: false`: OpenAI keeps nothing, so a run rebuilt from its history after a restart sends exactly
 * what a live run sends). A reasoning model's reasoning items come back with their `encrypted_content`
 * (`include: ["reasoning.encrypted_content"]`) and go back unchanged on the next turn, in their place among
 * the message and function-call items, so the model keeps its chain of thought across tool calls; their
 * summaries (`reasoningSummary`) are what a person reads. Usage: `input_tokens` counts the cached and the
 * newly cached tokens too, `output_tokens` the reasoning too; rebench splits them into its kinds.
 */
import type OpenAI from "openai";
import { APIError, OpenAIError } from "openai";
import type { FunctionTool, ResponseCreateParamsStreaming, ResponseInputItem, ResponseOutputItem } from "openai/resources/responses/responses";
import { z } from "zod";
import { formatIssues } from "../../../core/index.js";
import { ModelResponseError } from "../errors.js";
import type { AssistantMessage, FinishReason, GenerateRequest, Message, ReasoningBlock, ToolCall } from "../model-client.js";
import type { ModelInfo } from "../prices.js";
import type { ParsedResponse, ProviderAdapter } from "../provider-client.js";
import { finishStream } from "../stream-watch.js";
import { argumentsText, toolCall } from "../tool-arguments.js";

export interface ResponsesAdapterOptions {
  client: OpenAI;
  model: string;
  label: string;
  /** The model table's entry: whether the model reasons. */
  info: ModelInfo | undefined;
  /** A stream that sends no event for this long is cut (a retryable failure); default 600,000 ms. */
  idleTimeoutMs?: number;
}

/** The parts of a response rebench reads; lenient elsewhere, so a newer API's extra fields pass. */
const ResponseShape = z.object({
  id: z.string().optional(),
  model: z.string().optional(),
  status: z.string().nullable().optional(),
  error: z.object({ code: z.string().nullable().optional(), message: z.string() }).nullable().optional(),
  incomplete_details: z.object({ reason: z.string().nullable().optional() }).nullable().optional(),
  output: z.array(z.object({ type: z.string() }).loose()),
  usage: z
    .object({
      input_tokens: z.number().int().nonnegative(),
      input_tokens_details: z
        .object({
          cached_tokens: z.number().int().nonnegative().nullable().optional(),
          cache_write_tokens: z.number().int().nonnegative().nullable().optional(),
        })
        .nullable()
        .optional(),
      output_tokens: z.number().int().nonnegative(),
      output_tokens_details: z.object({ reasoning_tokens: z.number().int().nonnegative().nullable().optional() }).nullable().optional(),
    })
    .nullable()
    .optional(),
});

export function responsesAdapter(options: ResponsesAdapterOptions): ProviderAdapter<ResponseCreateParamsStreaming> {
  return {
    nativeN: false,
    build: (request) => buildResponsesParams(request, options),
    send: async (params, { signal }) => {
      // Streamed: a reasoning reply can take longer than any sensible deadline for a whole request; a stream
      // that goes quiet is cut instead. finalResponse() is the completed response.
      const stream = options.client.responses.stream(params, signal === undefined ? {} : { signal });
      // The response as the API sent it in its last event: finalResponse() adds the SDK's own parsed fields
      // (`parsed`, `parsed_arguments`), which the API would refuse when the items go back.
      let sent: unknown;
      stream.on("event", (event) => {
        if (event.type === "response.completed" || event.type === "response.incomplete" || event.type === "response.failed") sent = event.response;
      });
      let response: unknown;
      try {
        response = await finishStream(
          {
            onEvent: (listener) => stream.on("event", listener),
            abort: () => stream.abort(),
            final: async () => {
              const final = await stream.finalResponse();
              return sent ?? final;
            },
          },
          { idleMs: options.idleTimeoutMs ?? 600_000, label: options.label },
        );
      } catch (error) {
        if (error instanceof OpenAIError && !(error instanceof APIError)) {
          // A 2xx answer that is not an event stream of a response (a proxy's page, a bare JSON body).
          throw new ModelResponseError(`${options.label} answered with a body that is not a response stream: ${error.message}`, {
            hint: "check that the endpoint speaks OpenAI's Responses API (POST /v1/responses); for a chat-completions server use compat:URL#MODEL",
          });
        }
        throw error;
      }
      return parseResponse(response, options.label);
    },
  };
}

export function buildResponsesParams(
  request: GenerateRequest,
  options: Pick<ResponsesAdapterOptions, "model" | "info">,
): { params: ResponseCreateParamsStreaming; warnings: string[] } {
  const warnings: string[] = [];
  // A reasoning model by the model table, or by the request asking for an effort; a summary alone does not make one.
  const reasoning = options.info?.reasoning === true || request.reasoningEffort !== undefined;
  const params: ResponseCreateParamsStreaming = {
    model: options.model,
    input: request.messages.flatMap(toInputItems),
    store: false,
    stream: true,
  };
  if (request.tools?.length) {
    params.tools = request.tools.map(
      (t): FunctionTool => ({ type: "function", name: t.name, description: t.description, parameters: t.parameters, strict: false }),
    );
    const choice = request.toolChoice;
    if (choice !== undefined) params.tool_choice = typeof choice === "string" ? choice : { type: "function", name: choice.name };
  }
  if (request.maxTokens !== undefined) params.max_output_tokens = request.maxTokens;
  if (reasoning) {
    params.include = ["reasoning.encrypted_content"];
    params.reasoning = {
      ...(request.reasoningEffort === undefined ? {} : { effort: request.reasoningEffort }),
      ...(request.reasoningSummary === undefined ? {} : { summary: request.reasoningSummary }),
    };
    if (request.temperature !== undefined)
      warnings.push(`${options.model} is a reasoning model, which takes no temperature; ${request.temperature} was not sent`);
  } else if (request.temperature !== undefined) {
    params.temperature = request.temperature;
  }
  if (request.stop?.length) warnings.push("OpenAI's Responses API has no stop sequences; they were not sent");
  if (request.cache?.key !== undefined) params.prompt_cache_key = request.cache.key;
  if (request.thinking !== undefined) warnings.push("thinking is an Anthropic setting; for OpenAI models set reasoningEffort");
  return { params, warnings };
}

function toInputItems(message: Message): ResponseInputItem[] {
  switch (message.role) {
    case "system":
    case "user":
      return [{ type: "message", role: message.role, content: message.content }];
    case "tool":
      return [{ type: "function_call_output", call_id: message.toolCallId, output: message.content }];
    case "assistant": {
      const verbatim = verbatimItems(message);
      if (verbatim) return verbatim;
      const items: ResponseInputItem[] = (message.reasoning ?? [])
        .filter((r) => r.provider === "openai" && carried(r.raw))
        .map((r) => r.raw as unknown as ResponseInputItem);
      if (message.content !== "") items.push({ type: "message", role: "assistant", content: message.content });
      for (const c of message.toolCalls ?? []) items.push({ type: "function_call", call_id: c.id, name: c.name, arguments: argumentsText(c) });
      return items;
    }
  }
}

/** The response's own items, when they still say what the message says. */
function verbatimItems(message: AssistantMessage): ResponseInputItem[] | undefined {
  const output = message.providerOutput;
  if (output?.provider !== "openai") return undefined;
  const items = output.items as unknown as ResponseOutputItem[];
  const calls = items.flatMap((i) => (i.type === "function_call" ? [i] : []));
  const mine = message.toolCalls ?? [];
  const same =
    outputText(items) === message.content &&
    calls.length === mine.length &&
    calls.every((c, k) => c.call_id === mine[k]!.id && c.arguments === argumentsText(mine[k]!));
  return same ? (items.filter((i) => i.type !== "reasoning" || carried(i)) as unknown as ResponseInputItem[]) : undefined;
}

/** OpenAI keeps nothing (`store: false`): reasoning without its encrypted content cannot go back. */
function carried(item: object): boolean {
  return typeof (item as { encrypted_content?: unknown }).encrypted_content === "string";
}

function outputText(items: readonly ResponseOutputItem[]): string {
  return items.flatMap((i) => (i.type === "message" ? i.content.map((part) => (part.type === "output_text" ? part.text : part.refusal)) : [])).join("");
}

export function parseResponse(json: unknown, label: string): ParsedResponse {
  const parsed = ResponseShape.safeParse(json);
  if (!parsed.success) {
    throw new ModelResponseError(
      typeof json === "string"
        ? `${label} answered with a body that is not JSON: ${json.slice(0, 200)}`
        : `${label} answered with a body that is not a response:\n${formatIssues(parsed.error)}`,
      { hint: "check that the endpoint speaks OpenAI's Responses API (POST /v1/responses); for a chat-completions server use compat:URL#MODEL" },
    );
  }
  const response = parsed.data;
  if (response.status === "failed") {
    throw new ModelResponseError(
      `${label} could not answer: ${response.error?.message ?? "the response failed"}${response.error?.code ? ` (${response.error.code})` : ""}`,
    );
  }
  const items = response.output as unknown as ResponseOutputItem[];
  const warnings: string[] = [];
  const reasoning: ReasoningBlock[] = [];
  const toolCalls: ToolCall[] = [];
  items.forEach((item, index) => {
    if (item.type === "reasoning") {
      reasoning.push({ provider: "openai", text: (item.summary ?? []).map((s) => s.text).join("\n\n"), raw: item as unknown as Record<string, unknown> });
    } else if (item.type === "function_call") {
      toolCalls.push(toolCall(item.call_id || `call_${index}`, item.name, item.arguments ?? ""));
    }
  });
  if (reasoning.some((r) => !carried(r.raw))) {
    warnings.push(
      `${label} returned reasoning without its encrypted content, which rebench asks for only from reasoning models; it is not carried to the next turn ` +
        '(mark the model with "reasoning": true in a price file named by REBENCH_PRICES, or set reasoningEffort)',
    );
  }
  const incomplete = response.status === "incomplete" ? (response.incomplete_details?.reason ?? "incomplete") : null;
  const u = response.usage;
  const reasoningTokens = u?.output_tokens_details?.reasoning_tokens ?? 0;
  if (incomplete === "max_output_tokens" && toolCalls.length === 0 && outputText(items) === "") {
    warnings.push(
      `the reply ran out of output tokens${reasoningTokens > 0 ? ` after ${reasoningTokens} tokens of reasoning` : ""} before it said anything: raise maxTokens (it counts the reasoning too)`,
    );
  }
  const message: AssistantMessage = {
    role: "assistant",
    content: outputText(items),
    ...(toolCalls.length > 0 ? { toolCalls } : {}),
    ...(reasoning.length > 0 ? { reasoning } : {}),
    providerOutput: { provider: "openai", items: items as unknown as Record<string, unknown>[] },
  };
  const cached = u?.input_tokens_details?.cached_tokens ?? 0;
  const written = u?.input_tokens_details?.cache_write_tokens ?? 0;
  return {
    id: response.id,
    model: response.model,
    choices: [{ message, finishReason: finishReason(incomplete, toolCalls.length > 0), rawFinishReason: incomplete ?? response.status ?? null }],
    usage: u
      ? {
          inputTokens: Math.max(0, u.input_tokens - cached - written),
          cacheReadTokens: cached,
          cacheWriteTokens: written,
          cacheWrite1hTokens: 0,
          outputTokens: u.output_tokens,
          reasoningTokens,
        }
      : undefined,
    warnings,
  };
}

function finishReason(incomplete: string | null, calledTools: boolean): FinishReason {
  if (incomplete === "max_output_tokens") return "length";
  if (incomplete === "content_filter") return "content_filter";
  if (incomplete !== null) return "other";
  return calledTools ? "tool_calls" : "stop";
}
