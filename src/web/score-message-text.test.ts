import { expect, test } from "vitest";
import { scoreMessageText } from "./score-message-text.js";

test("scoreMessageText() reads a grader's message as key: value pairs, not JSON", () => {
  expect(scoreMessageText({ is_valid: true, frac_flops_used: 0.41 })).toBe("is_valid: yes · frac_flops_used: 0.41");
  expect(scoreMessageText({ ok: false, reason: "the output is not the running sums" }, "\n")).toBe("ok: no\nreason: the output is not the running sums");
});

test("scoreMessageText() flattens nesting and lists, and is empty for an empty message", () => {
  expect(scoreMessageText({ timing: { median: 1.5, runs: [1.4, 1.5, 1.6] }, note: null })).toBe("timing.median: 1.5 · timing.runs: 1.4, 1.5, 1.6 · note: none");
  expect(
    scoreMessageText({
      cases: [
        { name: "a", ok: true },
        { name: "b", ok: false },
      ],
    }),
  ).toBe("cases[1].name: a · cases[1].ok: yes · cases[2].name: b · cases[2].ok: no");
  expect(scoreMessageText({})).toBe("");
});
