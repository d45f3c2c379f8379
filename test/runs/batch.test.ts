import path from "node:path";
import { describe, expect, test } from "vitest";
import { runBatch } from "../../src/runs/batch.js";
import { ECHO_DIR } from "../helpers/echo-env.js";
import { runHarness } from "../helpers/run-harness.js";
import { TEST_BACKEND } from "../helpers/test-backend.js";
import { tempDir } from "../helpers/tmp.js";

const harness = runHarness(tempDir("rebench-batch-"));
const reference = path.join(ECHO_DIR, "reference", "actions.jsonl");
const batch = (id: string, runs: number, concurrency: number) => ({
  id,
  participant: { kind: "agent" as const, alias: "reference", scaffold: "script", model: reference },
  environment: "test_echo",
  variant: "mini" as const,
  task: "main" as const,
  timeLimitSeconds: 600,
  limits: { actions: 20 },
  runs,
  concurrency,
  sandbox: TEST_BACKEND,
});

describe("runBatch()", () => {
  test("runs N runs at most `concurrency` at a time; the reference solution beats the starting one in each", async () => {
    const runs = await runBatch(batch("b-cap", 3, 2), { store: harness.store });
    expect(runs).toHaveLength(3);
    const spans = runs.map((r) => [Date.parse(r.startedAt!), Date.parse(r.finishedAt!)] as const);
    for (const [start] of spans) {
      const inFlight = spans.filter(([s, f]) => s <= start && start < f).length;
      expect(inFlight).toBeLessThanOrEqual(2);
    }
    for (const run of runs) {
      expect(run).toMatchObject({
        state: "finished",
        stopReason: "submitted",
        spec: { batchId: "b-cap", timeLimitSeconds: 600, limits: { workingSeconds: 600, actions: 20 } },
      });
      const log = await harness.store.scoreLog(run.id);
      const [start, ...rest] = log.map((e) => (e.outcome.kind === "scored" ? e.outcome.value : NaN));
      expect(Math.min(...rest)).toBeLessThan(start!);
      expect(run.normalized!).toBeGreaterThan(0);
    }
  });

  test("with concurrency 1 the runs do not overlap; running the batch again adds no runs", async () => {
    const runs = await runBatch(batch("b-serial", 2, 1), { store: harness.store });
    const [a, b] = [...runs].sort((x, y) => Date.parse(x.startedAt!) - Date.parse(y.startedAt!));
    expect(Date.parse(b!.startedAt!)).toBeGreaterThanOrEqual(Date.parse(a!.finishedAt!));
    const again = await runBatch(batch("b-serial", 2, 1), { store: harness.store });
    expect(again.map((r) => r.id)).toEqual(runs.map((r) => r.id));
  });

  test("a batch id already used for another participant or environment is refused", async () => {
    await expect(
      runBatch({ ...batch("b-serial", 2, 1), participant: { kind: "agent", alias: "other", scaffold: "script", model: reference } }, { store: harness.store }),
    ).rejects.toThrow(/already holds runs of reference/);
  });
});
