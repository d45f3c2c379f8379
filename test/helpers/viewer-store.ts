/**
 * @module
 * A store of real runs for the viewer's tests, made the way users make them: the main job (`rebench main` on
 * test_echo: the starting and reference solutions replayed), a modular agent and an AIDE agent against a
 * scripted model server, a hidden-score replay, a human's session typed through tmux (with its terminal
 * recording), plus a generated large run and a generated run left running (for the live page).
 */
import path from "node:path";
import { expect } from "vitest";
import { type RecordedRequest, type Script, startScriptedServer } from "../../src/agents/models/testing/scripted-server.js";
import type { RunSpecInput } from "../../src/core/index.js";
import { SqliteRunStore } from "../../src/store/index.js";
import { REPO_ROOT, rebench } from "./cli.js";
import { generateLargeRun } from "./large-run.js";
import { call, FAST_ECHO, promptText } from "./model-script.js";
import { registerFixtures, TEST_BACKEND } from "./register-fixtures.js";
import { TmuxSession } from "./tmux.js";

/** The spec of a written (not driven) optimize_kernel mini run, normalized with start 2 and reference 1: normalized = 2 − raw. */
export const kernelRunSpec = (alias: string, task: RunSpecInput["task"]): RunSpecInput => ({
  participant: { kind: "agent", alias, scaffold: "modular" },
  environment: "optimize_kernel",
  variant: "mini",
  task,
  limits: { workingSeconds: 1800 },
  timeLimitSeconds: 1800,
  direction: "min",
  aggregation: "min",
  normalization: { start: 2, reference: 1, source: "shipped" },
});

export interface ViewerStore {
  db: string;
  modular: string;
  aide: string;
  human: string;
  hidden: string;
  reference: string;
  large: string;
  live: string;
  needle: string;
}

/** One `rebench run test_echo` of `scaffold` against a scripted model server; its run id. */
export async function agentRun(db: string, scaffold: "modular" | "aide", script: Script, ...extra: string[]): Promise<string> {
  const server = await startScriptedServer("openai", script, { apiKey: "test-key" });
  process.env.OPENAI_API_KEY = "test-key";
  process.env.OPENAI_BASE_URL = server.baseUrl;
  try {
    const out = await rebench(
      "run",
      "test_echo",
      "--variant",
      "mini",
      "--agent",
      scaffold,
      "--model",
      "openai:gpt-4o",
      "--backend",
      TEST_BACKEND,
      "--db",
      db,
      "--json",
      "--progress",
      "1",
      ...extra,
    );
    expect(out.code, out.stderr).toBe(0);
    return (JSON.parse(out.stdout) as { runs: { runId: string }[] }).runs[0]!.runId;
  } finally {
    await server.close();
  }
}

function aideModel(): Script {
  let drafts = 0;
  const solution = (plan: string, content: string) => call("write_solution", { plan, files: [{ path: "solution.py", content }] });
  const step = (request: RecordedRequest) => {
    const prompt = promptText(request);
    if (prompt.includes("Propose a new solution")) {
      drafts += 1;
      return drafts === 1 ? solution("echo the arguments", "import sys\nprint(' '.join(sys.argv[1:]))\n") : solution("accumulate in one pass", FAST_ECHO);
    }
    return solution("same, tidier", FAST_ECHO);
  };
  return [step, step, step, step];
}

async function humanRun(root: string, db: string): Promise<string> {
  const session = new TmuxSession(
    `node --import tsx test/fixtures/rebench-cli.ts human test_echo --variant mini --backend ${TEST_BACKEND} --db ${db} --time-limit 10m`,
    { cwd: REPO_ROOT, env: { REBENCH_TEST_SANDBOX_ROOT: path.join(root, "sandboxes") }, width: 120, height: 40 },
  );
  try {
    await session.waitFor(/left\] \S*workspace[#$] $/m);
    session.type("score");
    await session.waitFor(/^score -?\d+\.\d+ \(lower is better\)/m);
    session.type(`cat > solution.py <<'PY'\n${FAST_ECHO}PY`);
    session.type("echo 'the person was here'");
    session.type("score-log");
    await session.waitFor(/^2\. at \d+ s: score/m);
    session.type('submit -y "accumulate in one pass"');
    await session.waitFor(/^REBENCH_EXIT=0$/m, { timeoutMs: 60_000 });
  } finally {
    session.close();
  }
  const store = SqliteRunStore.open(db);
  try {
    return (await store.listRuns({ participant: "human" })).at(-1)!.id;
  } finally {
    await store.close();
  }
}

/** Build the store under `root` (about a minute on 2 cores). */
export async function buildViewerStore(root: string, options: { largeEvents?: number; largeBytes?: number } = {}): Promise<ViewerStore> {
  registerFixtures(path.join(root, "sandboxes"));
  const db = path.join(root, "store", "runs.db");
  const main = await rebench("main", "--environments", "test_echo", "--backend", TEST_BACKEND, "--db", db, "--progress", "1");
  expect(main.code, main.stderr).toBe(0);
  const modular = await agentRun(db, "modular", [
    call("bash", { command: "cat solution.py" }),
    call("bash", { command: `cat > solution.py <<'PY'\n${FAST_ECHO}PY` }),
    call("score", {}),
    call("python", { code: "print('x' * 30000)" }),
    call("submit", { submission: "one pass with itertools.accumulate" }),
  ]);
  const aide = await agentRun(
    db,
    "aide",
    aideModel(),
    "--agent-config",
    JSON.stringify({ numDrafts: 2, debugProb: 0, maxSteps: 3, seed: 7, checkTimeoutSeconds: 30 }),
  );
  const hiddenOut = await rebench(
    "run",
    "test_echo",
    "--variant",
    "mini",
    "--task",
    "hidden_score",
    "--agent",
    "replay",
    "--backend",
    TEST_BACKEND,
    "--db",
    db,
    "--json",
    "--progress",
    "1",
  );
  expect(hiddenOut.code, hiddenOut.stderr).toBe(0);
  const hidden = (JSON.parse(hiddenOut.stdout) as { runs: { runId: string }[] }).runs[0]!.runId;
  const human = await humanRun(root, db);
  const needle = "needle-in-the-haystack";
  const store = SqliteRunStore.open(db);
  try {
    const reference = (await store.listRuns({ participant: "reference (replay)" }))[0]!.id;
    const large = await generateLargeRun(store, { events: options.largeEvents ?? 10_000, observationBytes: options.largeBytes ?? 20e6, needle });
    const live = await generateLargeRun(store, { events: 60, observationBytes: 60_000, running: true });
    return { db, modular, aide, human, hidden, reference, large, live, needle };
  } finally {
    await store.close();
  }
}
