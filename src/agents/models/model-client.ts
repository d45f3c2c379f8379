/**
 * @module
 * The one interface every scaffold talks to, whatever the provider: messages with roles, tools as JSON
 * schema, tool calls and results, several choices per request, reasoning carried across turns, prompt
 * caching, and a result that carries usage by token kind, cost and durations. The request and result are
 * zod schemas because they are stored with a run (generation events) and replayed from there; the
 * providers' own formats are the official SDKs' types, used only in each provider's adapter.
 */
import { z } from "zod";
import { CostByKind, TokenCounts } from "../../core/index.js";

export { CostByKind };

/** A tool the model may call; `parameters` is a JSON Schema object describing the arguments. */
export const ToolDefinition = z.object({
  name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, "tool names are 1-64 letters, digits, _ or -"),
  description: z.string(),
  parameters: z.record(z.string(), z.unknown()),
});
export type ToolDefinition = z.infer<typeof ToolDefinition>;

/**
 * A tool call the model made. `arguments` is the parsed JSON; when the model wrote arguments that are not
 * a JSON object, `arguments` is `{}` and `argumentsError` says why, so the scaffold can tell the model
 * instead of crashing. `rawArguments` is exactly what the model wrote (always set in results; a scaffold
 * writing history by hand may leave it out, and the arguments are then sent as JSON).
 */
export const ToolCall = z.object({
  id: z.string().min(1),
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()),
  rawArguments: z.string().optional(),
  argumentsError: z.string().optional(),
});
export type ToolCall = z.infer<typeof ToolCall>;

export const Provider = z.enum(["openai", "anthropic", "compat"]);
export type Provider = z.infer<typeof Provider>;

/**
 * Reasoning the model did before it answered, as its provider returned it. `text` is what a person can
 * read (Anthropic's thinking, OpenAI's reasoning summary, a compatible server's `reasoning_content`; empty
 * when redacted or not given); `raw` is the provider's own item, sent back unchanged when the message is
 * part of a later request to the same provider: an OpenAI `reasoning` item with its `encrypted_content`,
 * an Anthropic `thinking` block with its `signature` (or a `redacted_thinking` block). Reasoning of another
 * provider, and a compatible server's, is not sent back.
 */
export const ReasoningBlock = z.object({
  provider: Provider,
  text: z.string(),
  raw: z.record(z.string(), z.unknown()),
});
export type ReasoningBlock = z.infer<typeof ReasoningBlock>;

/**
 * `cacheBreakpoint`: the prompt up to and including this message is worth caching (it will begin later
 * requests too). Anthropic caches there (`cache_control`) when the request asks for caching; OpenAI caches
 * prefixes by itself and ignores the mark.
 */
const cacheBreakpoint = z.boolean().optional();

export const SystemMessage = z.object({ role: z.literal("system"), content: z.string(), cacheBreakpoint });
export const UserMessage = z.object({ role: z.literal("user"), content: z.string(), cacheBreakpoint });
export const AssistantMessage = z.object({
  role: z.literal("assistant"),
  content: z.string(),
  toolCalls: z.array(ToolCall).optional(),
  /** In the order the provider returned it. */
  reasoning: z.array(ReasoningBlock).optional(),
  /**
   * The provider's own output for this message, exactly as returned (OpenAI's `output` items, Anthropic's
   * `content` blocks): sent back verbatim to the same provider, with every id, signature and encrypted
   * reasoning in its place, while `content` and `toolCalls` still say what it says (a scaffold that
   * shortens the text gets the message rebuilt from its fields instead, reasoning first).
   */
  providerOutput: z.object({ provider: Provider, items: z.array(z.record(z.string(), z.unknown())) }).optional(),
  cacheBreakpoint,
});
export type AssistantMessage = z.infer<typeof AssistantMessage>;
/** The result of one tool call, answered in the turn after the assistant message that made it. */
export const ToolResultMessage = z.object({
  role: z.literal("tool"),
  toolCallId: z.string().min(1),
  content: z.string(),
  /** Marks a failed call (Anthropic's `is_error`; OpenAI has no field for it and sees only the text). */
  isError: z.boolean().optional(),
  cacheBreakpoint,
});

export const Message = z.discriminatedUnion("role", [SystemMessage, UserMessage, AssistantMessage, ToolResultMessage]);
export type Message = z.infer<typeof Message>;
export type Role = Message["role"];

export const ReasoningEffort = z.enum(["none", "minimal", "low", "medium", "high", "xhigh"]);
export type ReasoningEffort = z.infer<typeof ReasoningEffort>;

/** `auto` (default), `none`, `required` (some tool), or one named tool. */
export const ToolChoice = z.union([z.enum(["auto", "none", "required"]), z.object({ name: z.string() })]);
export type ToolChoice = z.infer<typeof ToolChoice>;

export const GenerateRequest = z.object({
  messages: z.array(Message).min(1),
  tools: z.array(ToolDefinition).optional(),
  toolChoice: ToolChoice.optional(),
  /** Number of choices; default 1. Providers without native support are called `n` times. */
  n: z.number().int().min(1).max(128).optional(),
  temperature: z.number().min(0).max(2).optional(),
  /** Output tokens per choice. Anthropic requires one: the client's `defaultMaxTokens` (4096) if absent. */
  maxTokens: z.number().int().positive().optional(),
  stop: z.array(z.string().min(1)).max(4).optional(),
  /** OpenAI reasoning models (o-series, GPT-5): how much to reason (`reasoning.effort`). */
  reasoningEffort: ReasoningEffort.optional(),
  /** OpenAI reasoning models: a summary of the reasoning, kept with the generation (`reasoning.summary`). */
  reasoningSummary: z.enum(["auto", "concise", "detailed"]).optional(),
  /**
   * Anthropic extended thinking: a budget of thinking tokens (at least 1024, below `maxTokens`, which
   * counts the thinking too), or `adaptive` (the model decides; newer models).
   */
  thinking: z.union([z.literal("adaptive"), z.object({ budgetTokens: z.number().int().min(1024) })]).optional(),
  /**
   * Prompt caching. Anthropic caches at the last tool, the system prompt and the messages marked
   * `cacheBreakpoint` (the latest two), written for `ttl`; OpenAI caches by itself and takes `key`
   * (`prompt_cache_key`) to send requests that share a prefix to the same cache. Absent: no cache marks.
   */
  cache: z.object({ ttl: z.enum(["5m", "1h"]).default("5m"), key: z.string().min(1).max(64).optional() }).optional(),
});
export type GenerateRequest = z.infer<typeof GenerateRequest>;
export type GenerateRequestInput = z.input<typeof GenerateRequest>;

/** Why a choice ended: `other` keeps the provider's word in `rawFinishReason`. */
export const FinishReason = z.enum(["stop", "length", "tool_calls", "content_filter", "other"]);
export type FinishReason = z.infer<typeof FinishReason>;

export const Choice = z.object({
  message: AssistantMessage,
  finishReason: FinishReason,
  rawFinishReason: z.string().nullable(),
});
export type Choice = z.infer<typeof Choice>;

/**
 * Tokens of one generation by kind (core/usage.ts: full-price input, cache reads, cache writes and their
 * one-hour part, output, reasoning within the output), summed over every request it took (the prompt is
 * charged again on each).
 */
export const ModelUsage = TokenCounts;
export type ModelUsage = TokenCounts;

export const GenerateResult = z.object({
  provider: Provider,
  /** The model as the provider reported it (e.g. `gpt-4o-2024-08-06`); the requested one if it did not say. */
  model: z.string(),
  /** The model named in the spec (e.g. `gpt-4o`). */
  requestedModel: z.string(),
  choices: z.array(Choice).min(1),
  usage: ModelUsage,
  costUsd: z.number().nonnegative(),
  /** Things worth a look that did not stop the call: an unpriced model, a response without usage. */
  warnings: z.array(z.string()),
  /** Wall time of the whole generation, including retry waits. */
  durationMs: z.number().nonnegative(),
  /** Time spent waiting between retries (reported through `onPause`); working time is the difference. */
  pausedMs: z.number().nonnegative(),
  /** What each token kind cost, in USD (they sum to `costUsd`; reasoning is output). */
  costByKind: CostByKind,
  /** HTTP requests made, retries included. */
  attempts: z.number().int().positive(),
  /** Provider response ids, one per successful HTTP call. */
  responseIds: z.array(z.string()),
});
export type GenerateResult = z.infer<typeof GenerateResult>;

/** One wait before a retry: an interval the run layer records as a pause (not working time). */
export interface ModelPause {
  reason: "model_retry";
  /** ISO timestamps of the wait. */
  startedAt: string;
  endedAt: string;
  /** The attempt that failed (1 = the first request). */
  attempt: number;
  /** What went wrong, e.g. `HTTP 429: Rate limit reached` or `network: ECONNRESET`. */
  error: string;
  /** Whether the wait was cut short by the abort signal (the generation then fails). */
  aborted: boolean;
}

/** The start of a wait, for a run layer that wants to stop its working-time clock at once. */
export interface ModelPauseStart {
  reason: "model_retry";
  startedAt: string;
  attempt: number;
  error: string;
  /** How long the client means to wait. */
  waitMs: number;
}

export interface GenerateOptions {
  /** Aborts the in-flight request or the retry wait; the call then rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Called after each retry wait, with its interval. */
  onPause?: (pause: ModelPause) => void;
  /** Called when a retry wait begins. */
  onPauseStart?: (pause: ModelPauseStart) => void;
}

export interface ModelClient {
  readonly provider: Provider;
  /** The model named in the spec. */
  readonly model: string;
  /** The spec the client was made from, e.g. `openai:gpt-4o` (API keys never appear in it). */
  readonly spec: string;
  /** Context window in tokens, from the model table, when known. */
  readonly contextWindow: number | undefined;
  generate(request: GenerateRequestInput, options?: GenerateOptions): Promise<GenerateResult>;
}
