import { describe, expect, test } from "vitest";
import { parseBudgets } from "./parse-budgets.js";

describe("parseBudgets()", () => {
  test("reads hours, minutes, seconds and days, sorted ascending, labels kept", () => {
    expect(parseBudgets("32h, 2h,8h")).toEqual([
      { label: "2h", seconds: 7200 },
      { label: "8h", seconds: 28800 },
      { label: "32h", seconds: 115200 },
    ]);
    expect(parseBudgets("30m,90min,1.5d,45s").map((b) => b.seconds)).toEqual([45, 1800, 5400, 129600]);
  });

  test("refuses what it cannot read, saying how to write a budget", () => {
    expect(() => parseBudgets("8 hours")).toThrow(/cannot read the budget "8 hours"/);
    expect(() => parseBudgets("0h")).toThrow(/cannot read/);
    expect(() => parseBudgets("")).toThrow(/no budgets/);
    expect(() => parseBudgets("2h,120m")).toThrow(/are the same/);
  });
});
