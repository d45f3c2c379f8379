/**
 * `rebench store copy` and runs that have not ended: a plain copy refuses them (a copy resumed in the target
 * while the run finishes in the source left two stores that disagree for good); `--move-unfinished` moves
 * one that no live process drives: it ends in the source as `moved`, which takes no more events, and goes on
 * in the target, where `rebench runs resume` finishes it. Copying again then reports it as moved, never as
 * a conflict.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, onTestFinished, test } from "vitest";
import type { RunSummary } from "../src/core/index.js";
import { SqliteRunStore } from "../src/store/index.js";
import { finished, node as spawnNode } from "./helpers/child.js";
import { rebench } from "./helpers/cli.js";
import { record } from "./helpers/recorded-runs.js";
import { tempDir } from "./helpers/tmp.js";

const root = tempDir("rebench-copy-unfinished-");
const env = { ...process.env, REBENCH_TEST_SANDBOX_ROOT: path.join(root, "sandboxes") };

async function runsOf(db: string): Promise<RunSummary[]> {
  const store = SqliteRunStore.open(db, { readOnly: true });
  try {
    return await store.listRuns();
  } finally {
    await store.close();
  }
}

const node = (script: string, args: string[]) => spawnNode(script, args, env);

describe("store copy of runs that have not ended", () => {
  test("a plain copy refuses them, names them and says how to go on (exit 5); the finished runs are copied", async () => {
    const from = path.join(root, "plain-from.db");
    const to = path.join(root, "plain-to.db");
    const store = SqliteRunStore.open(from);
    await record(store, { alias: "done", environment: "optimize_kernel", limit: 3600, log: [[60, 1.5]] });
    await record(store, { alias: "going-on", environment: "optimize_kernel", limit: 3600, log: [[60, 1.4]], finish: false });
    const [done, goingOn] = await store.listRuns();
    await store.close();

    const copy = await rebench("store", "copy", "--from", from, "--to", to);
    expect(copy.code, copy.stderr).toBe(5);
    expect(copy.stderr).toContain(`unfinished ${goingOn!.id}: running in the source`);
    expect(copy.stderr).toContain(`1 run(s) were not copied because they have not ended in ${from}: ${goingOn!.id}`);
    expect(copy.stderr).toMatch(/hint: .*rebench runs resume --db .*--move-unfinished/);
    expect((await runsOf(to)).map((r) => r.id)).toEqual([done!.id]);
    expect((await runsOf(from)).map((r) => r.state)).toEqual(["finished", "running"]);

    const json = await rebench("store", "copy", "--from", from, "--to", to, "--json");
    expect(json.code).toBe(5);
    const results = (JSON.parse(json.stdout) as { runs: Array<{ runId: string; result: string }> }).runs;
    expect(results).toEqual([
      expect.objectContaining({ runId: done!.id, result: "same" }),
      expect.objectContaining({ runId: goingOn!.id, result: "unfinished" }),
    ]);
  });

  test("--move-unfinished refuses a run a live orchestrator drives, moves it once that one is gone, and it finishes in the target only", {
    timeout: 300_000,
  }, async () => {
    const from = path.join(root, "move-from.db");
    const to = path.join(root, "move-to.db");
    const actions = path.join(root, "actions.jsonl");
    writeFileSync(
      actions,
      [{ tool: "score" }, { tool: "bash", input: { command: "sleep 600" } }, { tool: "score" }, { tool: "submit", input: { submission: "in the target" } }]
        .map((s) => JSON.stringify(s))
        .join("\n"),
    );
    const orchestrator = node("test/fixtures/orchestrator.ts", [from, "batch-move", "1", "1", actions]);
    const exit = finished(orchestrator);
    onTestFinished(() => void orchestrator.kill("SIGKILL")); // also where an expectation fails first
    // Until the run is inside its long command.
    let run: RunSummary | undefined;
    for (let i = 0; i < 600 && run === undefined; i++) {
      await new Promise((r) => setTimeout(r, 200));
      const store = SqliteRunStore.open(from);
      const [only] = await store.listRuns();
      const last = only ? (await store.events(only.id)).at(-1)?.event : undefined;
      if (last?.type === "action" && JSON.stringify(last.input).includes("sleep 600")) run = only;
      await store.close();
    }
    expect(run, "the orchestrator never reached the long command").toBeDefined();

    const whileDriven = await rebench("store", "copy", "--from", from, "--to", to, "--move-unfinished");
    expect(whileDriven.code, whileDriven.stderr).toBe(5);
    expect(whileDriven.stderr).toContain(`unfinished ${run!.id}: running in the source, and it cannot be moved: the live process ${orchestrator.pid}`);
    expect(await runsOf(to)).toEqual([]);

    orchestrator.kill("SIGKILL");
    expect((await exit).signal).toBe("SIGKILL");
    const move = await rebench("store", "copy", "--from", from, "--to", to, "--move-unfinished");
    expect(move.code, move.stderr).toBe(0);
    expect(move.stderr).toContain(`moved ${run!.id}: it goes on in ${to} only`);
    expect(move.stdout).toContain(`rebench runs resume --db ${to}`);
    const [inSource] = await runsOf(from);
    expect(inSource).toMatchObject({ id: run!.id, state: "moved", error: `moved to ${to}` });
    expect((await runsOf(to))[0]).toMatchObject({ id: run!.id, state: "running" });

    // The source cannot drive it any more: nothing to resume there, and its log takes no more events.
    const resumeSource = await finished(node("test/fixtures/rebench-cli.ts", ["runs", "resume", "--db", from]));
    expect(resumeSource.output).toMatch(/no unfinished runs to resume/);
    const source = SqliteRunStore.open(from);
    await expect(source.append(run!.id, { type: "note", message: "late" })).rejects.toThrow(/was moved to another store/);
    await source.close();

    // The target finishes it, with its sandbox found again on this host.
    const resumeTarget = await finished(node("test/fixtures/rebench-cli.ts", ["runs", "resume", "--db", to]));
    expect(resumeTarget.code, resumeTarget.output).toBe(0);
    const [done] = await runsOf(to);
    expect(done).toMatchObject({ id: run!.id, state: "finished", stopReason: "submitted" });
    expect(done!.finalRaw).not.toBeNull();

    // Copying again is not a conflict: the run is reported as moved, and the target keeps what it did.
    const again = await rebench("store", "copy", "--from", from, "--to", to, "--json");
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).runs).toEqual([expect.objectContaining({ runId: run!.id, result: "moved", eventsCopied: 0 })]);
    expect((await runsOf(to))[0]).toEqual(done);
  });
});
