import { describe, expect, test } from "vitest";
import { humanPercentile } from "./human-percentile.js";

describe("humanPercentile()", () => {
  const humans = { optimize_kernel: [0.2, 0.4, 0.4, 0.9], fix_embedding: [0, 0, 0, 1] };

  test("ranks the agent's score among human final scores per environment and averages them", () => {
    const out = humanPercentile({ optimize_kernel: 0.5, fix_embedding: 0 }, humans);
    // kernel: 3 of 4 below → 75; embedding: 0 below, 3 tied (half count) → 37.5
    expect(out.environments).toEqual({ optimize_kernel: 75, fix_embedding: 37.5 });
    expect(out.percentile).toBeCloseTo(56.25, 12);
  });

  test("ties count by the chosen kind", () => {
    expect(humanPercentile({ optimize_kernel: 0.4 }, humans, { kind: "strict" }).percentile).toBe(25);
    expect(humanPercentile({ optimize_kernel: 0.4 }, humans, { kind: "weak" }).percentile).toBe(75);
    expect(humanPercentile({ optimize_kernel: 0.4 }, humans).percentile).toBe(50);
  });

  test("skips environments where the agent is missing or no human has a score", () => {
    const out = humanPercentile({ optimize_kernel: null, fix_embedding: 2, rust_codecontests: 0.5 }, humans);
    expect(out.environments).toEqual({ fix_embedding: 100 });
    expect(humanPercentile({ optimize_kernel: null }, humans).percentile).toBeNull();
  });
});
