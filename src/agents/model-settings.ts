/**
 * @module
 * The model settings the `modular` and `aide` scaffolds share (`--agent-config`): reasoning (OpenAI's
 * effort and summaries), Anthropic's extended thinking, and prompt caching with its TTL; and what they
 * add to each request. Each provider takes what applies to it and warns, per generation, about the rest.
 */
import { z } from "zod";
import type { RunId } from "../core/index.js";
import { type GenerateRequest, type Message, ReasoningEffort } from "./models/model-client.js";

export const ModelSettings = z.object({
  /** OpenAI reasoning models: how much to reason (default: the model's own). */
  reasoningEffort: ReasoningEffort.optional(),
  /** OpenAI reasoning models: a summary of the reasoning, stored with each generation; `off` asks for none. */
  reasoningSummary: z.enum(["auto", "concise", "detailed", "off"]).default("auto"),
  /** Anthropic extended thinking: a budget of thinking tokens (at least 1024, below maxTokens), or `adaptive`. */
  thinkingBudget: z.union([z.number().int().min(1024), z.literal("adaptive")]).optional(),
  /** Prompt caching: Anthropic's cache lifetime for the stable prefix of each request, or `off` (OpenAI caches by itself). */
  promptCache: z.enum(["5m", "1h", "off"]).default("5m"),
});
export type ModelSettings = z.infer<typeof ModelSettings>;

/** A thinking budget must leave room for the answer: maxTokens counts the thinking too. */
export function checkThinkingBudget(settings: { thinkingBudget?: number | "adaptive" | undefined; maxTokens: number }, ctx: z.RefinementCtx): void {
  if (typeof settings.thinkingBudget === "number" && settings.thinkingBudget >= settings.maxTokens) {
    ctx.addIssue({
      code: "custom",
      path: ["thinkingBudget"],
      message: `the thinking budget (${settings.thinkingBudget}) must be below maxTokens (${settings.maxTokens}), which counts the thinking too: raise maxTokens`,
    });
  }
}

/** What the settings add to a request of run `runId` (its id keys OpenAI's prompt cache). */
export function modelRequestOptions(settings: ModelSettings, runId: RunId): Partial<GenerateRequest> {
  return {
    ...(settings.reasoningEffort === undefined ? {} : { reasoningEffort: settings.reasoningEffort }),
    ...(settings.reasoningSummary === "off" ? {} : { reasoningSummary: settings.reasoningSummary }),
    ...(settings.thinkingBudget === undefined
      ? {}
      : { thinking: settings.thinkingBudget === "adaptive" ? ("adaptive" as const) : { budgetTokens: settings.thinkingBudget } }),
    ...(settings.promptCache === "off" ? {} : { cache: { ttl: settings.promptCache, key: `rebench-${runId}` } }),
  };
}

/**
 * The messages with cache breakpoints at `at` (negative: from the end), as copies. A scaffold marks what
 * later requests will begin with: the task (which stays when old turns are left out) and the end of the
 * conversation (which the next request extends).
 */
export function markBreakpoints(messages: readonly Message[], at: readonly number[]): Message[] {
  const marked = new Set(at.map((i) => (i < 0 ? messages.length + i : i)));
  return messages.map((m, i) => (marked.has(i) ? { ...m, cacheBreakpoint: true } : m));
}
