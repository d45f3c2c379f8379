import type { ChildProcess } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { RunRecord } from "../src/core/index.js";
import { exited, node } from "./helpers/child.js";
import { TEST_BACKEND } from "./helpers/test-backend.js";
import { tempDir } from "./helpers/tmp.js";
import { ensureViewerBuilt } from "./helpers/viewer-build.js";

const root = tempDir("rebench-run-json-");
const db = path.join(root, "runs.db");
const env = { ...process.env, REBENCH_TEST_SANDBOX_ROOT: path.join(root, "sandboxes") };

/** The CLI (with the test fixtures) as a process of its own. */
const cli = (args: string[]) => node("test/fixtures/rebench-cli.ts", args, env);

async function json(args: string[]): Promise<unknown> {
  const { code, stdout, stderr } = await exited(cli(args));
  expect(code, `${args.join(" ")}: ${stderr}`).toBe(0);
  return JSON.parse(stdout);
}

let record: RunRecord;

beforeAll(async () => {
  ensureViewerBuilt();
  const ran = (await json(["run", "test_echo", "--variant", "mini", "--agent", "replay", "--backend", TEST_BACKEND, "--db", db, "--json"])) as {
    runs: unknown[];
  };
  expect(ran.runs).toHaveLength(1);
  record = RunRecord.parse(ran.runs[0]);
}, 120_000);

describe("one JSON vocabulary for a run (RunRecord, docs/runs.md)", () => {
  test("`run --json` prints the run record: its id, scores, state and usage, no spec", () => {
    expect(record).toMatchObject({ environment: "test_echo", variant: "mini", state: "finished", stopReason: "submitted", participant: "reference (replay)" });
    expect(record.rawScore).toEqual(expect.any(Number));
    expect(record.rawScoreSoFar).toBe(record.rawScore);
    expect(record.normalizedScore).toEqual(expect.any(Number));
    expect(record).not.toHaveProperty("spec");
  });

  test("`runs list --json` and `runs show --json` give the same record, under the same names", async () => {
    const listed = (await json(["runs", "list", "--db", db, "--json"])) as unknown[];
    expect(listed.map((r) => RunRecord.parse(r))).toEqual([record]);
    const shown = (await json(["runs", "show", record.runId, "--db", db, "--json"])) as { run: unknown; spec: { environment: string }; scoreLog: unknown[] };
    expect(RunRecord.parse(shown.run)).toEqual(record);
    expect(shown.spec.environment).toBe("test_echo"); // the whole spec is `runs show`'s alone
    expect(shown.scoreLog.length).toBe(record.scoreCalls);
  });

  test("`store copy --json` names each run by its runId", async () => {
    const copied = (await json(["store", "copy", "--from", db, "--to", path.join(root, "copy.db"), "--json"])) as {
      runs: Array<Record<string, unknown>>;
      eventsCopied: number;
    };
    expect(copied.runs).toEqual([{ runId: record.runId, result: "copied", eventsCopied: copied.eventsCopied }]);
    expect(copied.eventsCopied).toBeGreaterThan(0);
  });

  describe("the viewer's HTTP API", () => {
    let serve: ChildProcess;
    let url: string;
    beforeAll(async () => {
      serve = cli(["serve", "--db", db, "--port", "0"]);
      url = await new Promise<string>((resolve, reject) => {
        let out = "";
        serve.stdout?.on("data", (d) => {
          out += d;
          const found = /open (http:\/\/\S+)/.exec(out);
          if (found) resolve(found[1]!);
        });
        serve.on("exit", (code) => reject(new Error(`rebench serve exited ${code}: ${out}`)));
      });
    }, 60_000);
    afterAll(() => {
      serve.kill("SIGTERM");
    });

    test("/api/runs and /api/runs/ID send the run record, plus the viewer's own fields", async () => {
      const page = (await (await fetch(`${url}api/runs`)).json()) as { runs: Array<Record<string, unknown>> };
      const { scoresWithheld, events, ...row } = page.runs[0]!;
      expect(RunRecord.parse(row)).toEqual(record);
      expect(scoresWithheld).toBe(false);
      expect(events).toEqual(expect.any(Number));
      const detail = (await (await fetch(`${url}api/runs/${record.runId}`)).json()) as { row: Record<string, unknown> };
      expect(detail.row).toEqual(page.runs[0]);
    });
  });
});
