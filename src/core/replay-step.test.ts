import { describe, expect, test } from "vitest";
import { parseActions } from "./replay-step.js";

describe("parseActions()", () => {
  test("reads the reference format, blank lines skipped", () => {
    const text = '{"tool": "bash", "input": {"command": "ls", "timeoutSeconds": 5}}\n\n{"tool": "score"}\n{"tool": "submit", "input": {"submission": "x"}}\n';
    expect(parseActions(text, "f")).toEqual([
      { tool: "bash", input: { command: "ls", timeoutSeconds: 5 } },
      { tool: "score" },
      { tool: "submit", input: { submission: "x" } },
    ]);
  });

  test("names the source and line of what it cannot read", () => {
    expect(() => parseActions('{"tool": "score"}\n{nope', "a.jsonl")).toThrow(/a\.jsonl, line 2: not JSON/);
    expect(() => parseActions('{"tool": "bash", "input": {}}', "a.jsonl")).toThrow(/a\.jsonl, line 1: not a recorded action/);
    expect(() => parseActions("\n", "a.jsonl")).toThrow(/holds no actions/);
  });
});
