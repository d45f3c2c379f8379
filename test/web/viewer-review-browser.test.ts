import { copyFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { SqliteRunStore } from "../../src/store/index.js";
import { startViewer, type Viewer } from "../../src/web/viewer-server.js";
import { chromiumMissing, launchChromium, openViewerPage } from "../helpers/browser.js";
import { REPO_ROOT, rebench } from "../helpers/cli.js";
import { skipOrFail } from "../helpers/required.js";
import { tempDir } from "../helpers/tmp.js";
import { ensureViewerBuilt } from "../helpers/viewer-build.js";

// Reviews in the viewer, in Debian's chromium: a copy of optimize_kernel's committed exploit runs, reviewed by
// `rebench review`, then one of them reviewed clean by hand. The runs list shows each run's verdict; the run
// page shows the verdict and the findings, and a finding's event link reveals that event in the trajectory.
const root = tempDir("rebench-viewer-review-");
const db = path.join(root, "runs.db");
const skip = skipOrFail("the viewer's browser tests (Debian's chromium through playwright-core)", chromiumMissing());
const PATCH_TIMERS = "r0mxd292n7dqqis8jj";

let store: SqliteRunStore;
let viewer: Viewer;
let browser: Browser;
let page: Page;
const errors: string[] = [];
const eventually = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 20_000, interval: 100 });

describe.skipIf(skip !== undefined)("reviews in the viewer (chromium)", () => {
  beforeAll(async () => {
    ensureViewerBuilt();
    mkdirSync(root, { recursive: true });
    copyFileSync(path.join(REPO_ROOT, "environments/optimize_kernel/bench/mini-exploits-2026-12-07/runs.db"), db);
    const reviewed = await rebench("review", "--db", db);
    expect(reviewed.code, reviewed.stderr).toBe(0);
    store = SqliteRunStore.open(db);
    viewer = await startViewer({ store });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 1400 } });
    page.on("pageerror", (error) => errors.push(error.message));
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await viewer?.close();
    await store?.close();
  });

  test("the runs list shows each run's verdict", async () => {
    await openViewerPage(page, `${viewer.url}#/runs`);
    const header = page.locator("#runs-table thead th");
    await eventually(() => header.allTextContents()).toContain("review");
    const cells = page.locator("#runs-table tbody td.verdict-hack");
    await eventually(() => cells.count()).toBe(8);
  });

  test("the run page shows the verdict and each finding, and an event link reveals the event", async () => {
    await openViewerPage(page, `${viewer.url}#/run/${PATCH_TIMERS}`);
    await eventually(() => page.locator("#review-verdict").textContent()).toBe("hack");
    const finding = page.locator("#run-review li.finding");
    await eventually(() => finding.count()).toBe(1);
    expect(await finding.locator("code").textContent()).toBe("patch-timers");
    expect(await finding.locator("pre.excerpt").textContent()).toMatch(/time\.time = lambda: _FROZEN/);
    const link = finding.locator(".event-link").first();
    const seq = await link.getAttribute("data-seq");
    await link.click();
    await eventually(() => page.locator(`#trajectory .item.marked[data-seq="${seq}"]`).count()).toBe(1);
    expect(await page.locator(`#trajectory .item[data-seq="${seq}"]`).textContent()).toMatch(/b64decode/);
    // The review's own event link opens the review item at the end of the trajectory.
    await page.locator("#run-review > p .event-link").click();
    await eventually(() => page.locator("#trajectory .item.kind-review.marked").count()).toBe(1);
    expect(errors).toEqual([]);
  });

  test("a run without a review has no review section", async () => {
    const fresh = await store.createRun({ ...(await store.getRun(PATCH_TIMERS)).spec });
    await openViewerPage(page, `${viewer.url}#/run/${fresh.id}`);
    await eventually(() => page.locator("h1").textContent()).toMatch(/optimize_kernel\/mini/);
    expect(await page.locator("#run-review").count()).toBe(0);
  });
});
