import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, onTestFinished, test } from "vitest";
import type { EnvironmentFamily } from "../src/environments/contract.js";
import { registerExtraEnvironment } from "../src/environments/registry.js";
import { SqliteRunStore } from "../src/store/index.js";
import { rebench } from "./helpers/cli.js";
import { echoFamily } from "./helpers/echo-env.js";
import { registerFixtures, TEST_BACKEND } from "./helpers/register-fixtures.js";
import { tempDir } from "./helpers/tmp.js";

const root = tempDir("rebench-main-job-");
registerFixtures(path.join(root, "sandboxes"));

/** test_echo whose mini variant stages the `corpus-tiny` asset (seconds to build). */
const withAssets: EnvironmentFamily = (() => {
  const mini = echoFamily.variants.mini;
  if (mini.availability.status !== "available") throw new Error("test_echo/mini must be available");
  const implementation = { ...mini.availability.implementation, assets: ["corpus-tiny"] };
  return {
    ...echoFamily,
    name: "test_echo_assets",
    variants: { ...echoFamily.variants, mini: { ...mini, availability: { status: "available", implementation } } },
  };
})();

describe("rebench main", () => {
  test("runs each environment's starting and reference solutions as replay agents, stores them and prints the report with its HTML path", async () => {
    const db = path.join(root, "job", "runs.db");
    const { code, stdout, stderr } = await rebench("main", "--environments", "test_echo", "--backend", TEST_BACKEND, "--db", db, "--progress", "1");
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/rebench main job: \d+ of \d+ mini environments available/);
    expect(stdout).toMatch(/\[1\/1\] test_echo\/mini: Echo \(test environment\)/);
    expect(stdout).toMatch(/test_echo\/mini start \(replay\) · /);
    expect(stdout).toMatch(/Runs of this job\n.*\n.*start \(replay\)\s+finished \(submitted\)[\s\S]*reference \(replay\)\s+finished \(submitted\)/);
    // Both runs reviewed after scoring (docs/review.md): the REVIEW column, and the verdicts' line.
    expect(stdout).toMatch(
      /Runs of this job\n[^\n]*\bREVIEW\n[^\n]*start \(replay\)[^\n]*\bclean\n[^\n]*reference \(replay\)[^\n]*\bclean\nreview: 2 run\(s\) clean/,
    );
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

  test("builds the assets the chosen mini variants stage before the first run, and finds them current the next time", async () => {
    registerExtraEnvironment(withAssets);
    const home = path.join(root, "home");
    const db = path.join(root, "assets", "runs.db");
    const saved = process.env.REBENCH_HOME;
    process.env.REBENCH_HOME = home;
    onTestFinished(() => {
      if (saved === undefined) delete process.env.REBENCH_HOME;
      else process.env.REBENCH_HOME = saved;
    });
    const first = await rebench("main", "--environments", withAssets.name, "--backend", TEST_BACKEND, "--db", db, "--progress", "1");
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/Assets the chosen environments need: corpus-tiny[^\n]*\nbuilt corpus-tiny \(\d+ s\)\n\n\[1\/1\] test_echo_assets/);
    expect(existsSync(path.join(home, "assets", "corpus-tiny", "asset.json"))).toBe(true);
    const second = await rebench("main", "--environments", withAssets.name, "--backend", TEST_BACKEND, "--db", db, "--progress", "1");
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(/need: corpus-tiny[^\n]*\nall built already\n/);
  });

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
