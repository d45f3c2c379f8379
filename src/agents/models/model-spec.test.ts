import { describe, expect, test } from "vitest";
import { InvalidInputError } from "../../core/index.js";
import { parseModelSpec } from "./model-spec.js";

describe("parseModelSpec", () => {
  test("reads the three forms", () => {
    expect(parseModelSpec("openai:gpt-4o")).toEqual({ provider: "openai", model: "gpt-4o" });
    expect(parseModelSpec("anthropic:claude-sonnet-4-20250514")).toEqual({
      provider: "anthropic",
      model: "claude-sonnet-4-20250514",
    });
    expect(parseModelSpec("compat:http://10.0.0.5:8000/v1/#Qwen/Qwen2.5-Coder-7B-Instruct")).toEqual({
      provider: "compat",
      model: "Qwen/Qwen2.5-Coder-7B-Instruct",
      baseUrl: "http://10.0.0.5:8000/v1",
    });
    expect(parseModelSpec("compat:https://llm.lab/v1#m;key=LAB_KEY;n=native")).toMatchObject({
      keyEnv: "LAB_KEY",
      nMode: "native",
    });
  });

  test.each([
    ["gpt-4o", /unknown provider "gpt-4o"/],
    ["google:gemini", /unknown provider "google"/],
    ["openai:", /model name is missing/],
    ["compat:http://host:8000/v1", /needs #MODEL/],
    ["compat:host:8000/v1#m", /not an http\(s\) URL/],
    ["compat:http://host/v1#", /after # is missing/],
    ["compat:http://host/v1#m;temperature=2", /unknown option "temperature=2"/],
  ])("refuses %s, saying how to name a model", (spec, message) => {
    expect(() => parseModelSpec(spec)).toThrow(InvalidInputError);
    expect(() => parseModelSpec(spec)).toThrow(message);
    try {
      parseModelSpec(spec);
    } catch (error) {
      expect((error as InvalidInputError).hint).toMatch(/openai:MODEL, anthropic:MODEL or compat:BASE_URL#MODEL/);
    }
  });
});
