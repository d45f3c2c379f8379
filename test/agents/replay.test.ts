import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { SqliteRunStore } from "../../src/store/index.js";
import { rebench } from "../helpers/cli.js";
import { FAST_ECHO } from "../helpers/model-script.js";
import { registerFixtures, TEST_BACKEND } from "../helpers/register-fixtures.js";
import { tempDir } from "../helpers/tmp.js";

const root = tempDir("rebench-replay-");
registerFixtures(path.join(root, "sandboxes"));
const db = path.join(root, "runs.db");

interface RunJson {
  runId: string;
  rawScore: number | null;
  normalizedScore: number | null;
  participant: string;
  state: string;
}

async function replay(...extra: string[]): Promise<RunJson[]> {
  const result = await rebench("run", "test_echo", "--variant", "mini", "--agent", "replay", "--backend", TEST_BACKEND, "--db", db, "--json", ...extra);
  expect(result.code, result.stderr).toBe(0);
  return (JSON.parse(result.stdout) as { runs: RunJson[] }).runs;
}

describe("rebench run --agent replay", () => {
  test("the reference solution reaches the reference's normalized score; `--actions start` scores the starting solution", async () => {
    const [reference] = await replay();
    const [start] = await replay("--actions", "start");
    expect(reference).toMatchObject({ state: "finished", participant: "reference (replay)" });
    expect(start).toMatchObject({ state: "finished", participant: "start (replay)" });
    // test_echo's constants: start ln(1.05 s), reference ln(0.05 s); timings here are noisy, so with margins.
    expect(reference!.normalizedScore!).toBeGreaterThan(0.4);
    expect(start!.normalizedScore!).toBeLessThan(0.3);
    expect(reference!.rawScore!).toBeLessThan(start!.rawScore!);
  });

  test("--actions FILE replays the file, and the run keeps the steps it replayed", async () => {
    const file = path.join(root, "mine.jsonl");
    const steps = [
      { tool: "bash", input: { command: `cat > solution.py <<'PY'\n${FAST_ECHO}PY` } },
      { tool: "score_log" },
      { tool: "submit", input: { submission: "mine" } },
    ];
    writeFileSync(file, `${steps.map((s) => JSON.stringify(s)).join("\n")}\n`);
    const [run] = await replay("--actions", file, "--runs", "2", "--concurrency", "2");
    expect(run!.participant).toBe("mine.jsonl (replay)");
    const store = SqliteRunStore.open(db);
    try {
      const summary = await store.getRun(run!.runId);
      expect(summary.spec.config.actions).toEqual(steps);
      const tools = (await store.events(run!.runId, { types: ["action"] })).map(({ event }) => (event.type === "action" ? event.tool : ""));
      expect(tools).toEqual(["bash", "score_log", "submit"]);
      expect(await store.listRuns({ batchId: summary.spec.batchId! })).toHaveLength(2);
    } finally {
      await store.close();
    }
  });

  test("a malformed actions file is refused with its line number, before any run starts", async () => {
    const file = path.join(root, "bad.jsonl");
    writeFileSync(file, '{"tool": "score"}\n{"tool": "rm", "input": {}}\n');
    const result = await rebench(
      "run",
      "test_echo",
      "--variant",
      "mini",
      "--agent",
      "replay",
      "--actions",
      file,
      "--backend",
      TEST_BACKEND,
      "--db",
      path.join(root, "bad.db"),
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/bad\.jsonl, line 2: not a recorded action/);
    const missing = await rebench(
      "run",
      "test_echo",
      "--variant",
      "mini",
      "--agent",
      "replay",
      "--actions",
      path.join(root, "nope.jsonl"),
      "--backend",
      TEST_BACKEND,
      "--db",
      path.join(root, "bad.db"),
    );
    expect(missing.code).toBe(3);
  });

  test("prints a table with each run's id, raw and normalized score, and progress lines", async () => {
    const result = await rebench("run", "test_echo", "--variant", "mini", "--agent", "replay", "--backend", TEST_BACKEND, "--db", db, "--progress", "0.5");
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/test_echo\/mini reference \(replay\) · [01]\/1 done/);
    expect(result.stdout).toMatch(/run r\w+ finished \(submitted\): raw -\d+\.\d+, normalized \d/);
    expect(result.stdout).toMatch(
      /RUN\s+PARTICIPANT\s+STATE\s+RAW\s+NORMALIZED\s+NORMALIZED BY\s+WORKING\s+TOKENS\s+COST\s+REVIEW\nr\w+\s+reference \(replay\)\s+finished \(submitted\)\s+-\d[\d.]*\s+\d[\d.]*\s+shipped\s.*\sclean\n/,
    );
  });
});
