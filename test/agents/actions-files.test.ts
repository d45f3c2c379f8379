import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { parseActions, ReplayStep, RunRecord } from "../../src/core/index.js";
import { exited, node } from "../helpers/child.js";
import { REPO_ROOT, rebench } from "../helpers/cli.js";
import { TEST_BACKEND } from "../helpers/test-backend.js";
import { tempDir } from "../helpers/tmp.js";

const root = tempDir("rebench-actions-doc-");
const agentsDoc = readFileSync(path.join(REPO_ROOT, "docs/agents.md"), "utf8");
/** docs/agents.md, "Actions files": the section up to the next heading of its level. */
const section = /^## Actions files\n([\s\S]*?)(?=^## )/m.exec(agentsDoc)?.[1] ?? "";
const example = /```jsonl\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
const TOOLS = ReplayStep.options.map((option) => option.shape.tool.value);

function cli(args: string[]) {
  const env = { ...process.env, REBENCH_TEST_SANDBOX_ROOT: path.join(root, "sandboxes") };
  return exited(node("test/fixtures/rebench-cli.ts", args, env));
}

describe('the actions-file format, documented in docs/agents.md "Actions files"', () => {
  test("the section has a row and an example line for every tool, and the example is a valid actions file", () => {
    expect(section, 'docs/agents.md has no "## Actions files" section').not.toBe("");
    for (const tool of TOOLS) expect(section, `a row for ${tool}`).toMatch(new RegExp(`^\\| \`${tool}\` \\|`, "m"));
    const steps = parseActions(example, "the example in docs/agents.md");
    expect(new Set(steps.map((s) => s.tool))).toEqual(new Set(TOOLS));
  });

  test("`rebench run --help` points to it", async () => {
    const help = await rebench("run", "--help");
    expect(help.stdout).toContain('docs/agents.md, "Actions files"');
  });

  test("the example runs as it is: a real replay run through the local sandbox plays every step", async () => {
    const file = path.join(root, "example.jsonl");
    writeFileSync(file, example);
    const db = path.join(root, "runs.db");
    const ran = await cli(["run", "test_echo", "--variant", "mini", "--agent", "replay", "--actions", file, "--backend", TEST_BACKEND, "--db", db, "--json"]);
    expect(ran.code, ran.stderr).toBe(0);
    const run = RunRecord.parse((JSON.parse(ran.stdout) as { runs: unknown[] }).runs[0]);
    expect(run).toMatchObject({ state: "finished", stopReason: "submitted", actions: 6, tokens: 2350, costUsd: 0.0071 });
    const shown = await cli(["runs", "show", run.runId, "--db", db, "--events", "--json"]);
    const events = (JSON.parse(shown.stdout) as { events: Array<{ event: { type: string; tool?: string; output?: unknown } }> }).events;
    const outputs = events.filter(({ event }) => event.type === "observation" && event.tool === "bash").map(({ event }) => JSON.stringify(event.output));
    // The shell persists between calls: the second `bash` sees the first one's directory and export.
    expect(outputs[1]).toContain("/tmp\\ntried");
  });
});
