import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { listEnvironments } from "../src/environments/index.js";
import { SqliteRunStore } from "../src/store/index.js";
import { rebench } from "./helpers/cli.js";
import { registerFixtures, TEST_BACKEND } from "./helpers/register-fixtures.js";
import { tempDir } from "./helpers/tmp.js";

const root = tempDir("rebench-main-job-");
registerFixtures(path.join(root, "sandboxes"));

describe("rebench main", () => {
  test("runs each environment's starting and reference solutions as replay agents, stores them and prints the report with its HTML path", async () => {
    const db = path.join(root, "job", "runs.db");
    const { code, stdout, stderr } = await rebench("main", "--environments", "test_echo", "--backend", TEST_BACKEND, "--db", db, "--progress", "1");
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/rebench main job: \d of 7 mini environments available/);
    expect(stdout).toMatch(/\[1\/1\] test_echo\/mini: Echo \(test environment\)/);
    expect(stdout).toMatch(/test_echo\/mini start \(replay\) · /);
    expect(stdout).toMatch(/Runs of this job\n.*\n.*start \(replay\)\s+finished \(submitted\)[\s\S]*reference \(replay\)\s+finished \(submitted\)/);
    expect(stdout).toMatch(/Score by total time budget\nPARTICIPANT[\s\S]*reference \(replay\)\s+30m\s+1 × 30m/);
    const html = /HTML report: (\S+)/.exec(stdout)?.[1];
    expect(html).toBe(path.join(root, "job", "report", "report.html"));
    expect(readFileSync(html!, "utf8")).toMatch(/reference \(replay\)/);
    const store = SqliteRunStore.open(db);
    try {
      const runs = await store.listRuns();
      expect(runs.map((r) => [r.spec.participant.alias, r.spec.participant.scaffold, r.state])).toEqual([
        ["start (replay)", "replay", "finished"],
        ["reference (replay)", "replay", "finished"],
      ]);
      const [start, reference] = runs;
      expect(reference!.normalized!).toBeGreaterThan(start!.normalized! + 0.3);
    } finally {
      await store.close();
    }
  });

  test.skipIf(listEnvironments().some((f) => f.variants.mini.availability.status === "available"))(
    "with no mini environment available it lists the seven and stops",
    async () => {
      const db = path.join(root, "empty", "runs.db");
      const { code, stdout } = await rebench("main", "--db", db);
      expect(code).toBe(0);
      expect(stdout).toMatch(/0 of 7 mini environments available[\s\S]*optimize_kernel\s+not yet[\s\S]*nothing to run/);
      expect(existsSync(path.join(root, "empty", "report"))).toBe(false);
    },
  );

  test("--agent needs --model, and an unknown environment is refused, before anything runs", async () => {
    const db = path.join(root, "refused", "runs.db");
    const agent = await rebench("main", "--db", db, "--agent", "modular");
    expect(agent.code).toBe(2);
    expect(agent.stderr).toMatch(/--agent and --model go together/);
    const unknown = await rebench("main", "--db", db, "--environments", "nope");
    expect(unknown.code).toBe(3);
    expect(existsSync(db)).toBe(false);
  });
});
