import { describe, expect, test } from "vitest";
import { newRunId, RunId } from "./ids.js";

describe("newRunId", () => {
  test("ids made in one millisecond, or after the clock went back, still sort in the order they were made", () => {
    const ids = [newRunId(1_600_000_000_000)];
    for (let i = 0; i < 200; i++) ids.push(newRunId(1_600_000_000_000));
    ids.push(newRunId(1_599_999_999_000)); // the clock went back a second
    ids.push(newRunId(1_600_000_000_001));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(RunId.safeParse(id).success).toBe(true);
  });

  test("a later millisecond starts a fresh random part", () => {
    const a = newRunId(1_650_000_000_000);
    const b = newRunId(1_650_000_000_005);
    expect(a.slice(0, 10)).not.toBe(b.slice(0, 10));
    expect(a < b).toBe(true);
  });
});
