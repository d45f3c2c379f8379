import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { tempDir } from "../../../test/helpers/tmp.js";
import { InvalidInputError, ZERO_TOKENS } from "../../core/index.js";
import { DEFAULT_PRICES, loadPriceTable, lookupModel, priceUsage } from "./prices.js";

const dir = tempDir();

describe("the price table", () => {
  test("cost is tokens times USD per million, each kind at its own price; reasoning is priced as the output it is part of", () => {
    const usage = {
      inputTokens: 2_000_000,
      cacheReadTokens: 10_000_000,
      cacheWriteTokens: 1_000_000,
      cacheWrite1hTokens: 400_000,
      outputTokens: 500_000,
      reasoningTokens: 300_000,
    };
    const priced = priceUsage(usage, DEFAULT_PRICES["anthropic:claude-sonnet-4-20250514"]!, "anthropic:claude-sonnet-4-20250514");
    // $3 input, $0.30 cache reads, $3.75 five-minute and $6 one-hour writes, $15 output.
    expect(priced.costByKind).toEqual({ input: 6, cacheRead: 3, cacheWrite: 0.6 * 3.75 + 0.4 * 6, output: 7.5 });
    expect(priced.costUsd).toBeCloseTo(6 + 3 + 2.25 + 2.4 + 7.5, 12);
    expect(priced.warnings).toEqual([]);
  });

  test("an entry without a cache price charges those tokens as input (1-hour writes as short ones) and says so", () => {
    const info = { inputPerMTok: 1, outputPerMTok: 2 };
    const plain = priceUsage({ ...ZERO_TOKENS, inputTokens: 1_000_000, outputTokens: 1_000_000 }, info, "compat:m");
    expect(plain).toEqual({ costUsd: 3, costByKind: { input: 1, cacheRead: 0, cacheWrite: 0, output: 2 }, warnings: [] });
    const cached = priceUsage({ ...ZERO_TOKENS, cacheReadTokens: 1_000_000, cacheWriteTokens: 2_000_000, cacheWrite1hTokens: 1_000_000 }, info, "compat:m");
    expect(cached.costUsd).toBe(3);
    expect(cached.warnings.join("\n")).toMatch(
      /no cache-read price for compat:m[\s\S]*cacheReadPerMTok[\s\S]*no cache-write price[\s\S]*no 1-hour cache-write price/,
    );
  });

  test("the shipped Anthropic prices follow the caching multipliers, OpenAI's its cached-input prices", () => {
    expect(DEFAULT_PRICES["anthropic:claude-opus-4-1-20250805"]).toMatchObject({
      inputPerMTok: 15,
      cacheReadPerMTok: 1.5,
      cacheWritePerMTok: 18.75,
      cacheWrite1hPerMTok: 30,
    });
    expect(DEFAULT_PRICES["openai:gpt-5"]).toMatchObject({ inputPerMTok: 1.25, cacheReadPerMTok: 0.125, cacheWritePerMTok: 1.25, reasoning: true });
    expect(DEFAULT_PRICES["openai:gpt-4o"]?.reasoning).toBeUndefined();
  });

  test("a price file named by REBENCH_PRICES adds models and overrides shipped ones", () => {
    const file = path.join(dir, "prices.json");
    writeFileSync(
      file,
      JSON.stringify({
        "compat:qwen-7b": { inputPerMTok: 0, outputPerMTok: 0, contextWindow: 32768 },
        "openai:gpt-4o": { inputPerMTok: 1, outputPerMTok: 4 },
      }),
    );
    const table = loadPriceTable({ env: { REBENCH_PRICES: file } });
    expect(lookupModel(table, "compat", ["qwen-7b"])).toEqual({ inputPerMTok: 0, outputPerMTok: 0, contextWindow: 32768 });
    expect(lookupModel(table, "openai", ["gpt-4o"])).toEqual({ inputPerMTok: 1, outputPerMTok: 4 });
    expect(lookupModel(table, "anthropic", ["claude-3-5-sonnet-20241022"])).toEqual(DEFAULT_PRICES["anthropic:claude-3-5-sonnet-20241022"]);
  });

  test("lookup tries each name in turn and keeps providers apart", () => {
    expect(lookupModel(DEFAULT_PRICES, "openai", ["gpt-4o-latest-unknown", "gpt-4o-2024-08-06"])?.inputPerMTok).toBe(2.5);
    expect(lookupModel(DEFAULT_PRICES, "compat", ["gpt-4o"])).toBeUndefined();
  });

  test("a broken price file is refused with the file and the bad field named", () => {
    const file = path.join(dir, "bad.json");
    writeFileSync(file, JSON.stringify({ "openai:gpt-4o": { inputPerMTok: 1, outputPerMTok: 1, cacheReadPerMtok: 0.5 } }));
    expect(() => loadPriceTable({ pricesFile: file })).toThrow(/cacheReadPerMtok/);
    writeFileSync(file, JSON.stringify({ "gpt-4o": { inputPerMTok: -1, outputPerMTok: 1 } }));
    expect(() => loadPriceTable({ pricesFile: file })).toThrow(InvalidInputError);
    expect(() => loadPriceTable({ pricesFile: file })).toThrow(/bad.json[\s\S]*gpt-4o/);
    writeFileSync(file, "{ not json");
    expect(() => loadPriceTable({ pricesFile: file })).toThrow(/not JSON/);
    expect(() => loadPriceTable({ pricesFile: path.join(dir, "missing.json") })).toThrow(/cannot read the price file/);
  });
});
