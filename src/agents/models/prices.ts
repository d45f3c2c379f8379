/**
 * @module
 * The model table: USD per million tokens of each kind, the context window, and whether the model
 * reasons, per `provider:model`. rebench ships list prices; a JSON file of the same shape (path in
 * `REBENCH_PRICES` or the `pricesFile` option) adds models or overrides entries. An unknown model costs 0
 * and the result says so in a warning; it never fails a call.
 *
 * Kinds (core/usage.ts): full-price input, cache reads, cache writes (Anthropic's 5-minute writes cost
 * 1.25 times the input price, its 1-hour writes twice; OpenAI's are charged as input), output. Reasoning
 * and thinking tokens are billed as output by both providers, so they have no price of their own.
 */
import { readFileSync } from "node:fs";
import { z } from "zod";
import { type CostByKind, InvalidInputError, parseWith, type TokenCounts } from "../../core/index.js";
import type { Provider } from "./model-client.js";

const Price = z.number().nonnegative();

export const ModelInfo = z
  .object({
    inputPerMTok: Price,
    outputPerMTok: Price,
    /** Input read from the prompt cache; absent: charged as input (and the result warns when it happens). */
    cacheReadPerMTok: Price.optional(),
    /** Input written to the cache with the short lifetime (Anthropic's 5 minutes, OpenAI's); absent: as input. */
    cacheWritePerMTok: Price.optional(),
    /** Input written to the cache for an hour (Anthropic's `ttl: 1h`); absent: as a short write. */
    cacheWrite1hPerMTok: Price.optional(),
    contextWindow: z.number().int().positive().optional(),
    /**
     * A reasoning model (OpenAI o-series and GPT-5): rebench asks for its encrypted reasoning to send back
     * on later turns, and sends no temperature. Requests that set `reasoningEffort` count as this too.
     */
    reasoning: z.boolean().optional(),
  })
  .strict();
export type ModelInfo = z.infer<typeof ModelInfo>;

/** Keys are `openai:MODEL`, `anthropic:MODEL` or `compat:MODEL` (the model name, not the URL). */
export const PriceTable = z.record(
  z.string().regex(/^(openai|anthropic|compat):.+$/, "keys look like openai:gpt-4o, anthropic:MODEL or compat:MODEL"),
  ModelInfo,
);
export type PriceTable = z.infer<typeof PriceTable>;

/** An OpenAI model: cached input at its own price, cache writes as input. */
const oa = (inputPerMTok: number, cacheReadPerMTok: number, outputPerMTok: number, contextWindow: number, reasoning = false): ModelInfo => ({
  inputPerMTok,
  cacheReadPerMTok,
  cacheWritePerMTok: inputPerMTok,
  outputPerMTok,
  contextWindow,
  ...(reasoning ? { reasoning: true } : {}),
});

/** An Anthropic model: cache reads at 0.1 times the input price, 5-minute writes at 1.25 times, 1-hour writes at 2 times. */
const an = (inputPerMTok: number, outputPerMTok: number, contextWindow = 200_000): ModelInfo => ({
  inputPerMTok,
  cacheReadPerMTok: round(inputPerMTok * 0.1),
  cacheWritePerMTok: round(inputPerMTok * 1.25),
  cacheWrite1hPerMTok: round(inputPerMTok * 2),
  outputPerMTok,
  contextWindow,
});

function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

/**
 * Providers' list prices (2025) per million tokens of each kind. Check current prices before relying on a
 * cost budget, and add newer models (or correct these) in a price file.
 */
export const DEFAULT_PRICES: PriceTable = Object.freeze({
  "openai:gpt-4o": oa(2.5, 1.25, 10, 128_000),
  "openai:gpt-4o-2024-05-13": { inputPerMTok: 5, outputPerMTok: 15, contextWindow: 128_000 },
  "openai:gpt-4o-2024-08-06": oa(2.5, 1.25, 10, 128_000),
  "openai:gpt-4o-2024-11-20": oa(2.5, 1.25, 10, 128_000),
  "openai:gpt-4o-mini": oa(0.15, 0.075, 0.6, 128_000),
  "openai:gpt-4o-mini-2024-07-18": oa(0.15, 0.075, 0.6, 128_000),
  "openai:gpt-4.1": oa(2, 0.5, 8, 1_047_576),
  "openai:gpt-4.1-mini": oa(0.4, 0.1, 1.6, 1_047_576),
  "openai:gpt-4.1-nano": oa(0.1, 0.025, 0.4, 1_047_576),
  "openai:o1": oa(15, 7.5, 60, 200_000, true),
  "openai:o1-preview": oa(15, 7.5, 60, 128_000, true),
  "openai:o1-mini": oa(1.1, 0.55, 4.4, 128_000, true),
  "openai:o3": oa(2, 0.5, 8, 200_000, true),
  "openai:o3-mini": oa(1.1, 0.55, 4.4, 200_000, true),
  "openai:o4-mini": oa(1.1, 0.275, 4.4, 200_000, true),
  "openai:gpt-5": oa(1.25, 0.125, 10, 400_000, true),
  "openai:gpt-5-mini": oa(0.25, 0.025, 2, 400_000, true),
  "openai:gpt-5-nano": oa(0.05, 0.005, 0.4, 400_000, true),
  "anthropic:claude-3-haiku-20240307": { ...an(0.25, 1.25), cacheReadPerMTok: 0.03, cacheWritePerMTok: 0.3, cacheWrite1hPerMTok: 0.5 },
  "anthropic:claude-3-opus-20240229": an(15, 75),
  "anthropic:claude-3-5-haiku-20241022": an(0.8, 4),
  "anthropic:claude-3-5-sonnet-20240620": an(3, 15),
  "anthropic:claude-3-5-sonnet-20241022": an(3, 15),
  "anthropic:claude-3-7-sonnet-20250219": an(3, 15),
  "anthropic:claude-sonnet-4-20250514": an(3, 15),
  "anthropic:claude-sonnet-4-5-20250929": an(3, 15),
  "anthropic:claude-sonnet-4-5": an(3, 15),
  "anthropic:claude-haiku-4-5-20251001": an(1, 5),
  "anthropic:claude-haiku-4-5": an(1, 5),
  "anthropic:claude-opus-4-20250514": an(15, 75),
  "anthropic:claude-opus-4-1-20250805": an(15, 75),
  "anthropic:claude-opus-4-5-20251101": an(5, 25),
  "anthropic:claude-opus-4-5": an(5, 25),
});

export interface LoadPriceTableOptions {
  /** A JSON price file; default `env.REBENCH_PRICES`, if set. */
  pricesFile?: string;
  env?: Readonly<Record<string, string | undefined>>;
}

/** The shipped table with the user's file (if any) laid over it. */
export function loadPriceTable(options: LoadPriceTableOptions = {}): PriceTable {
  const env = options.env ?? process.env;
  const file = options.pricesFile ?? (env.REBENCH_PRICES || undefined);
  if (file === undefined) return { ...DEFAULT_PRICES };
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new InvalidInputError(`cannot read the price file ${file}: ${(error as Error).message}`, {
      hint: 'REBENCH_PRICES (or --prices) must name a JSON file like {"compat:my-model": {"inputPerMTok": 0, "outputPerMTok": 0}}',
    });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new InvalidInputError(`the price file ${file} is not JSON: ${(error as Error).message}`);
  }
  return { ...DEFAULT_PRICES, ...parseWith(PriceTable, json, `the price file ${file}`) };
}

/** The first of `models` the table knows for `provider`. */
export function lookupModel(table: PriceTable, provider: Provider, models: readonly string[]): ModelInfo | undefined {
  for (const model of models) {
    const info = table[`${provider}:${model}`];
    if (info !== undefined) return info;
  }
  return undefined;
}

export interface Priced {
  costUsd: number;
  costByKind: CostByKind;
  /** A kind that was used but has no price of its own in the entry, and what it was charged as. */
  warnings: string[];
}

/** The cost of `usage` under `info`: each kind at its price (see ModelInfo for the fallbacks). */
export function priceUsage(usage: TokenCounts, info: ModelInfo, name: string): Priced {
  const warnings: string[] = [];
  const fallback = (price: number | undefined, used: number, what: string, as: string, field: string, instead: number): number => {
    if (price !== undefined) return price;
    if (used > 0)
      warnings.push(`the model table has no ${what} price for ${name}; they were charged ${as} (add ${field} to a price file named by REBENCH_PRICES)`);
    return instead;
  };
  const read = fallback(info.cacheReadPerMTok, usage.cacheReadTokens, "cache-read", "as input", "cacheReadPerMTok", info.inputPerMTok);
  const written1h = Math.min(usage.cacheWrite1hTokens, usage.cacheWriteTokens);
  const write = fallback(info.cacheWritePerMTok, usage.cacheWriteTokens - written1h, "cache-write", "as input", "cacheWritePerMTok", info.inputPerMTok);
  const write1h = fallback(info.cacheWrite1hPerMTok, written1h, "1-hour cache-write", "as 5-minute writes", "cacheWrite1hPerMTok", write);
  const costByKind: CostByKind = {
    input: (usage.inputTokens * info.inputPerMTok) / 1e6,
    cacheRead: (usage.cacheReadTokens * read) / 1e6,
    cacheWrite: ((usage.cacheWriteTokens - written1h) * write + written1h * write1h) / 1e6,
    output: (usage.outputTokens * info.outputPerMTok) / 1e6,
  };
  return { costUsd: costByKind.input + costByKind.cacheRead + costByKind.cacheWrite + costByKind.output, costByKind, warnings };
}
