import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { tempDir } from "../../../test/helpers/tmp.js";
import { InvalidInputError } from "../../core/index.js";
import { costUsd, DEFAULT_PRICES, loadPriceTable, lookupModel } from "./prices.js";

const dir = tempDir();

describe("the price table", () => {
  test("cost is tokens times USD per million, input and output priced apart", () => {
    expect(costUsd({ inputTokens: 2_000_000, outputTokens: 500_000 }, { inputPerMTok: 3, outputPerMTok: 15 })).toBe(13.5);
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
    expect(lookupModel(table, "anthropic", ["claude-3-5-sonnet-20241022"])).toEqual(
      DEFAULT_PRICES["anthropic:claude-3-5-sonnet-20241022"],
    );
  });

  test("lookup tries each name in turn and keeps providers apart", () => {
    expect(lookupModel(DEFAULT_PRICES, "openai", ["gpt-4o-latest-unknown", "gpt-4o-2024-08-06"])?.inputPerMTok).toBe(2.5);
    expect(lookupModel(DEFAULT_PRICES, "compat", ["gpt-4o"])).toBeUndefined();
  });

  test("a broken price file is refused with the file and the bad field named", () => {
    const file = path.join(dir, "bad.json");
    writeFileSync(file, JSON.stringify({ "gpt-4o": { inputPerMTok: -1, outputPerMTok: 1 } }));
    expect(() => loadPriceTable({ pricesFile: file })).toThrow(InvalidInputError);
    expect(() => loadPriceTable({ pricesFile: file })).toThrow(/bad.json[\s\S]*gpt-4o/);
    writeFileSync(file, "{ not json");
    expect(() => loadPriceTable({ pricesFile: file })).toThrow(/not JSON/);
    expect(() => loadPriceTable({ pricesFile: path.join(dir, "missing.json") })).toThrow(/cannot read the price file/);
  });
});
