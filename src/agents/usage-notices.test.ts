import { describe, expect, test } from "vitest";
import { type UsageView, ZERO_USAGE } from "../core/index.js";
import { usageNotices } from "./usage-notices.js";

const view = (remaining: UsageView["remaining"], limits: UsageView["limits"]): UsageView => ({ state: "running", usage: ZERO_USAGE, limits, remaining });

describe("usageNotices()", () => {
  test("says nothing before half of a budget is used, then once per fraction crossed", () => {
    const limits = { workingSeconds: 1800, tokens: 100_000 };
    expect(usageNotices(view({ workingSeconds: 1000, tokens: 90_000 }, limits), new Set()).text).toBeUndefined();
    const half = usageNotices(view({ workingSeconds: 800, tokens: 90_000 }, limits), new Set());
    expect(half.text).toBe("[budget] You have used 55% of your working time: 13 min of 30 min left.");
    expect(usageNotices(view({ workingSeconds: 790, tokens: 90_000 }, limits), half.announced).text).toBeUndefined();
  });

  test("a jump past several fractions gives one line; near the end it reminds that the workspace is scored", () => {
    const notice = usageNotices(view({ tokens: 4_000 }, { tokens: 100_000 }), new Set());
    expect(notice.text).toMatch(/^\[budget\] You have used 96% of your token budget: 4,000 tokens of 100,000 tokens left\. When the budget runs out/);
    expect([...notice.announced].sort()).toEqual(["tokens@0.5", "tokens@0.75", "tokens@0.9", "tokens@0.95"]);
  });
});
