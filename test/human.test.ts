import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { SqliteRunStore } from "../src/store/index.js";
import { REPO_ROOT, rebench } from "./helpers/cli.js";
import { FAST_ECHO } from "./helpers/model-script.js";
import { registerFixtures, TEST_BACKEND } from "./helpers/register-fixtures.js";
import { tempDir } from "./helpers/tmp.js";
import { TmuxSession, tmuxAvailable } from "./helpers/tmux.js";

const root = tempDir("rebench-human-");
registerFixtures(path.join(root, "sandboxes"));
const db = path.join(root, "store", "runs.db");
let session: TmuxSession | undefined;
afterEach(() => {
  session?.close();
  session = undefined;
});

/** `rebench human` of test_echo in a tmux session, as a person would start it. */
function human(timeLimit: string): TmuxSession {
  return new TmuxSession(
    `node --import tsx test/fixtures/rebench-cli.ts human test_echo --variant mini --backend ${TEST_BACKEND} --db ${db} --time-limit ${timeLimit}`,
    { cwd: REPO_ROOT, env: { REBENCH_TEST_SANDBOX_ROOT: path.join(root, "sandboxes") } },
  );
}

async function humanRun() {
  const store = SqliteRunStore.open(db);
  try {
    const run = (await store.listRuns({ participant: "human" })).at(-1)!;
    return { run, events: (await store.events(run.id)).map((e) => e.event), log: await store.scoreLog(run.id) };
  } finally {
    await store.close();
  }
}

describe.skipIf(!tmuxAvailable())("rebench human (driven through tmux)", () => {
  test("a scripted session: the shell shows the time left, scores, submits; the attempt is recorded, stored and reported", async () => {
    session = human("10m");
    await session.waitFor(/Time left: 0h(09|10)m\.\n\[0h(09|10)m left\] \S*workspace[#$] $/m);
    if (TEST_BACKEND === "local") {
      // The shell is the sandbox's agent: the grader's files are out of reach.
      session.type('echo "as=$(id -un) grader=$(ls /protected 2>&1 >/dev/null | wc -l)"');
      await session.waitFor(/^as=rebench-agent grader=1$/m);
    }
    session.type("score");
    await session.waitFor(/^score -?\d+\.\d+ \(lower is better\)/m);
    session.type(`cat > solution.py <<'PY'\n${FAST_ECHO}PY`);
    session.type("score");
    await session.waitFor(/^score -?\d+\.\d+ \(lower is better\)/m, { count: 2 });
    session.type("score-log");
    await session.waitFor(/^3\. at \d+ s: score/m);
    session.type("submit");
    await session.waitFor(/Submit and end your attempt now\? \[y\/N\] $/m);
    session.type("n");
    await session.waitFor(/^not submitted$/m);
    session.type('submit -y "accumulate in one pass"');
    const screen = await session.waitFor(/^REBENCH_EXIT=\d+$/m);
    expect(screen).toMatch(/^REBENCH_EXIT=0$/m);
    expect(screen).toMatch(/^run r\w+ finished \(submitted\): raw -?\d+\.\d+, normalized \d/m);
    // submit ends the shell with SIGHUP; no shell between `script` and the terminal reports it.
    expect(screen).toMatch(/the result follows\.\n\nrun r\w+ finished/);
    expect(screen).not.toMatch(/Hangup/);

    const { run, events, log } = await humanRun();
    expect(run).toMatchObject({ state: "finished", stopReason: "submitted", spec: { participant: { kind: "human", alias: "human" }, timeLimitSeconds: 600 } });
    expect(events.flatMap((e) => (e.type === "action" ? [e.tool] : []))).toEqual(["score", "score", "score_log", "submit"]);
    expect(events.find((e) => e.type === "submitted")).toMatchObject({ submission: "accumulate in one pass" });
    expect(log).toHaveLength(4);
    expect(run.finalRaw).toBeLessThan((log[0]!.outcome as { value: number }).value);
    const recorded = events.find((e) => e.type === "note" && e.message === "human: terminal session recorded");
    const files = (recorded as { data: { output: string; input: string; timing: string; tail: string } }).data;
    expect(files.output).toBe(path.join(root, "store", "transcripts", `${run.id}.out`));
    expect(readFileSync(files.output, "utf8")).toMatch(/score-log[\s\S]*3\. at \d+ s: score/);
    expect(readFileSync(files.input, "utf8")).toContain('submit -y "accumulate in one pass"');
    expect(existsSync(files.timing)).toBe(true);
    expect(files.tail).toMatch(/submitting: the shell closes now/);
    expect(readFileSync(files.output, "utf8")).not.toMatch(/Hangup/);

    const report = await rebench("report", "--db", db, "--budgets", "10m");
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toMatch(/^human\s+10m\s+1 × 10m\s+\d+\.\d+/m);
  });

  test("when the time runs out the terminal closes and the solution is scored", async () => {
    session = human("5s");
    await session.waitFor(/left\] \S*workspace[#$] $/m);
    session.type("echo working");
    const screen = await session.waitFor(/^REBENCH_EXIT=\d+$/m, { timeoutMs: 40_000 });
    expect(screen).not.toMatch(/Hangup/);
    expect(screen).toMatch(/^run r\w+ finished \(limit: time is up\): raw -?\d/m);
    const { run, events } = await humanRun();
    expect(run).toMatchObject({ state: "finished", stopReason: "limit" });
    expect(events.flatMap((e) => (e.type === "score_logged" ? [e.trigger] : []))).toEqual(["start", "limit"]);
  });
});
