/**
 * `rebench review --monitor openai:MODEL` against the local scripted OpenAI-compatible server: the monitor reads
 * the run against the rubric, its verdict and cited events become findings, and its prompt and answer are
 * stored with the review. An answer that is not the rubric's JSON is a finding of its own.
 */
import { copyFileSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { type ScriptedServer, startScriptedServer } from "../src/agents/models/testing/scripted-server.js";
import type { Review } from "../src/core/index.js";
import { monitorRubric } from "../src/review/monitor.js";
import { SqliteRunStore } from "../src/store/index.js";
import { REPO_ROOT, rebench } from "./helpers/cli.js";
import { promptText } from "./helpers/model-script.js";
import { tempDir } from "./helpers/tmp.js";

const dir = tempDir();
const STORE = path.join(REPO_ROOT, "environments/optimize_kernel/bench/mini-calibration-2026-12-07/runs.db");
const REFERENCE_RUN = "r0mxcyijk02bg3tui0";
let server: ScriptedServer | undefined;
const saved = { key: process.env.OPENAI_API_KEY, url: process.env.OPENAI_BASE_URL };

beforeAll(() => {
  process.env.OPENAI_API_KEY = "test-key";
});
afterEach(async () => {
  await server?.close();
  server = undefined;
});
afterAll(() => {
  for (const [name, value] of [
    ["OPENAI_API_KEY", saved.key],
    ["OPENAI_BASE_URL", saved.url],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

async function reviewWith(answer: string, name: string): Promise<{ review: Review; db: string }> {
  server = await startScriptedServer("openai", [{ reply: { text: answer } }]);
  process.env.OPENAI_BASE_URL = server.baseUrl;
  const db = path.join(dir, name);
  copyFileSync(STORE, db);
  const { code, stdout, stderr } = await rebench("review", "--db", db, "--run", REFERENCE_RUN, "--monitor", "openai:gpt-4.1", "--json");
  expect(code, stderr).toBe(0);
  return { review: (JSON.parse(stdout) as { reviewed: { review: Review }[] }).reviewed[0]!.review, db };
}

describe("the LLM monitor", () => {
  test("its verdict and the events it cites become findings; its prompt and answer are stored with the review", async () => {
    const store = SqliteRunStore.open(STORE, { readOnly: true });
    const action = (await store.events(REFERENCE_RUN, { types: ["action"] }))[0]!.seq;
    await store.close();
    const answer = JSON.stringify({
      verdict: "hack",
      findings: [{ summary: "copies the reference's output instead of computing it", events: [action, 9999] }],
    });
    const { review, db } = await reviewWith(`Here is my judgement:\n${answer}`, "hack.db");
    expect(review.verdict).toBe("hack");
    expect(review.findings).toEqual([
      { kind: "monitor", signal: "monitor", severity: "hack", summary: "copies the reference's output instead of computing it", seqs: [action] },
    ]);
    expect(review.reviewer.monitor).toMatchObject({
      model: "openai:gpt-4.1",
      rubric: "monitor-rubric.md version 1",
      answer: `Here is my judgement:\n${answer}`,
    });
    // What the model was sent: the rubric, then the run and its actions by event number.
    const sent = promptText(server!.requests[0]!);
    expect(sent).toContain(monitorRubric().text.slice(0, 80));
    expect(sent).toContain("Environment: optimize_kernel, variant mini");
    expect(sent).toContain(`--- event ${action} (`);
    expect(review.reviewer.monitor!.prompt).toContain(`--- event ${action} (`);
    const stored = SqliteRunStore.open(db, { readOnly: true });
    const last = (await stored.events(REFERENCE_RUN)).at(-1)!.event;
    await stored.close();
    expect(last).toMatchObject({ type: "review", review: { verdict: "hack", reviewer: { monitor: { model: "openai:gpt-4.1" } } } });
  });

  test("a clean answer adds nothing, so the rules' verdict stands", async () => {
    const { review } = await reviewWith('{"verdict": "clean", "findings": []}', "clean.db");
    expect(review).toMatchObject({ verdict: "clean", findings: [] });
    expect(review.reviewer.monitor?.answer).toBe('{"verdict": "clean", "findings": []}');
  });

  test("an answer without the rubric's JSON is a suspicious finding that says the monitor did not judge", async () => {
    const { review } = await reviewWith("I cannot tell.", "unreadable.db");
    expect(review.verdict).toBe("suspicious");
    expect(review.findings).toMatchObject([{ kind: "monitor", signal: "monitor-unreadable", excerpt: "I cannot tell." }]);
  });
});
