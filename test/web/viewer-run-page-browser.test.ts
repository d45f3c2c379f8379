import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { SqliteRunStore } from "../../src/store/index.js";
import { startViewer, type Viewer } from "../../src/web/viewer-server.js";
import { chromiumMissing, launchChromium, openViewerPage, pixelStats } from "../helpers/browser.js";
import { registerFixtures } from "../helpers/register-fixtures.js";
import { skipOrFail } from "../helpers/required.js";
import { tempDir } from "../helpers/tmp.js";
import { ensureViewerBuilt } from "../helpers/viewer-build.js";
import { agentRun, kernelRunSpec } from "../helpers/viewer-store.js";

// The run page and the comparison page as a reader meets them, in Debian's chromium: a modular agent's run
// of three model turns (made by `rebench run` against a scripted model server), a failed run, a run whose
// scores sit far from its reference, and runs of two tasks by participants model-2 and model-10.
const root = tempDir("rebench-viewer-run-page-");
const db = path.join(root, "store", "runs.db");
const skip = skipOrFail("the viewer's browser tests (Debian's chromium through playwright-core)", chromiumMissing());

/** Each turn: what the model says, the command it calls, and a word its output holds. */
const TURNS = [
  { say: "First I look at the workspace.", command: "echo first-turn-output", output: "first-turn-output" },
  { say: "Now the solution's first lines.", command: "head -n 2 solution.py; echo second-turn-output", output: "second-turn-output" },
] as const;
const SUBMISSION = "third turn: submit as it is";
const FAILURE = "the sandbox's disk filled up (ENOSPC) while copying the workspace";

const ids: Record<string, string> = {};
let store: SqliteRunStore;
let viewer: Viewer;
let browser: Browser;
let page: Page;
const errors: string[] = [];

/** Where the screenshots go: $REBENCH_SCREENSHOTS, else the test's temporary folder. */
const shots = process.env.REBENCH_SCREENSHOTS ?? path.join(root, "screenshots");

/** Save a screenshot of the trajectory and check that it shows something, not a blank or single-colour box. */
async function screenshot(name: string): Promise<void> {
  mkdirSync(shots, { recursive: true });
  const png = await page.locator(".trajectory").screenshot();
  writeFileSync(path.join(shots, `${name}.png`), png);
  const stats = await pixelStats(browser, png);
  expect(stats.colours, `${name}.png has ${stats.colours} colours`).toBeGreaterThan(12);
  expect(stats.dominant, `${name}.png is ${Math.round(stats.dominant * 100)}% one colour`).toBeLessThan(0.97);
}

const eventually = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 20_000, interval: 100 });
const open = (hash: string) => openViewerPage(page, `${viewer.url}${hash}`);

async function scored(id: string, elapsedSeconds: number, value: number, message: Record<string, unknown>): Promise<void> {
  await store.append(id, {
    type: "score_logged",
    trigger: "action",
    entry: { timestamp: new Date().toISOString(), elapsedSeconds, outcome: { kind: "scored", value }, message, details: {} },
  });
}

describe.skipIf(skip !== undefined)("the run page and the comparison in a real browser (chromium)", () => {
  beforeAll(async () => {
    ensureViewerBuilt();
    registerFixtures(path.join(root, "sandboxes"));
    ids.turns = await agentRun(db, "modular", [
      ...TURNS.map((t) => ({ reply: { text: t.say, toolCalls: [{ name: "bash", arguments: { command: t.command } }] } })),
      { reply: { text: "That will do.", toolCalls: [{ name: "submit", arguments: { submission: SUBMISSION } }] } },
    ]);
    store = SqliteRunStore.open(db);
    const failed = await store.createRun(kernelRunSpec("model-2", "main"));
    await store.append(failed.id, { type: "state_changed", to: "running" });
    await store.append(failed.id, { type: "run_failed", error: FAILURE });
    ids.failed = failed.id;
    // Seconds near 6.3 (raw 1.84 to 1.9): the reference (1) and the start (2) lie outside the scores' range.
    const far = await store.createRun(kernelRunSpec("model-10", "main"));
    await store.append(far.id, { type: "state_changed", to: "running" });
    await scored(far.id, 60, 1.9, { seconds: 6.686, is_valid: true });
    await scored(far.id, 120, 1.84, { seconds: 6.297, is_valid: true, timing: { runs: 3 } });
    await store.append(far.id, { type: "run_finished", stopReason: "submitted", finalRaw: 1.84, normalized: 0.16 });
    ids.far = far.id;
    for (const [alias, task, normalized] of [
      ["model-2", "main", 0.9],
      ["model-2", "hidden_score", 0.45],
    ] as const) {
      const run = await store.createRun(kernelRunSpec(alias, task));
      await store.append(run.id, { type: "state_changed", to: "running" });
      await store.append(run.id, { type: "run_finished", stopReason: "submitted", finalRaw: 2 - normalized, normalized });
    }
    viewer = await startViewer({ store });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 1600 } });
    page.on("pageerror", (error) => errors.push(error.message));
    page.on("console", (message) => {
      if (message.type() === "error") errors.push(message.text());
    });
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await viewer?.close();
    await store?.close();
  });

  test("a run of three model turns: each turn's tool call and its result are grouped under the model's message", async () => {
    await open(`#/run/${ids.turns}`);
    const turns = page.locator("#trajectory section.turn");
    await eventually(() => turns.count()).toBe(3);
    for (const [i, turn] of TURNS.entries()) {
      const block = page.locator(`#trajectory section.turn[data-turn="${i + 1}"]`);
      const generation = block.locator(":scope > .item.kind-generation");
      await eventually(() => generation.locator("pre").allTextContents()).toEqual(expect.arrayContaining([turn.say, turn.command]));
      await eventually(() => block.locator(".turn-tools > .item.kind-action pre").allTextContents()).toEqual([turn.command]);
      await eventually(async () => (await block.locator(".turn-tools > .item.kind-observation pre").allTextContents()).join("\n")).toContain(turn.output);
      // No other turn's calls are under this one.
      expect(await block.locator(".turn-tools .item.kind-action").count()).toBe(1);
      expect(await block.locator(".turn-head").textContent()).toBe(`turn ${i + 1} · 1 tool call`);
    }
    const last = page.locator('#trajectory section.turn[data-turn="3"]');
    await eventually(() => last.locator(":scope > .item.kind-generation .part-label").allTextContents()).toEqual(
      expect.arrayContaining([expect.stringMatching(/^tool call submit/)]),
    );
    await eventually(() => last.locator(".turn-tools > .item.kind-action .title").allTextContents()).toEqual([expect.stringMatching(/ submit$/)]);
    await eventually(() => last.locator(".turn-tools .item.kind-observation").count()).toBe(1);
    await screenshot("run-turns");
  });

  test("bookkeeping (state, time) is folded into one line that opens on a click", async () => {
    await open(`#/run/${ids.turns}`);
    const folds = page.locator("#trajectory .fold");
    await eventually(() => folds.count()).toBeGreaterThan(0);
    expect(await page.locator("#trajectory .item.kind-state, #trajectory .item.kind-time").count()).toBe(0);
    const first = folds.first();
    expect(await first.locator(".fold-toggle").textContent()).toMatch(/^▸ \d+ bookkeeping events? \((state|time)/);
    await first.locator(".fold-toggle").click();
    await eventually(() => page.locator("#trajectory .fold.open .item").count()).toBeGreaterThan(0);
    await screenshot("run-fold-open");
    expect(await page.locator("#trajectory .fold.open .item").first().getAttribute("class")).toMatch(/kind-(state|time)/);
    await page.locator("#trajectory .fold.open .fold-toggle").click();
    await eventually(() => page.locator("#trajectory .fold.open").count()).toBe(0);
  });

  test("the filter by kind leaves out what is unchecked, and a turn without its generation falls apart", async () => {
    await open(`#/run/${ids.turns}`);
    await eventually(() => page.locator("#trajectory section.turn").count()).toBe(3);
    const kinds = await page.locator("#kind-filter input[name=kind]").evaluateAll((boxes) => boxes.map((b) => (b as HTMLInputElement).value));
    expect(kinds).toEqual(expect.arrayContaining(["generation", "action", "observation", "state", "time"]));
    await page.uncheck("#kind-filter input[value=observation]");
    await eventually(() => page.locator("#trajectory .item.kind-observation").count()).toBe(0);
    expect(await page.locator("#trajectory section.turn").count()).toBe(3);
    await page.uncheck("#kind-filter input[value=generation]");
    await eventually(() => page.locator("#trajectory section.turn").count()).toBe(0);
    await eventually(() => page.locator("#trajectory .item.kind-action").count()).toBe(3);
    await page.check("#kind-filter input[value=generation]");
    await page.check("#kind-filter input[value=observation]");
    await eventually(() => page.locator("#trajectory section.turn").count()).toBe(3);
  });

  test("the score log's messages read as text, not JSON", async () => {
    await open(`#/run/${ids.far}`);
    const messages = page.locator("table.score-log td.message");
    await eventually(() => messages.allTextContents()).toEqual(["seconds: 6.686 · is_valid: yes", "seconds: 6.297 · is_valid: yes · timing.runs: 3"]);
    expect(await page.locator("svg.score-chart circle.point title").first().textContent()).toContain("seconds: 6.686\nis_valid: yes");
  });

  test("a reference off the chart's range stays in sight, at the edge, marked with its value", async () => {
    await open(`#/run/${ids.far}`);
    const reference = page.locator("svg.score-chart g.guide-reference");
    await reference.waitFor();
    expect(await reference.getAttribute("class")).toContain("off-below");
    expect(await reference.locator("text").textContent()).toBe("reference 1 ↓ (off the chart)");
    expect(await reference.locator("path.guide-marker").count()).toBe(1);
    expect(await page.locator("svg.score-chart g.guide-start text").textContent()).toBe("start 2 ↑ (off the chart)");
  });

  test("a failed run without scoring calls says it failed and why, not 'No scoring calls yet'", async () => {
    await open(`#/run/${ids.failed}`);
    expect(await page.locator("#run-failure").textContent()).toBe(`This run failed: ${FAILURE}`);
    expect(await page.locator("#score-empty").textContent()).toBe(`No scoring calls: the run failed before any. ${FAILURE}`);
    expect(await page.locator("main#app").textContent()).not.toContain("No scoring calls yet");
  });

  test("the comparison: a section per task, a task filter, participants in natural order", async () => {
    await open("#/compare?environment=optimize_kernel&budgets=30m");
    const sections = page.locator("section.compare-task");
    await eventually(() => sections.evaluateAll((all) => all.map((s) => (s as HTMLElement).dataset.task))).toEqual(["main", "hidden_score"]);
    const participants = (task: string) => page.locator(`section.compare-task[data-task="${task}"] table.report`).first().locator("tbody tr td:first-child");
    expect(await participants("main").allTextContents()).toEqual(["model-2", "model-10"]);
    expect(await participants("hidden_score").allTextContents()).toEqual(["model-2"]);
    const menu = await page.locator("#compare-filters select[name=participant] option").allTextContents();
    expect(menu.filter((name) => name.startsWith("model-"))).toEqual(["model-2", "model-10"]);
    await page.selectOption("#compare-filters select[name=task]", "hidden_score");
    await page.click("#compare-filters button[type=submit]");
    await eventually(() => page.url()).toContain("task=hidden_score");
    await eventually(() => sections.evaluateAll((all) => all.map((s) => (s as HTMLElement).dataset.task))).toEqual(["hidden_score"]);
  });

  test("no page raised an error in the browser", () => {
    expect(errors).toEqual([]);
  });
});
