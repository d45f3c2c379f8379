/**
 * @module
 * What a run has used and what it may use. Working time excludes pauses (scoring, model-API retries).
 */
import { z } from "zod";

export const Usage = z.object({
  wallSeconds: z.number().nonnegative(),
  workingSeconds: z.number().nonnegative(),
  pausedSeconds: z.number().nonnegative(),
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  costUsd: z.number().nonnegative(),
  actions: z.number().int().nonnegative(),
});
export type Usage = z.infer<typeof Usage>;

export const ZERO_USAGE: Usage = Object.freeze({
  wallSeconds: 0,
  workingSeconds: 0,
  pausedSeconds: 0,
  inputTokens: 0,
  outputTokens: 0,
  costUsd: 0,
  actions: 0,
});

/** Budgets; an absent field means no limit on that dimension. `tokens` counts input + output. */
export const UsageLimits = z.object({
  wallSeconds: z.number().positive().optional(),
  workingSeconds: z.number().positive().optional(),
  tokens: z.number().int().positive().optional(),
  costUsd: z.number().positive().optional(),
  actions: z.number().int().positive().optional(),
});
export type UsageLimits = z.infer<typeof UsageLimits>;

/** A limited dimension of usage (a key of UsageLimits). */
export const LimitName = z.enum(["wallSeconds", "workingSeconds", "tokens", "costUsd", "actions"]);
export type LimitName = z.infer<typeof LimitName> & keyof UsageLimits;

/** The first limit `usage` has reached, or undefined. */
export function exceededLimit(usage: Usage, limits: UsageLimits): LimitName | undefined {
  if (limits.workingSeconds !== undefined && usage.workingSeconds >= limits.workingSeconds) return "workingSeconds";
  if (limits.wallSeconds !== undefined && usage.wallSeconds >= limits.wallSeconds) return "wallSeconds";
  if (limits.tokens !== undefined && usage.inputTokens + usage.outputTokens >= limits.tokens) return "tokens";
  if (limits.costUsd !== undefined && usage.costUsd >= limits.costUsd) return "costUsd";
  if (limits.actions !== undefined && usage.actions >= limits.actions) return "actions";
  return undefined;
}
