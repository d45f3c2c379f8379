/**
 * When things die under a run, in the real local sandbox with real orchestrator processes:
 * - the sandbox's executor killed from outside while the agent's command runs is not "the agent failed":
 *   the command is marked interrupted and the run ends, scored on what its workspace holds;
 * - a run whose orchestrator died shows as orphaned, with the command that continues it, in `runs list`
 *   (text and --json), `runs show` and the viewer's API, and no longer once `runs resume` has finished it.
 */
import type { ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, onTestFinished, test } from "vitest";
import type { RunSummary, StoredEvent } from "../../src/core/index.js";
import { namespaceInitPid } from "../../src/sandbox/local/executor-process.js";
import { HostDirs } from "../../src/sandbox/local/host-dirs.js";
import { SqliteRunStore } from "../../src/store/index.js";
import { ViewerApi } from "../../src/web/viewer-api.js";
import { finished, node as spawnNode } from "../helpers/child.js";
import { rebench } from "../helpers/cli.js";
import { TEST_BACKEND } from "../helpers/test-backend.js";
import { tempDir } from "../helpers/tmp.js";

const root = tempDir("rebench-executor-lost-");
const sandboxes = path.join(root, "sandboxes");
const env = { ...process.env, REBENCH_TEST_SANDBOX_ROOT: sandboxes };
const actions = path.join(root, "actions.jsonl");
writeFileSync(
  actions,
  [{ tool: "score" }, { tool: "bash", input: { command: "sleep 600" } }, { tool: "submit", input: { submission: "never reached" } }]
    .map((s) => JSON.stringify(s))
    .join("\n"),
);

const node = (script: string, args: string[]) => spawnNode(script, args, env);

async function read<T>(db: string, fn: (store: SqliteRunStore) => Promise<T>): Promise<T> {
  const store = SqliteRunStore.open(db);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

/** Start an orchestrator of one run and wait until the run is inside its `sleep 600` (an action without an observation). */
async function runUntilSleeping(db: string, batchId: string): Promise<{ orchestrator: ChildProcess; exit: ReturnType<typeof finished>; run: RunSummary }> {
  const orchestrator = node("test/fixtures/orchestrator.ts", [db, batchId, "1", "1", actions]);
  const exit = finished(orchestrator);
  onTestFinished(() => void orchestrator.kill("SIGKILL"));
  for (let i = 0; i < 600; i++) {
    await new Promise((r) => setTimeout(r, 200));
    const run = await read(db, async (store) => {
      const [only] = await store.listRuns();
      const last = only ? (await store.events(only.id)).at(-1)?.event : undefined;
      return last?.type === "action" && JSON.stringify(last.input).includes("sleep 600") ? only : undefined;
    });
    if (run) return { orchestrator, exit, run };
  }
  throw new Error(`the orchestrator never reached the long command:\n${(await Promise.race([exit, Promise.resolve({ output: "(still running)" })])).output}`);
}

const eventsOf = (db: string, id: string): Promise<StoredEvent[]> => read(db, (store) => store.events(id));

describe.skipIf(TEST_BACKEND !== "local")("the sandbox's executor killed from outside", () => {
  test("ends the run scored on what its workspace holds, not as the agent's failure", { timeout: 300_000 }, async () => {
    const db = path.join(root, "killed-executor.db");
    const { exit, run } = await runUntilSleeping(db, "batch-executor");
    const pid = namespaceInitPid(new HostDirs(path.join(sandboxes, run.id)), "agent");
    expect(pid, "the agent's namespace is running").toBeDefined();
    process.kill(pid!, "SIGKILL");

    const orchestrator = await exit;
    expect(orchestrator.code, orchestrator.output).toBe(0);
    const [ended] = await read(db, (store) => store.listRuns());
    expect(ended).toMatchObject({ id: run.id, state: "finished", stopReason: "error", error: null });
    const events = await eventsOf(db, run.id);
    expect(events.some(({ event }) => event.type === "run_failed")).toBe(false);
    const sleep = events.find(({ event }) => event.type === "action" && JSON.stringify(event.input).includes("sleep 600"))!.event;
    const observation = events.find(({ event }) => event.type === "observation" && sleep.type === "action" && event.actionId === sleep.actionId)?.event;
    expect(observation).toMatchObject({ output: { interrupted: true, error: expect.stringMatching(/the sandbox's executor died while this ran/) } });
    // The final scoring ran after the kill, in a new executor, on the workspace the agent left.
    const scores = events.flatMap(({ event }) => (event.type === "score_logged" ? [event] : []));
    expect(scores.map((s) => s.trigger)).toEqual(["start", "action", "submit"]);
    expect(scores[2]!.entry.outcome.kind, JSON.stringify(scores[2]!.entry)).toBe("scored"); // the grader's as-agent calls work again
    const at = (e: unknown) => events.findIndex(({ event }) => event === e);
    expect(at(scores[2])).toBeGreaterThan(at(observation));
    expect(ended!.finalRaw).not.toBeNull();
  });
});

describe("a run whose orchestrator died", () => {
  test("shows as orphaned with the command that continues it, in runs list, runs show and the viewer's API", { timeout: 300_000 }, async () => {
    const db = path.join(root, "orphaned.db");
    const { orchestrator, exit, run } = await runUntilSleeping(db, "batch-orphaned");
    // While its orchestrator lives, it is just running.
    const alive = await rebench("runs", "list", "--db", db, "--json");
    expect(JSON.parse(alive.stdout)[0].orphaned).toBeNull();
    expect((await rebench("runs", "list", "--db", db)).stdout).not.toMatch(/orphaned/);

    orchestrator.kill("SIGKILL");
    expect((await exit).signal).toBe("SIGKILL");
    const why = `its orchestrator (process ${orchestrator.pid} on `;
    const list = await rebench("runs", "list", "--db", db);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(new RegExp(`${run.id}\\s+test_echo/mini\\s+script-agent\\s+orphaned \\(running\\)`));
    expect(list.stdout).toContain(`orphaned: run ${run.id}'s orchestrator is gone; \`rebench runs resume --db ${db} --run ${run.id}\` continues it`);
    const json = JSON.parse((await rebench("runs", "list", "--db", db, "--json")).stdout);
    expect(json[0]).toMatchObject({ runId: run.id, state: "running", orphaned: expect.stringContaining(why) });
    expect(json[0].orphaned).toContain(`\`rebench runs resume --run ${run.id}\` continues it`);
    const show = await rebench("runs", "show", run.id, "--db", db);
    expect(show.stdout).toMatch(/state: {7}running; orphaned: its orchestrator \(process \d+ on /);
    const viewer = await read(db, async (store) => {
      const api = new ViewerApi(store);
      return { page: await api.runs(new URLSearchParams()), detail: await api.run(run.id) };
    });
    expect(viewer.page.runs[0]).toMatchObject({ runId: run.id, state: "running", orphaned: expect.stringContaining(why) });
    expect(viewer.detail.row.orphaned).toContain(why);

    const resume = await finished(node("test/fixtures/rebench-cli.ts", ["runs", "resume", "--db", db]));
    expect(resume.code, resume.output).toBe(0);
    const after = JSON.parse((await rebench("runs", "list", "--db", db, "--json")).stdout);
    expect(after[0].orphaned).toBeNull();
    expect(after[0].state).toBe("finished");
  });
});
