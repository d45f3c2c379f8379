/**
 * @module
 * What a run has used and what it may use. Working time excludes pauses (scoring, model-API retries).
 *
 * Tokens come in kinds, as the providers report and price them, each counted once:
 * `inputTokens` (input at the full price), `cacheReadTokens` (input read from a prompt cache),
 * `cacheWriteTokens` (input written to a prompt cache, of which `cacheWrite1hTokens` with a one-hour
 * lifetime), and `outputTokens` (everything the model wrote, its reasoning included), of which
 * `reasoningTokens` were reasoning or thinking. The prompt's tokens are the sum of the three input kinds.
 */
import { z } from "zod";

const Tokens = z.number().int().nonnegative();

/** Tokens of one model call, or of many summed, by kind (see the module comment). */
export const TokenCounts = z.object({
  inputTokens: Tokens,
  cacheReadTokens: Tokens.default(0),
  cacheWriteTokens: Tokens.default(0),
  cacheWrite1hTokens: Tokens.default(0),
  outputTokens: Tokens,
  reasoningTokens: Tokens.default(0),
});
export type TokenCounts = z.infer<typeof TokenCounts>;

export const ZERO_TOKENS: TokenCounts = Object.freeze({
  inputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  cacheWrite1hTokens: 0,
  outputTokens: 0,
  reasoningTokens: 0,
});

/** The token kinds, in the order they are shown. */
export const TOKEN_KINDS = ["inputTokens", "cacheReadTokens", "cacheWriteTokens", "cacheWrite1hTokens", "outputTokens", "reasoningTokens"] as const;
export type TokenKind = (typeof TOKEN_KINDS)[number];

/** `a + b`, kind by kind (absent kinds count 0). */
export function addTokens(a: Partial<TokenCounts>, b: Partial<TokenCounts>): TokenCounts {
  const sum = { ...ZERO_TOKENS };
  for (const kind of TOKEN_KINDS) sum[kind] = (a[kind] ?? 0) + (b[kind] ?? 0);
  return sum;
}

/** Every token of the prompt: full-price input, cache reads and cache writes. */
export function promptTokens(t: Partial<TokenCounts>): number {
  return (t.inputTokens ?? 0) + (t.cacheReadTokens ?? 0) + (t.cacheWriteTokens ?? 0);
}

/**
 * What a token budget (`--tokens`) counts: every token the model read or wrote, i.e. the prompt's tokens
 * of all three input kinds (a cache read is still a token the model read) and the output, reasoning
 * included once (it is part of the output).
 */
export function budgetTokens(t: Partial<TokenCounts>): number {
  return promptTokens(t) + (t.outputTokens ?? 0);
}

/** The sentence the CLI and the docs use for what `--tokens` counts. */
export const TOKEN_BUDGET_COUNTS = "input of every kind (full price, cache reads, cache writes) plus output (reasoning included, counted once)";

/** USD by token kind: full-price input, cache reads, cache writes (both lifetimes), output (reasoning included). */
export const CostByKind = z.object({
  input: z.number().nonnegative(),
  cacheRead: z.number().nonnegative(),
  cacheWrite: z.number().nonnegative(),
  output: z.number().nonnegative(),
});
export type CostByKind = z.infer<typeof CostByKind>;

export const ZERO_COST: CostByKind = Object.freeze({ input: 0, cacheRead: 0, cacheWrite: 0, output: 0 });

export const Usage = TokenCounts.extend({
  wallSeconds: z.number().nonnegative(),
  workingSeconds: z.number().nonnegative(),
  pausedSeconds: z.number().nonnegative(),
  costUsd: z.number().nonnegative(),
  /** `costUsd` by kind; null once a generation with a cost did not say (a replayed step, a run of an older rebench). */
  costByKind: CostByKind.nullable().default(null),
  actions: z.number().int().nonnegative(),
});
export type Usage = z.infer<typeof Usage>;

export const ZERO_USAGE: Usage = Object.freeze({
  wallSeconds: 0,
  workingSeconds: 0,
  pausedSeconds: 0,
  ...ZERO_TOKENS,
  costUsd: 0,
  costByKind: ZERO_COST,
  actions: 0,
});

/** Budgets; an absent field means no limit on that dimension. `tokens` counts what `budgetTokens` says. */
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
  if (limits.tokens !== undefined && budgetTokens(usage) >= limits.tokens) return "tokens";
  if (limits.costUsd !== undefined && usage.costUsd >= limits.costUsd) return "costUsd";
  if (limits.actions !== undefined && usage.actions >= limits.actions) return "actions";
  return undefined;
}
