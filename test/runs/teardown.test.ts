import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, test } from "vitest";
import type { Agent, AgentSession } from "../../src/core/index.js";
import { cancelRun } from "../../src/runs/cancel-run.js";
import { startDirRun } from "../../src/runs/dir-run.js";
import { driveRun } from "../../src/runs/drive-run.js";
import { newRunSpec } from "../../src/runs/run-environment.js";
import { sandboxBackend } from "../../src/runs/sandbox-backends.js";
import { rebench } from "../helpers/cli.js";
import { BUILT, hostileTreeCommand } from "../helpers/hostile-tree.js";
import { runHarness } from "../helpers/run-harness.js";
import { TEST_BACKEND } from "../helpers/test-backend.js";
import { tempDir } from "../helpers/tmp.js";

const root = tempDir("rebench-teardown-");
const harness = runHarness(root);
const folderOf = (id: string) => path.join(root, "sandboxes", id);
const HOSTILE = hostileTreeCommand("hostile");
/** Bound into a sandbox's folder by the failure test (made here: tempDir registers its removal for the file). */
const outside = tempDir("rebench-outside-");
/** The test-only `process` backend cannot kill the tree's writer (it leaves the command's process group): real sandboxes only. */
const realSandbox = TEST_BACKEND !== "process";

/** What of run `id` is left on this host: its sandbox folder, staging folders named after it. */
function remains(id: string): string[] {
  const staging = readdirSync(os.tmpdir()).filter((name) => name.startsWith("rebench-") && name.includes(`-${id}-`));
  return [...(existsSync(folderOf(id)) ? [folderOf(id)] : []), ...staging.map((name) => path.join(os.tmpdir(), name))];
}

/** The run's teardown notes (`data.teardown`): none when everything was removed. */
async function teardownNotes(id: string): Promise<string[]> {
  const notes = await harness.store.events(id, { types: ["note"] });
  return notes.flatMap(({ event }) => (event.type === "note" && (event.data as { teardown?: unknown } | undefined)?.teardown ? [event.message] : []));
}

// A test runs a run's start, up to two gradings and the build of a 2,000-file tree in a sandbox: 10 to 25 s on
// the 2-vCPU VM under load 13 from other jobs, so the budget is above the suite's default minute.
describe("a run's teardown", { timeout: 180_000 }, () => {
  test.skipIf(!realSandbox)(
    "a submitted run whose agent left a chain past PATH_MAX, sealed directories and a running writer ends finished with its score; nothing of its sandbox stays",
    async () => {
      const { log, tools } = await harness.start();
      expect(existsSync(path.join(folderOf(log.id), "protected"))).toBe(true);
      const built = await tools.bash({ command: HOSTILE, timeoutSeconds: 300 });
      expect(built.stdout, built.stderr).toMatch(BUILT);
      await tools.submit({ submission: "" });
      const run = await harness.store.getRun(log.id);
      expect(run).toMatchObject({ state: "finished", stopReason: "submitted", error: null, finalRaw: expect.any(Number), normalized: expect.any(Number) });
      expect(remains(log.id)).toEqual([]);
      expect(await teardownNotes(log.id)).toEqual([]);
    },
  );

  test.skipIf(!realSandbox)("a run whose agent fails after leaving such a tree ends failed with the agent's error; nothing of its sandbox stays", async () => {
    const spec = await newRunSpec({
      environment: "test_echo",
      variant: "mini",
      task: "main",
      participant: { kind: "agent", alias: "crasher" },
      limits: {},
      config: { sandbox: TEST_BACKEND, driver: "orchestrator" },
    });
    const created = await harness.store.createRun(spec);
    const makeAgent = (): Agent => ({
      run: async (session: AgentSession) => {
        const built = await session.tools.bash({ command: HOSTILE, timeoutSeconds: 300 });
        expect(built.stdout, built.stderr).toMatch(BUILT);
        expect(existsSync(path.join(folderOf(created.id), "protected"))).toBe(true);
        throw new Error("the agent crashed");
      },
    });
    const run = await driveRun(created.id, { store: harness.store, makeAgent, watchdogMs: 0 });
    expect(run).toMatchObject({ state: "failed", error: expect.stringMatching(/the agent crashed/) });
    expect(remains(created.id)).toEqual([]);
    expect(await teardownNotes(created.id)).toEqual([]);
  });

  test.skipIf(!realSandbox)("`rebench runs cancel` ends a run whose agent left such a tree; nothing of its sandbox stays", async () => {
    const { log, tools, session } = await harness.start();
    expect((await tools.bash({ command: HOSTILE, timeoutSeconds: 300 })).stdout).toMatch(BUILT);
    session.close();
    const result = await cancelRun(harness.store, log.id);
    expect(result.run).toMatchObject({ state: "failed", error: expect.stringMatching(/cancelled by .* \(`rebench runs cancel`\)/) });
    expect(result.notes).toEqual([]);
    expect(remains(log.id)).toEqual([]);
  });

  test.skipIf(!realSandbox)(
    "`rebench start`, then agent code leaves such a tree in the sandbox, then `rebench score --submit`: finished with its score, nothing of its sandbox stays",
    async () => {
      const dir = path.join(root, "human");
      const db = path.join(root, "runs.db");
      const started = await rebench("start", "test_echo", "--variant", "mini", "--dir", dir, "--db", db, "--backend", TEST_BACKEND);
      expect(started.code, started.stderr).toBe(0);
      const id = /^started run (r[0-9a-z]+)/.exec(started.stdout)![1]!;
      // What agent code a grader runs as the agent could leave in the workspace.
      const sandbox = (await sandboxBackend(TEST_BACKEND).reattach(id))!;
      expect((await sandbox.exec(HOSTILE, { user: "agent", timeoutMs: 300_000 })).stdout).toMatch(BUILT);
      expect(existsSync(path.join(folderOf(id), "protected"))).toBe(true);
      const submitted = await rebench("score", "--dir", dir, "--db", db, "--submit", "done");
      expect(submitted.code, submitted.stderr).toBe(0);
      expect(await harness.store.getRun(id)).toMatchObject({ state: "finished", stopReason: "submitted", finalRaw: expect.any(Number) });
      expect(remains(id)).toEqual([]);
      expect(await teardownNotes(id)).toEqual([]);
    },
  );

  test("a start-up that fails before any sandbox exists (a backend this rebench lacks) fails the run and notes no teardown", async () => {
    const dir = path.join(root, "nowhere");
    const options = { store: harness.store, environment: "test_echo", variant: "mini" as const, task: "main" as const, dir, sandbox: "nowhere" };
    await expect(startDirRun({ ...options, participant: { kind: "human", alias: "nowhere" } })).rejects.toThrow(
      /the sandbox backend "nowhere" is not available/,
    );
    const run = (await harness.store.listRuns()).find((r) => r.spec.config.sandbox === "nowhere")!;
    expect(run).toMatchObject({ state: "failed", error: expect.stringMatching(/^start-up failed/) });
    expect(await teardownNotes(run.id)).toEqual([]);
  });

  test.skipIf(TEST_BACKEND !== "local")(
    "a run resumed after its sandbox's metadata was lost fails, and the rest of its sandbox, protected/ included, is removed",
    async () => {
      const { log, session } = await harness.start();
      session.close();
      rmSync(path.join(folderOf(log.id), "sandbox.json"));
      expect(existsSync(path.join(folderOf(log.id), "protected"))).toBe(true);
      const run = await driveRun(log.id, { store: harness.store, makeAgent: () => ({ run: async () => undefined }) });
      expect(run).toMatchObject({ state: "failed", error: expect.stringMatching(/sandbox is gone/) });
      expect(remains(log.id)).toEqual([]);
    },
  );

  test.skipIf(TEST_BACKEND !== "local" || process.getuid?.() !== 0)(
    "a teardown that leaves the sandbox behind (a filesystem mounted in it) keeps the run finished with its score, and notes what is left and how to remove it",
    async () => {
      const { log, tools } = await harness.start();
      const folder = folderOf(log.id);
      const point = path.join(folder, "home", "workspace", "mnt");
      mkdirSync(point);
      execFileSync("mount", ["--bind", outside, point]);
      try {
        const outcome = await tools.submit({ submission: "" });
        expect(outcome.finalScore).not.toBeNull();
        const run = await harness.store.getRun(log.id);
        expect(run).toMatchObject({ state: "finished", stopReason: "submitted", error: null, finalRaw: expect.any(Number) });
        const notes = await teardownNotes(log.id);
        expect(notes).toHaveLength(1);
        expect(notes[0]).toMatch(
          new RegExp(
            `^the run's sandbox was not removed: .*a filesystem is mounted inside it: ${point}\\. Left: ${folder}\\. To remove it: as root: findmnt -R ${folder}`,
          ),
        );
        expect(existsSync(path.join(folder, "protected"))).toBe(true);
      } finally {
        execFileSync("umount", [point]);
      }
      await sandboxBackend(TEST_BACKEND).remove?.(log.id);
      expect(remains(log.id)).toEqual([]);
    },
  );
});
