/**
 * @module
 * A rebench `generation` event as Inspect's ModelOutput: the model as `provider/model`, each choice's reply
 * (its text, its reasoning as reasoning content, its tool calls), the tokens by kind as ModelUsage, and the
 * dollars in `metadata` (Inspect's usage has no field for them). Long texts go through `attach` (the
 * sample's attachments, src/web/inspect-sample.ts).
 */
import type { RunEvent } from "../core/index.js";
import type { ModelOutput, ModelUsage } from "../core/inspect-log.js";

type Generation = Extract<RunEvent, { type: "generation" }>;

function record(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** Tokens of one generation: every input kind plus output is `total_tokens` (what `--tokens` counts). */
export function usageOf(e: Generation): ModelUsage {
  const cacheRead = e.cacheReadTokens ?? 0;
  const cacheWrite = e.cacheWriteTokens ?? 0;
  return {
    input_tokens: e.inputTokens,
    output_tokens: e.outputTokens,
    total_tokens: e.inputTokens + cacheRead + cacheWrite + e.outputTokens,
    input_tokens_cache_write: e.cacheWriteTokens ?? null,
    input_tokens_cache_read: e.cacheReadTokens ?? null,
    reasoning_tokens: e.reasoningTokens ?? null,
  };
}

/** The sum of two usages (a kind stays null only where both are). */
export function addUsage(a: ModelUsage | undefined, b: ModelUsage): ModelUsage {
  if (!a) return { ...b };
  const sum = (x: number | null, y: number | null) => (x === null && y === null ? null : (x ?? 0) + (y ?? 0));
  return {
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    total_tokens: a.total_tokens + b.total_tokens,
    input_tokens_cache_write: sum(a.input_tokens_cache_write, b.input_tokens_cache_write),
    input_tokens_cache_read: sum(a.input_tokens_cache_read, b.input_tokens_cache_read),
    reasoning_tokens: sum(a.reasoning_tokens, b.reasoning_tokens),
  };
}

const STOP_REASON: Record<string, ModelOutput["choices"][number]["stop_reason"]> = {
  stop: "stop",
  length: "max_tokens",
  tool_calls: "tool_calls",
  content_filter: "content_filter",
};

/** The output of the generation event numbered `seq`. */
export function modelOutput(event: Generation, seq: number, attach: (text: string) => string): ModelOutput {
  const name = event.model.replace(":", "/");
  const content = record(event.content);
  const choices = Array.isArray(content.choices) ? content.choices.map(record) : [];
  let completion = "";
  const outChoices = choices.map((choice, i) => {
    const message = record(choice.message);
    const calls = Array.isArray(message.toolCalls) ? message.toolCalls.map(record) : [];
    const reasoning = Array.isArray(message.reasoning) ? message.reasoning.map(record) : [];
    const text = typeof message.content === "string" ? message.content : "";
    if (i === 0) completion = text;
    const parts = [
      ...reasoning.map((r) => ({
        internal: null,
        type: "reasoning" as const,
        reasoning: attach(String(r.text ?? "")),
        summary: null,
        signature: null,
        redacted: r.text === "",
      })),
      ...(text ? [{ internal: null, type: "text" as const, text: attach(text), refusal: null, citations: null }] : []),
    ];
    const assistant = {
      id: null,
      content: reasoning.length > 0 ? parts : attach(text),
      source: "generate" as const,
      metadata: null,
      role: "assistant" as const,
      tool_calls:
        calls.length > 0
          ? calls.map((c) => ({
              id: String(c.id),
              function: String(c.name),
              arguments: record(c.arguments),
              parse_error: typeof c.argumentsError === "string" ? c.argumentsError : null,
              view: null,
              type: "function",
            }))
          : null,
      model: name,
    };
    return { message: assistant, stop_reason: STOP_REASON[String(choice.finishReason)] ?? "unknown", logprobs: null };
  });
  return {
    model: name,
    choices: outChoices,
    completion: attach(completion),
    usage: usageOf(event),
    time: event.durationMs === undefined ? null : event.durationMs / 1000,
    metadata: { costUsd: event.costUsd, ...(event.costByKind ? { costByKind: event.costByKind } : {}), seq },
    error: null,
  };
}
