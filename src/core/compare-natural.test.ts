import { expect, test } from "vitest";
import { compareNatural } from "./compare-natural.js";

test("compareNatural() counts runs of digits as numbers: model-2 before model-10", () => {
  const names = ["model-10", "model-2", "human", "model-1", "model-02", "model-b", "model-", "Zed"];
  expect(names.sort(compareNatural)).toEqual(["Zed", "human", "model-", "model-1", "model-02", "model-2", "model-10", "model-b"]);
});

test("compareNatural() is a total order: names equal as numbers fall back to their text", () => {
  expect(compareNatural("a-2", "a-02")).toBeGreaterThan(0);
  expect(compareNatural("a-02", "a-2")).toBeLessThan(0);
  expect(compareNatural("gpt-4o", "gpt-4o")).toBe(0);
  expect(compareNatural("v1.10", "v1.9")).toBeGreaterThan(0);
});
