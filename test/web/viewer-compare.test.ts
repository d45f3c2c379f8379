import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { RunSpecInput } from "../../src/core/index.js";
import { SqliteRunStore } from "../../src/store/index.js";
import type { ComparisonView, RunsPage } from "../../src/web/api-types.js";
import { startViewer, type Viewer } from "../../src/web/viewer-server.js";
import { tempDir } from "../helpers/tmp.js";
import { ensureViewerBuilt } from "../helpers/viewer-build.js";
import { kernelRunSpec } from "../helpers/viewer-store.js";

const root = tempDir("rebench-viewer-compare-");
let store: SqliteRunStore;
let viewer: Viewer;

/** A finished optimize_kernel run (start 2, reference 1, lower is better): normalized = 2 − raw. */
async function finished(alias: string, task: RunSpecInput["task"], normalized: number): Promise<void> {
  const run = await store.createRun(kernelRunSpec(alias, task));
  await store.append(run.id, { type: "state_changed", to: "running" });
  await store.append(run.id, { type: "run_finished", stopReason: "submitted", finalRaw: 2 - normalized, normalized });
}

const api = async <T>(route: string): Promise<T> => {
  const response = await fetch(`${viewer.url}api/${route}`);
  expect(response.status, route).toBe(200);
  return (await response.json()) as T;
};

/** The first table's (participant, score) rows of each task's section. */
const scores = (view: ComparisonView) => Object.fromEntries(view.sections.map((s) => [s.task, s.tables[0]!.rows.map((row) => [row[0], row[3]])]));

beforeAll(async () => {
  ensureViewerBuilt();
  store = SqliteRunStore.open(path.join(root, "runs.db"));
  await finished("model-2", "main", 0.9);
  await finished("model-2", "hidden_score", 0.45);
  await finished("model-10", "main", 0.6);
  viewer = await startViewer({ store });
});

afterAll(async () => {
  await viewer?.close();
  await store?.close();
});

describe("the comparison page's data: one report per task, participants as people count them", () => {
  test("a participant's hidden_score and main runs are compared apart, never pooled (not 0.675, the mean of 0.9 and 0.45)", async () => {
    const view = await api<ComparisonView>("compare?budgets=30m");
    expect(view.tasks).toEqual(["main", "hidden_score"]);
    expect(view.runs).toBe(3);
    expect(scores(view)).toEqual({
      main: [
        ["model-2", "0.900"],
        ["model-10", "0.600"],
      ],
      hidden_score: [["model-2", "0.450"]],
    });
    expect(JSON.stringify(view)).not.toContain("0.675");
  });

  test("the task filter keeps one task's section, and still lists every task to choose from", async () => {
    const view = await api<ComparisonView>("compare?budgets=30m&task=hidden_score");
    expect(view.filters).toMatchObject({ task: "hidden_score", budgets: "30m" });
    expect(view.tasks).toEqual(["main", "hidden_score"]);
    expect(scores(view)).toEqual({ hidden_score: [["model-2", "0.450"]] });
  });

  test("the filter menus list participants in natural order: model-2 before model-10", async () => {
    const page = await api<RunsPage>("runs?limit=1");
    expect(page.facets.participants).toEqual(["model-2", "model-10"]);
  });
});
