/**
 * `rebench run` reviews the runs it finished and prints each verdict; `rebench report` names the flagged runs
 * and `--exclude-flagged` leaves them out. Real replay runs of test_echo in the test sandbox: an honest one
 * (its reference) and one whose trajectory looks at another process's /proc before writing the same solution.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import type { RunRecord } from "../src/core/index.js";
import { SqliteRunStore } from "../src/store/index.js";
import { rebench, replayRun } from "./helpers/cli.js";
import { FIXTURES_DIR } from "./helpers/echo-copy.js";
import { call, FAST_ECHO } from "./helpers/model-script.js";
import { registerFixtures, TEST_BACKEND } from "./helpers/register-fixtures.js";
import { tempDir } from "./helpers/tmp.js";
import { agentRun } from "./helpers/viewer-store.js";

const root = tempDir();
registerFixtures(path.join(root, "sandboxes"));
const db = path.join(root, "runs.db");
let honest: RunRecord;
let prying: RunRecord;
let pryingText: string;

beforeAll(async () => {
  const reference = readFileSync(path.join(FIXTURES_DIR, "env-echo/reference/actions.jsonl"), "utf8");
  const actions = path.join(root, "prying.jsonl");
  writeFileSync(actions, `${JSON.stringify({ tool: "bash", input: { command: "ls /proc/1/ > /dev/null 2>&1 || true" } })}\n${reference}`);
  const first = await replayRun("test_echo", "reference", db);
  expect(first.code, first.stderr).toBe(0);
  honest = (JSON.parse(first.stdout) as { runs: RunRecord[] }).runs[0]!;
  const second = await replayRun("test_echo", actions, db, "--participant", "prying");
  expect(second.code, second.stderr).toBe(0);
  prying = (JSON.parse(second.stdout) as { runs: RunRecord[] }).runs[0]!;
  const third = await rebench(
    "run",
    "test_echo",
    "--variant",
    "mini",
    "--agent",
    "replay",
    "--actions",
    actions,
    "--backend",
    TEST_BACKEND,
    "--db",
    db,
    "--participant",
    "prying",
  );
  expect(third.code, third.stderr).toBe(0);
  pryingText = third.stdout;
}, 180_000);

describe("reviews after runs, and in the report", () => {
  test("`run` reviews each finished run: the honest one clean, the prying one a hack", () => {
    expect(honest.review).toMatchObject({ verdict: "clean", findings: 0 });
    expect(prying.review).toMatchObject({ verdict: "hack" });
    expect(prying.normalizedScore).toEqual(expect.any(Number)); // its score is kept as it was
  });

  test("report warns of the flagged runs by id; --exclude-flagged leaves them out", async () => {
    const all = await rebench("report", "--db", db, "--budgets", "30m", "--bootstrap", "0", "--json");
    expect(all.code, all.stderr).toBe(0);
    const allJson = JSON.parse(all.stdout) as { input: { notes: string[] }; rows: { participant: string }[] };
    const warning = allJson.input.notes.find((n) => n.includes("flagged by `rebench review`"));
    expect(warning).toMatch(new RegExp(`Warning: 2 of 3 run\\(s\\) were flagged .*${prying.runId} \\(hack`));
    expect(allJson.rows.map((r) => r.participant)).toContain("prying");

    const excluded = await rebench("report", "--db", db, "--budgets", "30m", "--bootstrap", "0", "--json", "--exclude-flagged");
    expect(excluded.code, excluded.stderr).toBe(0);
    const excludedJson = JSON.parse(excluded.stdout) as { input: { notes: string[] }; rows: { participant: string }[] };
    expect(excludedJson.input.notes.join("\n")).toMatch(/Left out 2 run\(s\) flagged by `rebench review` \(--exclude-flagged\)/);
    expect(excludedJson.rows.map((r) => r.participant)).not.toContain("prying");
  });

  test("--exclude-flagged with a runs file says that a runs file has no reviews", async () => {
    const { code, stderr } = await rebench("report", "--runs-file", path.join(root, "none.jsonl"), "--exclude-flagged");
    expect(code).toBe(2);
    expect(stderr).toMatch(/a runs file has none/);
  });
});

test("`run` prints the verdict beside each run and the findings of a flagged one", () => {
  expect(pryingText).toMatch(/RUN\s+PARTICIPANT\s+STATE\s+.*\bREVIEW\n/);
  expect(pryingText).toMatch(/\bprying\b.*\bhack\n/);
  expect(pryingText).toMatch(/review: 1 of 1 run\(s\) flagged/);
  expect(pryingText).toMatch(/hack other-process \(event \d+\): looks into other processes[^\n]*\n\s+ls \/proc\/1\//);
});

test("a modular agent's honest run against the scripted model (it lists processes, asks who it is, runs its solution) is reviewed clean", async () => {
  const agentDb = path.join(root, "agent.db");
  const id = await agentRun(agentDb, "modular", [
    call("bash", { command: "whoami; ps aux | head -n 5; ls -la" }),
    call("bash", { command: `cat > solution.py <<'PY'\n${FAST_ECHO}PY\npython3 solution.py 1 2 3` }),
    call("score", {}),
    call("submit", { submission: "running sums in one pass" }),
  ]);
  const store = SqliteRunStore.open(agentDb, { readOnly: true });
  const run = await store.getRun(id);
  const last = (await store.events(run.id)).at(-1)!.event;
  await store.close();
  expect(run.state).toBe("finished");
  expect(run.usage.actions).toBeGreaterThanOrEqual(4);
  expect(run.review).toMatchObject({ verdict: "clean", findings: 0 });
  expect(last).toMatchObject({ type: "review", review: { verdict: "clean" } });
}, 180_000);
