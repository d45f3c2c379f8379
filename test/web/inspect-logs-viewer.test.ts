import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { EvalLogHeader, type EvalSample, EvalSample as EvalSampleSchema, EvalSampleSummary } from "../../src/core/inspect-log.js";
import { readZip } from "../../src/core/zip.js";
import { chromiumMissing, launchChromium } from "../helpers/browser.js";
import { rebench } from "../helpers/cli.js";
import { buildInspectViewer, serveFolder } from "../helpers/inspect-viewer.js";
import { skipOrFail } from "../helpers/required.js";
import { tempDir } from "../helpers/tmp.js";
import { buildViewerStore, type ViewerStore } from "../helpers/viewer-store.js";

// Real runs (the viewer's test store: the main job's replays, a modular and an AIDE agent against a scripted
// model, a hidden-score replay, a human's tmux session with its recording, a generated 10,000-event run and a
// run left running) exported as Inspect logs: every file checked against Inspect's shapes, then opened in
// Inspect's own viewer (@metrevals/inspect-log-viewer) in Debian's chromium.
const root = tempDir("rebench-inspect-viewer-");
const site = path.join(root, "site");
const logs = path.join(site, "logs");
const skip = skipOrFail("the Inspect viewer's browser test (Debian's chromium through playwright-core)", chromiumMissing());

let runs: ViewerStore;
let server: { url: string; close: () => Promise<void> } | undefined;
let browser: Browser | undefined;
const samples = new Map<string, { file: string; sample: EvalSample }>();

function readEval(file: string) {
  const members = readZip(readFileSync(file), file);
  const header = EvalLogHeader.parse(JSON.parse(members.get("header.json")!.toString("utf8")));
  const list = [...members].filter(([n]) => n.startsWith("samples/")).map(([, b]) => EvalSampleSchema.parse(JSON.parse(b.toString("utf8"))));
  for (const s of JSON.parse(members.get("summaries.json")!.toString("utf8")) as unknown[]) EvalSampleSummary.parse(s);
  return { header, samples: list };
}

describe("Inspect logs of real runs", () => {
  beforeAll(async () => {
    runs = await buildViewerStore(root);
    const started = performance.now();
    const result = await rebench("runs", "export", "--db", runs.db, "--format", "inspect", "--out", logs);
    const seconds = (performance.now() - started) / 1000;
    expect(result.code, result.stderr).toBe(0);
    // Printed, not asserted (docs/inspect-logs.md, "Large runs"): the store holds the 10,000-event run.
    console.log(`exported the viewer's test store (a 10,000-event run among them) in ${seconds.toFixed(2)} s:\n${result.stdout}`);
    for (const f of readdirSync(logs).filter((n) => n.endsWith(".eval"))) {
      for (const sample of readEval(path.join(logs, f)).samples) samples.set(sample.uuid!, { file: f, sample });
    }
    if (skip === undefined) {
      // Inspect's viewer page beside the logs, served as `inspect view bundle`'s static site is.
      await buildInspectViewer(site);
      server = await serveFolder(site);
      browser = await launchChromium();
    }
  }, 600_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  test("every exported log is of Inspect's shape, and every run is a sample", () => {
    // The main job's two replays, the two agents, the hidden-score replay, the human, the large and the live run.
    expect(samples.size).toBe(8);
    for (const id of [runs.modular, runs.aide, runs.human, runs.hidden, runs.reference, runs.large, runs.live]) expect(samples.has(id), id).toBe(true);
  });

  test("an agent's run: the model's tool calls, their results, usage and the scores", () => {
    const { sample } = samples.get(runs.modular)!;
    const calls = sample.messages.flatMap((m) => (m.role === "assistant" ? (m.tool_calls ?? []) : []));
    // The model's five calls, and the scaffold's own python call that saved the long output (an assistant turn of its own).
    expect(calls.map((c) => c.function)).toEqual(["bash", "bash", "score", "python", "python", "submit"]);
    expect(calls[4]!.id).toBe("a5");
    expect(calls[0]!.arguments).toEqual({ command: "cat solution.py" });
    const results = sample.messages.filter((m) => m.role === "tool");
    expect(results.map((m) => (m.role === "tool" ? m.tool_call_id : null))).toEqual(calls.map((c) => c.id));
    expect(results[0]!.content).toMatch(/def running_sums/);
    // 30,000 x's: one attachment, referenced by the tool message and the tool event alike.
    const big = results[3]!.content as string;
    expect(big).toMatch(/^attachment:\/\/[0-9a-f]{32}$/);
    expect(sample.attachments[big.slice("attachment://".length)]).toMatch(/^x{30000}/);
    const tools = sample.events.filter((e) => e.event === "tool");
    expect(tools.map((e) => (e.event === "tool" ? e.result : null))).toContain(big);
    expect(tools.every((e) => e.event === "tool" && typeof e.working_time === "number")).toBe(true);
    expect(Object.keys(sample.model_usage)).toEqual(["openai/gpt-4o"]);
    expect(sample.events.filter((e) => e.event === "model")).toHaveLength(5);
    const scores = sample.events.filter((e) => e.event === "score");
    expect(scores.length).toBeGreaterThanOrEqual(2);
    expect(scores.at(-1)).toMatchObject({ intermediate: false, score: { metadata: { trigger: "submit" } } });
    expect(sample.scores?.rebench_raw?.value).toEqual(expect.any(Number));
    expect(sample.scores?.rebench_normalized?.metadata).toMatchObject({ normalizedBy: expect.any(String) });
  });

  test("a hidden-score run's values stay hidden unless --include-hidden", async () => {
    const { sample } = samples.get(runs.hidden)!;
    expect(sample.scores).toBeNull();
    expect(sample.metadata).toMatchObject({ rebench: { scoresWithheld: true, rawScore: null } });
    const values = sample.events.flatMap((e) => (e.event === "score" ? [e.score.value] : []));
    expect(values.length).toBeGreaterThan(0);
    expect(values.every((v) => v === "(hidden)")).toBe(true);
    const all = path.join(root, "private");
    const result = await rebench(
      "runs",
      "export",
      "--db",
      runs.db,
      "--format",
      "inspect",
      "--out",
      all,
      "--include-hidden",
      "--participant",
      "reference (replay)",
    );
    expect(result.code, result.stderr).toBe(0);
    const hidden = readdirSync(all).filter((f) => f.includes("hidden_score"));
    expect(hidden).toHaveLength(1);
    const [kept] = readEval(path.join(all, hidden[0]!)).samples;
    expect(kept!.scores?.rebench_raw?.value).toEqual(expect.any(Number));
    expect(kept!.events.flatMap((e) => (e.event === "score" ? [e.score.value] : [])).every((v) => typeof v === "number")).toBe(true);
  });

  test("a human run carries its recorded terminal session", () => {
    const { sample } = samples.get(runs.human)!;
    const note = sample.events.find((e) => e.event === "info" && (e.data as { terminalSession?: string }).terminalSession !== undefined);
    expect(note).toBeDefined();
    const ref = (note!.event === "info" ? (note!.data as { terminalSession: string }) : { terminalSession: "" }).terminalSession;
    expect(sample.attachments[ref.replace("attachment://", "")]).toMatch(/score-log/);
    expect(sample.messages.some((m) => m.role === "assistant" && m.tool_calls?.some((c) => c.function === "submit"))).toBe(true);
  });

  test("the 10,000-event run keeps every event, its long outputs as attachments", () => {
    const { sample } = samples.get(runs.large)!;
    expect(sample.events.length).toBeGreaterThan(7000); // observations are written with their actions
    expect(Object.keys(sample.attachments).length).toBeGreaterThan(2000);
    expect(Object.values(sample.attachments).some((text) => text.includes(runs.needle))).toBe(true);
  });

  describe.skipIf(skip !== undefined)("in Inspect's own viewer (chromium)", () => {
    let page: Page | undefined;
    /** The current page's uncaught errors (a page closed while it loaded may still report its own). */
    let errors: string[] = [];

    /** A fresh page (the viewer keeps its state across hash changes). */
    const fresh = async () => {
      await page?.close();
      const opened = await browser!.newPage({ viewport: { width: 1400, height: 1000 } });
      const own: string[] = [];
      errors = own;
      opened.on("pageerror", (error) => own.push(error.message));
      page = opened;
      return opened;
    };

    const open = async (runId: string) => {
      const { file } = samples.get(runId)!;
      const page = await fresh();
      await page.goto(`${server!.url}?log_dir=logs#/logs/${file}`);
      // The log's sample list: the one sample, the task, with the run named in its input.
      await expect.poll(() => page.getByText(`run ${runId}`).count(), { timeout: 60_000 }).toBeGreaterThan(0);
      await page.getByText(`run ${runId}`).first().click();
      return page;
    };

    test("lists the exported logs", { timeout: 120_000 }, async () => {
      const page = await fresh();
      await page.goto(`${server!.url}?log_dir=logs`);
      await expect.poll(() => page.getByText("test_echo", { exact: true }).count(), { timeout: 60_000 }).toBeGreaterThan(0);
      await expect.poll(() => page.getByText("openai/gpt-4o", { exact: true }).count(), { timeout: 30_000 }).toBeGreaterThan(0);
    });

    test("opens a finished agent run: its sample, a transcript turn with a tool call, its score", { timeout: 180_000 }, async () => {
      const page = await open(runs.modular);
      await expect.poll(() => page.getByText(/tool: bash/i).count(), { timeout: 60_000 }).toBeGreaterThan(0);
      await expect(page.getByText("cat solution.py").count()).resolves.toBeGreaterThan(0);
      const { sample } = samples.get(runs.modular)!;
      const normalized = sample.scores!.rebench_normalized!.value as number;
      await page
        .getByText(/^scoring$/i)
        .first()
        .click();
      await expect.poll(() => page.getByText(String(normalized).slice(0, 5), { exact: false }).count(), { timeout: 30_000 }).toBeGreaterThan(0);
    });

    test("opens a --json-log log (Inspect's single-file form) alike", { timeout: 180_000 }, async () => {
      const result = await rebench(
        "runs",
        "export",
        "--db",
        runs.db,
        "--format",
        "inspect",
        "--json-log",
        "--out",
        path.join(site, "json-logs"),
        "--participant",
        "gpt-4o (modular)",
      );
      expect(result.code, result.stderr).toBe(0);
      const [file] = readdirSync(path.join(site, "json-logs")).filter((f) => f.endsWith(".json") && f !== "listing.json");
      const page = await fresh();
      await page.goto(`${server!.url}?log_dir=json-logs#/logs/${file}`);
      await expect.poll(() => page.getByText(`run ${runs.modular}`).count(), { timeout: 60_000 }).toBeGreaterThan(0);
      await page.getByText(`run ${runs.modular}`).first().click();
      await expect.poll(() => page.getByText(/tool: bash/i).count(), { timeout: 60_000 }).toBeGreaterThan(0);
    });

    test("opens a human run with its tool calls and score", { timeout: 180_000 }, async () => {
      const page = await open(runs.human);
      await expect.poll(() => page.getByText(/tool: score/i).count(), { timeout: 60_000 }).toBeGreaterThan(0);
      const { sample } = samples.get(runs.human)!;
      const raw = sample.scores!.rebench_raw!.value as number;
      await page
        .getByText(/^scoring$/i)
        .first()
        .click();
      await expect.poll(() => page.getByText(String(raw).slice(0, 5), { exact: false }).count(), { timeout: 30_000 }).toBeGreaterThan(0);
      expect(
        errors.filter((e) => !/Log file not found/.test(e)),
        errors.join("\n"),
      ).toEqual([]);
    });
  });
});
