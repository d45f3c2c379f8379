import { copyFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { contentionOf } from "../../src/core/index.js";
import { runGrader } from "../../src/scoring/index.js";
import { scoreView } from "../../src/scoring/score-view.js";
import { withBusyLoops } from "../helpers/busy-loops.js";
import { echoCopy, FIXTURES_DIR } from "../helpers/echo-copy.js";
import { TEST_BACKEND, testBackend } from "../helpers/test-backend.js";
import { tempDir } from "../helpers/tmp.js";

const root = tempDir("rebench-contention-");
const burn = (dir: string) => copyFileSync(path.join(FIXTURES_DIR, "contention-graders", "burn.py"), path.join(dir, "grader", "score.py"));
const family = echoCopy(root, "test_echo_burn", burn, { timingSensitive: true });
const call = { command: ["python3", "grader/score.py"], task: "main", variant: "mini", timeoutSeconds: 60, timingSensitive: true } as const;
// The test-only process backend runs on the host itself: it cannot tell its own CPU time from other work's.
const skip = TEST_BACKEND === "process" ? test.skip : test;

describe("scoring under contention", () => {
  skip("records how much other work used the machine during every grader run, and flags the one taken beside two busy loops", async () => {
    const sandbox = await testBackend(path.join(root, "sandboxes")).create({
      id: `burn${process.pid}`,
      workspaceFrom: path.join(family.dir, "workspace"),
      protectedFrom: family.dir,
      limits: { memoryMb: 1024, processes: 64 },
    });
    // Once with the machine as it is (other developers' work included: flagged or not, the numbers are there).
    const asItIs = await runGrader(sandbox, call);
    expect(asItIs.outcome.kind).toBe("scored");
    const first = contentionOf(asItIs)!;
    expect(first).toMatchObject({ timingSensitive: true, thresholdCpus: 0.25, otherSandboxes: expect.any(Number) });
    expect(first.sandboxCpus! * first.seconds).toBeGreaterThan(0.95); // the grader burned a CPU-second (and a bit more starting)
    expect(first.otherCpus).toBeGreaterThanOrEqual(0);
    expect(first.seconds).toBeGreaterThanOrEqual(1);

    // Once beside a busy loop per CPU: other work takes its share, the burn takes longer, the entry is flagged.
    const busy = await withBusyLoops(() => runGrader(sandbox, call));
    const second = contentionOf(busy)!;
    expect(second.flagged).toBe(true);
    expect(second.otherCpus).toBeGreaterThan(0.5);
    expect(second.load).toBeGreaterThan(0);
    expect((busy.message as { wall_seconds: number }).wall_seconds).toBeGreaterThan(1.2);

    // The participant sees a notice beside the flagged score; the grader's message is left as it wrote it.
    const entry = { timestamp: new Date().toISOString(), elapsedSeconds: 0, ...busy };
    const view = scoreView(entry, true);
    expect(view.notice).toMatch(/^while this was scored, other work on this machine used \d\.\d of \d+ CPUs/);
    expect(view.message).toEqual(busy.message);
    expect(scoreView({ ...entry, details: {} }, true).notice).toBeUndefined();
    await sandbox.destroy();
  }, 120_000);

  skip("a variant whose score does not depend on timing keeps the numbers but is never flagged", async () => {
    const sandbox = await testBackend(path.join(root, "sandboxes")).create({
      id: `plain${process.pid}`,
      workspaceFrom: path.join(family.dir, "workspace"),
      protectedFrom: family.dir,
      limits: { memoryMb: 1024, processes: 64 },
    });
    const busy = await withBusyLoops(() => runGrader(sandbox, { ...call, timingSensitive: false }));
    expect(contentionOf(busy)).toMatchObject({ timingSensitive: false, flagged: false, otherCpus: expect.any(Number) });
    expect(contentionOf(busy)!.otherCpus).toBeGreaterThan(0.5);
    await sandbox.destroy();
  }, 120_000);
});
