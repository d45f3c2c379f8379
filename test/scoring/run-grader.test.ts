import { describe, expect, test } from "vitest";
import { aggregateScoreLog } from "../../src/core/index.js";
import { runGrader } from "../../src/scoring/index.js";
import { echoSandbox } from "../helpers/echo-env.js";
import { tempDir } from "../helpers/tmp.js";

const root = tempDir("rebench-grader-");
let n = 0;
const sandbox = () => echoSandbox(root, `s${++n}`);
const call = { command: ["python3", "grader/score.py"], task: "main", variant: "mini", timeoutSeconds: 30 } as const;
const misbehave = (mode: string, timeoutSeconds = 30) => ({ ...call, command: ["python3", "grader/misbehave.py", "--mode", mode], timeoutSeconds });

describe("runGrader()", () => {
  test("scores the starting solution from the result file, with the grader's message and process details", async () => {
    const box = await sandbox();
    const result = await runGrader(box, call);
    expect(result.outcome.kind).toBe("scored");
    const value = (result.outcome as { value: number }).value;
    expect(value).toBeGreaterThan(Math.log(1.0));
    expect(result.message).toEqual({ seconds: expect.any(Number) });
    expect(result.details).toMatchObject({ count: 200, rebench: { exitCode: 0, timedOut: false } });
  });

  test("a wrong solution is an invalid outcome with the grader's reason", async () => {
    const box = await sandbox();
    await box.writeFile(`${box.paths.workspace}/solution.py`, "print('1 2 3')\n");
    const result = await runGrader(box, call);
    expect(result.outcome).toEqual({ kind: "invalid", reason: "the output is not the running sums of the arguments" });
  });

  test("a solution that hangs is stopped by the grader from outside and is invalid", async () => {
    const box = await sandbox();
    await box.writeFile(`${box.paths.workspace}/solution.py`, "import time\ntime.sleep(60)\n");
    const started = Date.now();
    const result = await runGrader(box, { ...call, command: [...call.command, "--timeout", "1"] });
    expect(result.outcome).toEqual({ kind: "invalid", reason: "solution.py did not finish within 1 s" });
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  test("hidden_score tells the grader, which keeps the seconds out of its message", async () => {
    const box = await sandbox();
    const result = await runGrader(box, { ...call, task: "hidden_score" });
    expect(result.outcome.kind).toBe("scored");
    expect(result.message).toEqual({ valid: true });
  });

  test("each call gets a fresh result directory inside the protected directory, removed afterwards", async () => {
    const box = await sandbox();
    const probe = `${box.paths.protected}/probe.py`;
    await box.writeFile(
      probe,
      "import os, json\nopen(os.environ['REBENCH_RESULT'], 'w').write(json.dumps({'outcome': {'kind': 'scored', 'value': 1}, 'details': {'env': {k: v for k, v in os.environ.items() if k.startswith('REBENCH_')}, 'cwd': os.getcwd()}}))\n",
      { user: "grader" },
    );
    const first = await runGrader(box, { ...call, command: ["python3", probe] });
    const second = await runGrader(box, { ...call, command: ["python3", probe] });
    const env1 = (first.details as { env: Record<string, string> }).env;
    const env2 = (second.details as { env: Record<string, string> }).env;
    expect(env1.REBENCH_RESULT).not.toBe(env2.REBENCH_RESULT);
    expect(env1.REBENCH_RESULT!.startsWith(`${box.paths.protected}/.rebench/results/`)).toBe(true);
    expect(env1).toMatchObject({
      REBENCH_WORKSPACE: box.paths.workspace,
      REBENCH_PROTECTED: box.paths.protected,
      REBENCH_TASK: "main",
      REBENCH_VARIANT: "mini",
    });
    expect(env1.REBENCH_AS_AGENT).toBeTruthy();
    expect((first.details as { cwd: string }).cwd).toBe(box.paths.protected);
    const left = await box.exec(`ls -A ${box.paths.protected}/.rebench/results`, { user: "grader", cwd: box.paths.protected });
    expect(left.stdout).toBe("");
  });
});

describe("runGrader() never turns a failed grader into a score", () => {
  const cases: Array<[string, RegExp]> = [
    ["crash", /the grader exited with code 1/],
    ["nofile", /the grader wrote no result file/],
    ["stdout-score", /the grader wrote no result file/],
    ["garbage", /not JSON/],
    ["nan", /not JSON/],
    ["wrong-shape", /not a GraderResult:\n {2}- outcome/],
    ["exit-after-score", /the grader exited with code 3/],
    ["huge", /over the 1048576-byte limit/],
  ];
  test.each(cases)("%s is an error outcome", async (mode, message) => {
    const result = await runGrader(await sandbox(), misbehave(mode));
    expect(result.outcome.kind).toBe("error");
    expect((result.outcome as { message: string }).message).toMatch(message);
  });

  test("a grader past its time limit is killed and the entry is timedOut", async () => {
    const started = Date.now();
    const result = await runGrader(await sandbox(), misbehave("hang", 1));
    expect(result.outcome).toEqual({ kind: "timedOut", afterSeconds: 1 });
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  test("a crash keeps the grader's stderr tail in details, for the people reading the log", async () => {
    const result = await runGrader(await sandbox(), misbehave("crash"));
    expect(result.details).toMatchObject({ rebench: { exitCode: 1, stderrTail: expect.stringMatching(/the grader fell over/) } });
  });

  test("a log of failed entries aggregates to no score, and failed entries beside a score never win", async () => {
    const failures = await Promise.all(["crash", "garbage", "nofile"].map(async (mode) => runGrader(await sandbox(), misbehave(mode))));
    const timedOut = await runGrader(await sandbox(), misbehave("hang", 1));
    const log = [...failures, timedOut];
    for (const aggregation of ["min", "max", "last"] as const) {
      expect(aggregateScoreLog(log, aggregation)).toEqual({ kind: "noScore", entries: 4 });
    }
    const good = await runGrader(await sandbox(), call);
    expect(aggregateScoreLog([...log, good], "min")).toMatchObject({ kind: "scored", index: 4 });
  });
});
