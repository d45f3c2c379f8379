import { describe, expect, test } from "vitest";
import { computeAllocations } from "./compute-allocations.js";
import { parseBudgets } from "./parse-budgets.js";
import { quantile } from "./quantile.js";
import { scoreAtK } from "./score-at-k.js";
import { seededRandom } from "./seeded-random.js";
import { bruteForceScoreAtK } from "./testing/brute-force.js";
import { makeRun } from "./testing/make-run.js";

const HALF = 1800;
const TWO = 7200;
const EIGHT = 28800;
const budgets = parseBudgets("2h,8h,32h");

const scores = {
  agentKernelHalf: [0.1, 0.9, 0.4, 0.4, 0, 1.3],
  agentEmbedHalf: [0, 0, 0, 0, 0],
  agentScalingHalf: [0.2, 0.6, 0.1, 0.5],
  agentKernelTwo: [0.5, 1.1],
  agentEmbedTwo: [0.3, 0.2, 0.7],
  agentScalingTwo: [0.3],
  humanKernel: [0.2, 0.8, 1.0, 0.6],
  humanEmbed: [0.5, 0.5],
  humanScaling: [0.4, 0.3, 0.9, 0.2],
};

function fixture() {
  const runs = [
    ...scores.agentKernelHalf.map((s) => makeRun("agent", "optimize_kernel", HALF, s)),
    ...scores.agentEmbedHalf.map((s) => makeRun("agent", "fix_embedding", HALF, s)),
    ...scores.agentScalingHalf.map((s) => makeRun("agent", "scaling_law", HALF, s)),
    ...scores.agentKernelTwo.map((s) => makeRun("agent", "optimize_kernel", TWO, s)),
    ...scores.agentEmbedTwo.map((s) => makeRun("agent", "fix_embedding", TWO, s)),
    ...scores.agentScalingTwo.map((s) => makeRun("agent", "scaling_law", TWO, s)),
    ...scores.humanKernel.map((s) => makeRun("human", "optimize_kernel", EIGHT, s)),
    ...scores.humanEmbed.map((s) => makeRun("human", "fix_embedding", EIGHT, s)),
    ...scores.humanScaling.map((s) => makeRun("human", "scaling_law", EIGHT, s)),
  ];
  return runs;
}

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

describe("computeAllocations()", () => {
  const { rows, allocations } = computeAllocations(fixture(), { budgets, bootstrap: 200, seed: 1 });
  const find = (participant: string, budget: string, limit: number) =>
    allocations.find((a) => a.participant === participant && a.budget === budget && a.allocation?.runTimeLimitSeconds === limit)!;

  test("k = floor(budget / per-run limit), one allocation per participant, budget and limit", () => {
    expect(allocations.map((a) => [a.participant, a.budget, a.allocation])).toEqual([
      ["human", "2h", { runTimeLimitSeconds: EIGHT, k: 0 }],
      ["human", "8h", { runTimeLimitSeconds: EIGHT, k: 1 }],
      ["human", "32h", { runTimeLimitSeconds: EIGHT, k: 4 }],
      ["agent", "2h", { runTimeLimitSeconds: HALF, k: 4 }],
      ["agent", "2h", { runTimeLimitSeconds: TWO, k: 1 }],
      ["agent", "8h", { runTimeLimitSeconds: HALF, k: 16 }],
      ["agent", "8h", { runTimeLimitSeconds: TWO, k: 4 }],
      ["agent", "32h", { runTimeLimitSeconds: HALF, k: 64 }],
      ["agent", "32h", { runTimeLimitSeconds: TWO, k: 16 }],
    ]);
  });

  test("per-environment scores are best-of-k by brute force, Scaling Law the mean, all-zero environments 0", () => {
    const a = find("agent", "2h", HALF);
    expect(a.environments.optimize_kernel!.score).toBeCloseTo(bruteForceScoreAtK(scores.agentKernelHalf, 4)!, 12);
    expect(a.environments.fix_embedding).toEqual({ score: 0, n: 5 });
    expect(a.environments.scaling_law!.score).toBeCloseTo(mean(scores.agentScalingHalf), 12);
    expect(a.coverage).toBe(3);
    const suite = (bruteForceScoreAtK(scores.agentKernelHalf, 4)! + 0 + mean(scores.agentScalingHalf)) / 3;
    expect(a.score).toBeCloseTo(suite, 12);
  });

  test("environments with fewer than k runs are missing and the suite mean covers the rest", () => {
    const a = find("agent", "2h", TWO); // k = 1: every environment has a run
    expect(a.coverage).toBe(3);
    const b = find("agent", "8h", TWO); // k = 4: kernel has 2 runs, embedding 3, scaling 1
    expect(b.environments).toEqual({
      optimize_kernel: { score: null, n: 2 },
      fix_embedding: { score: null, n: 3 },
      scaling_law: { score: null, n: 1 },
    });
    expect([b.score, b.ci, b.coverage]).toEqual([null, null, 0]);
    const c = find("agent", "8h", HALF); // k = 16 > every n
    expect(c.coverage).toBe(0);
  });

  test("k = n takes the maximum", () => {
    const human = find("human", "32h", EIGHT); // k = 4 = n for kernel and scaling, 2 runs for embedding
    expect(human.environments.optimize_kernel!.score).toBe(1.0);
    expect(human.environments.scaling_law!.score).toBeCloseTo(mean(scores.humanScaling), 12);
    expect(human.environments.fix_embedding!.score).toBeNull();
    expect(human.coverage).toBe(2);
    expect(human.score).toBeCloseTo((1.0 + mean(scores.humanScaling)) / 2, 12);
  });

  test("rows keep the best observed allocation: most environments covered, then the highest score", () => {
    const row = (participant: string, budget: string) => rows.find((r) => r.participant === participant && r.budget === budget)!;
    const twoHourHalf = find("agent", "2h", HALF);
    const twoHourTwo = find("agent", "2h", TWO);
    const expected = twoHourHalf.score! >= twoHourTwo.score! ? twoHourHalf : twoHourTwo;
    expect(row("agent", "2h")).toEqual(expected);
    expect(row("agent", "2h").allocation).toEqual({ runTimeLimitSeconds: TWO, k: 1 });
    // A human with only 8-hour attempts has nothing to spend a 2-hour budget on.
    expect(row("human", "2h")).toMatchObject({ allocation: null, score: null, ci: null, coverage: 0 });
    expect(row("human", "8h").allocation).toEqual({ runTimeLimitSeconds: EIGHT, k: 1 });
    expect(rows.map((r) => r.participant)).toEqual(["human", "human", "human", "agent", "agent", "agent"]);
  });

  test("the interval is the 2.5th and 97.5th percentile of a within-environment bootstrap, seeded", () => {
    const a = find("agent", "2h", HALF);
    // The same resampling written naively from the same draws: pick runs, sort the sample, score@k, average environments.
    const replicate = (xs: readonly number[], k: number, method: "max" | "mean", stream: string) => {
      const sorted = [...xs].sort((p, q) => p - q);
      const drawn = new Uint32Array(200 * sorted.length);
      seededRandom(1, stream).fillIndices(drawn, sorted.length);
      return Array.from({ length: 200 }, (_, r) => {
        const sample = sorted.map((_x, j) => sorted[drawn[r * sorted.length + j]!]!);
        return scoreAtK(sample, k, { method })!;
      });
    };
    const kernel = replicate(scores.agentKernelHalf, 4, "max", `agent|optimize_kernel|${HALF}`);
    const embed = replicate(scores.agentEmbedHalf, 4, "max", `agent|fix_embedding|${HALF}`);
    const scaling = replicate(scores.agentScalingHalf, 4, "mean", `agent|scaling_law|${HALF}`);
    const suite = kernel.map((x, r) => (x + embed[r]! + scaling[r]!) / 3).sort((p, q) => p - q);
    expect(a.ci![0]).toBeCloseTo(quantile(suite, 0.025), 12);
    expect(a.ci![1]).toBeCloseTo(quantile(suite, 0.975), 12);
    expect(a.ci![0]).toBeLessThanOrEqual(a.score!);
    expect(a.ci![1]).toBeGreaterThanOrEqual(a.score!);
  });

  test("the bootstrap is reproducible for a fixed seed and changes with the seed", () => {
    const again = computeAllocations(fixture(), { budgets, bootstrap: 200, seed: 1 });
    expect(again.allocations.map((a) => a.ci)).toEqual(allocations.map((a) => a.ci));
    const other = computeAllocations(fixture(), { budgets, bootstrap: 200, seed: 2 });
    expect(other.allocations.map((a) => a.ci)).not.toEqual(allocations.map((a) => a.ci));
    expect(other.allocations.map((a) => a.score)).toEqual(allocations.map((a) => a.score));
  });

  test("a participant's interval does not change when another participant joins", () => {
    const alone = computeAllocations(
      fixture().filter((r) => r.participant === "agent"),
      { budgets, bootstrap: 200, seed: 1 },
    );
    expect(alone.rows.map((r) => r.ci)).toEqual(rows.filter((r) => r.participant === "agent").map((r) => r.ci));
  });

  test("identical runs give a zero-width interval; no bootstrap gives none", () => {
    const runs = [0.5, 0.5, 0.5].map((s) => makeRun("flat", "optimize_kernel", HALF, s));
    expect(computeAllocations(runs, { budgets: parseBudgets("1h") }).rows[0]).toMatchObject({ score: 0.5, ci: [0.5, 0.5] });
    expect(computeAllocations(runs, { budgets: parseBudgets("1h"), bootstrap: 0 }).rows[0]!.ci).toBeNull();
  });

  test("an environment one participant lacks is listed as missing with n = 0", () => {
    const runs = [makeRun("a", "optimize_kernel", HALF, 0.3), makeRun("b", "rust_codecontests", HALF, 0.6)];
    const out = computeAllocations(runs, { budgets: parseBudgets("30m") });
    expect(out.rows[0]!.environments).toEqual({ optimize_kernel: { score: 0.3, n: 1 }, rust_codecontests: { score: null, n: 0 } });
    expect(out.rows[0]!.coverage).toBe(1);
  });
});
