/**
 * @module
 * The model table: USD per million input and output tokens, and the context window, per
 * `provider:model`. rebench ships list prices; a JSON file of the same shape (path in `REBENCH_PRICES` or
 * the `pricesFile` option) adds models or overrides entries. An unknown model costs 0 and the result says
 * so in a warning; it never fails a call.
 */
import { readFileSync } from "node:fs";
import { z } from "zod";
import { InvalidInputError, parseWith } from "../../core/index.js";
import type { ModelUsage, Provider } from "./model-client.js";

export const ModelInfo = z.object({
  inputPerMTok: z.number().nonnegative(),
  outputPerMTok: z.number().nonnegative(),
  contextWindow: z.number().int().positive().optional(),
});
export type ModelInfo = z.infer<typeof ModelInfo>;

/** Keys are `openai:MODEL`, `anthropic:MODEL` or `compat:MODEL` (the model name, not the URL). */
export const PriceTable = z.record(
  z.string().regex(/^(openai|anthropic|compat):.+$/, "keys look like openai:gpt-4o, anthropic:MODEL or compat:MODEL"),
  ModelInfo,
);
export type PriceTable = z.infer<typeof PriceTable>;

const p = (inputPerMTok: number, outputPerMTok: number, contextWindow: number): ModelInfo => ({
  inputPerMTok,
  outputPerMTok,
  contextWindow,
});

/**
 * Providers' list prices (2025) for uncached tokens. Cached input is charged at the full input price, so
 * costs err high. Check current prices before relying on a cost budget, and override in a price file.
 */
export const DEFAULT_PRICES: PriceTable = Object.freeze({
  "openai:gpt-4o": p(2.5, 10, 128_000),
  "openai:gpt-4o-2024-05-13": p(5, 15, 128_000),
  "openai:gpt-4o-2024-08-06": p(2.5, 10, 128_000),
  "openai:gpt-4o-2024-11-20": p(2.5, 10, 128_000),
  "openai:gpt-4o-mini": p(0.15, 0.6, 128_000),
  "openai:gpt-4o-mini-2024-07-18": p(0.15, 0.6, 128_000),
  "openai:gpt-4.1": p(2, 8, 1_047_576),
  "openai:gpt-4.1-mini": p(0.4, 1.6, 1_047_576),
  "openai:gpt-4.1-nano": p(0.1, 0.4, 1_047_576),
  "openai:o1": p(15, 60, 200_000),
  "openai:o1-preview": p(15, 60, 128_000),
  "openai:o1-mini": p(1.1, 4.4, 128_000),
  "openai:o3": p(2, 8, 200_000),
  "openai:o3-mini": p(1.1, 4.4, 200_000),
  "openai:o4-mini": p(1.1, 4.4, 200_000),
  "openai:gpt-5": p(1.25, 10, 400_000),
  "openai:gpt-5-mini": p(0.25, 2, 400_000),
  "openai:gpt-5-nano": p(0.05, 0.4, 400_000),
  "anthropic:claude-3-haiku-20240307": p(0.25, 1.25, 200_000),
  "anthropic:claude-3-opus-20240229": p(15, 75, 200_000),
  "anthropic:claude-3-5-haiku-20241022": p(0.8, 4, 200_000),
  "anthropic:claude-3-5-sonnet-20240620": p(3, 15, 200_000),
  "anthropic:claude-3-5-sonnet-20241022": p(3, 15, 200_000),
  "anthropic:claude-3-7-sonnet-20250219": p(3, 15, 200_000),
  "anthropic:claude-sonnet-4-20250514": p(3, 15, 200_000),
  "anthropic:claude-sonnet-4-5-20250929": p(3, 15, 200_000),
  "anthropic:claude-opus-4-20250514": p(15, 75, 200_000),
  "anthropic:claude-opus-4-1-20250805": p(15, 75, 200_000),
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
      hint: "REBENCH_PRICES (or --prices) must name a JSON file like {\"compat:my-model\": {\"inputPerMTok\": 0, \"outputPerMTok\": 0}}",
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

export function costUsd(usage: ModelUsage, info: ModelInfo): number {
  return (usage.inputTokens * info.inputPerMTok + usage.outputTokens * info.outputPerMTok) / 1_000_000;
}
