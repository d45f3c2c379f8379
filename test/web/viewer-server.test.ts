import { readdirSync, readFileSync, statSync } from "node:fs";
import { request } from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { RunSpecInput } from "../../src/core/index.js";
import { SqliteRunStore } from "../../src/store/index.js";
import type { LiveUpdate, RunDetail, RunsPage, TrajectoryItem, TrajectoryOutline } from "../../src/web/api-types.js";
import { parseTiming } from "../../src/web/recording.js";
import { startViewer, type Viewer } from "../../src/web/viewer-server.js";
import { rebench } from "../helpers/cli.js";
import { generateLargeRun } from "../helpers/large-run.js";
import { tempDir } from "../helpers/tmp.js";
import { ensureViewerBuilt } from "../helpers/viewer-build.js";

const root = tempDir("rebench-viewer-");
const db = path.join(root, "runs.db");
const SECRET_OPTIMUM = 3.1181835174560546;
const HIDDEN_VALUE = 1.2345678901;

const spec = (overrides: Partial<RunSpecInput>): RunSpecInput => ({
  participant: { kind: "agent", alias: "model-a", scaffold: "modular" },
  environment: "optimize_kernel",
  variant: "mini",
  task: "main",
  limits: { workingSeconds: 1800 },
  timeLimitSeconds: 1800,
  direction: "min",
  aggregation: "min",
  normalization: { start: 2, reference: 1, source: "shipped" },
  ...overrides,
});

let store: SqliteRunStore;
let viewer: Viewer;
const ids: Record<string, string> = {};

/** GET through a raw request, so the Host header and cookies are ours to set. */
function get(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

beforeAll(async () => {
  ensureViewerBuilt();
  store = SqliteRunStore.open(db);
  const finish = async (id: string, raw: number, normalized: number) => {
    await store.append(id, { type: "state_changed", to: "running" });
    await store.append(id, {
      type: "score_logged",
      trigger: "action",
      entry: {
        timestamp: new Date().toISOString(),
        elapsedSeconds: 60,
        outcome: { kind: "scored", value: raw },
        message: { seconds: raw },
        details: { optimum: SECRET_OPTIMUM },
      },
    });
    await store.append(id, { type: "run_finished", stopReason: "submitted", finalRaw: raw, normalized });
  };
  ids.plain = (await store.createRun(spec({}))).id;
  await store.append(ids.plain, { type: "action", actionId: "a1", tool: "bash", input: { command: "cat notes.txt" } });
  await store.append(ids.plain, {
    type: "observation",
    actionId: "a1",
    tool: "bash",
    output: { exitCode: 0, stdout: `<script>alert(1)</script>\n${"y".repeat(5000)}`, stderr: "" },
  });
  await finish(ids.plain, 1.5, 0.5);
  ids.hidden = (await store.createRun(spec({ task: "hidden_score", participant: { kind: "agent", alias: "model-b" } }))).id;
  await finish(ids.hidden, HIDDEN_VALUE, 0.7654321);
  ids.reference = (
    await store.createRun(spec({ participant: { kind: "agent", alias: "reference (replay)", scaffold: "replay" }, config: { actions: "reference" } }))
  ).id;
  await store.append(ids.reference, { type: "action", actionId: "a1", tool: "python", input: { code: "PROTECTED_REFERENCE_CODE = 42" } });
  await finish(ids.reference, 1, 1);
  viewer = await startViewer({ store, pollMs: 50 });
});

afterAll(async () => {
  await viewer?.close();
  await store?.close();
});

describe("rebench serve: the viewer's server", () => {
  test("serves the pages with a strict Content-Security-Policy and the runs list as JSON, sorted and filtered", async () => {
    const index = await get(viewer.url);
    expect(index.status).toBe(200);
    expect(index.headers["content-security-policy"]).toMatch(/script-src 'self';/);
    expect(index.body).toContain('<meta name="rebench-mode" content="live">');
    const page = JSON.parse((await get(`${viewer.url}api/runs?sort=normalized&desc=1&limit=2`)).body) as RunsPage;
    expect(page.total).toBe(3);
    expect(page.runs.map((r) => r.runId)).toEqual([ids.reference, ids.hidden]);
    expect(page.facets.participants).toEqual(["model-a", "model-b", "reference (replay)"]);
    const filtered = JSON.parse((await get(`${viewer.url}api/runs?participant=model-a&min=0.4&max=0.6`)).body) as RunsPage;
    expect(filtered.runs.map((r) => r.runId)).toEqual([ids.plain]);
  });

  test("refuses a bad query with what it accepts, an unknown run with a hint, and anything but GET", async () => {
    const bad = await get(`${viewer.url}api/runs?sort=colour`);
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body)).toMatchObject({ error: 'cannot sort by "colour"', hint: expect.stringMatching(/normalized/) });
    const missing = await get(`${viewer.url}api/runs/r0000000000nope`);
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.body).hint).toMatch(/rebench runs list/);
    const post = await fetch(`${viewer.url}api/runs`, { method: "POST" });
    expect(post.status).toBe(405);
    const traversal = await get(`${viewer.url}..%2f..%2fpackage.json`);
    expect(traversal.status).toBe(404);
  });

  test("answers only requests addressed to localhost (no DNS rebinding)", async () => {
    const port = new URL(viewer.url).port;
    expect((await get(`${viewer.url}api/runs`, { Host: `attacker.example:${port}` })).status).toBe(421);
    expect((await get(`${viewer.url}api/runs`, { Host: `localhost:${port}` })).status).toBe(200);
  });

  test("on another host, every request needs the printed token: once in the URL, then as a cookie", async () => {
    const open = await startViewer({ store, host: "0.0.0.0", port: 0 });
    try {
      expect(open.token).toMatch(/^[\w-]{20,}$/);
      expect(open.openUrl).toBe(`${open.url}?token=${open.token}`);
      const local = `http://127.0.0.1:${new URL(open.url).port}/`;
      expect((await get(`${local}api/runs`)).status).toBe(401);
      expect((await get(`${local}?token=wrong`)).status).toBe(401);
      const trade = await get(`${local}?token=${open.token}`);
      expect(trade.status).toBe(303);
      const cookie = String(trade.headers["set-cookie"]).split(";")[0]!;
      expect(cookie).toBe(`rebench_token=${open.token}`);
      expect(String(trade.headers["set-cookie"])).toMatch(/HttpOnly; SameSite=Strict/);
      expect((await get(`${local}api/runs`, { Cookie: cookie })).status).toBe(200);
      expect((await get(`${local}api/runs`, { Authorization: `Bearer ${open.token}` })).status).toBe(200);
    } finally {
      await open.close();
    }
  });

  test("a run's trajectory comes in pages of previews with sizes; the whole item on request", async () => {
    const detail = JSON.parse((await get(`${viewer.url}api/runs/${ids.plain}`)).body) as RunDetail;
    expect(detail.row.events).toBe(6);
    expect(detail.scoreLog).toMatchObject([{ value: 1.5, outcome: "scored", message: { seconds: 1.5 } }]);
    expect(detail.budgets.find((b) => b.name === "working time")).toMatchObject({ limit: 1800, unit: "seconds" });
    const items = JSON.parse((await get(`${viewer.url}api/runs/${ids.plain}/items?page=0`)).body) as TrajectoryItem[];
    const observation = items.find((i) => i.type === "observation")!;
    expect(observation.parts[0]).toMatchObject({ label: "stdout", complete: false, bytes: 5026 });
    expect(observation.parts[0]!.text.length).toBeLessThan(1000);
    const full = JSON.parse((await get(`${viewer.url}api/runs/${ids.plain}/items/${observation.seq}`)).body) as TrajectoryItem;
    expect(full.parts[0]).toMatchObject({ complete: true });
    expect(full.parts[0]!.text).toHaveLength(5026);
    const search = JSON.parse((await get(`${viewer.url}api/runs/${ids.plain}/search?q=${encodeURIComponent("<SCRIPT>alert")}`)).body);
    expect(search).toEqual({ seqs: [observation.seq], capped: false });
  });

  test("a run's outline is each event's kind, in order: what the page groups into turns and folds before fetching events", async () => {
    const outline = JSON.parse((await get(`${viewer.url}api/runs/${ids.plain}/outline`)).body) as TrajectoryOutline;
    expect(outline).toEqual({ kinds: ["start", "action", "observation", "state", "score", "end"] });
    const items = JSON.parse((await get(`${viewer.url}api/runs/${ids.plain}/items?page=0`)).body) as TrajectoryItem[];
    expect(items.map((i) => i.kind)).toEqual(outline.kinds);
  });

  test("follows a run: server-sent events bring what is appended, then end when the run ends", async () => {
    const id = await generateLargeRun(store, { events: 20, observationBytes: 2000, running: true });
    const before = (await store.getRun(id)).lastSeq;
    const controller = new AbortController();
    const response = await fetch(`${viewer.url}api/runs/${id}/live?after=${before}`, { signal: controller.signal });
    expect(response.headers.get("content-type")).toMatch(/text\/event-stream/);
    const reader = response.body!.getReader();
    let text = "";
    const until = async (pattern: RegExp) => {
      while (!pattern.test(text)) {
        const { value, done } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
      }
    };
    await until(/event: update\n/);
    await store.append(id, { type: "note", message: "a live note" });
    await until(/a live note/);
    await store.append(id, { type: "run_finished", stopReason: "cancelled", finalRaw: null, normalized: null });
    await until(/event: end/);
    controller.abort();
    const updates = [...text.matchAll(/event: update\ndata: (.*)\n/g)].map((m) => JSON.parse(m[1]!) as LiveUpdate);
    expect(updates.flatMap((u) => u.items.map((i) => i.title))).toEqual(["a live note", expect.stringMatching(/^finished \(cancelled\)/)]);
    expect(updates.at(-1)!.row.state).toBe("finished");
  });

  test("--export writes static pages without hidden-score values, graders' details or the protected reference's code", async () => {
    const dir = path.join(root, "export");
    const cli = await rebench("serve", "--db", db, "--export", dir);
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stdout).toMatch(/wrote \d+ runs in \d+ files .* to .*export/);
    const files: string[] = [];
    const walk = (d: string): void => {
      for (const f of readdirSync(d)) {
        const p = path.join(d, f);
        if (statSync(p).isDirectory()) walk(p);
        else files.push(p);
      }
    };
    walk(dir);
    const data = files
      .filter((f) => f.endsWith(".json"))
      .map((f) => readFileSync(f, "utf8"))
      .join("\n");
    expect(data).toContain(ids.hidden);
    expect(data).toContain('"scoresWithheld":true');
    expect(data).not.toContain(String(HIDDEN_VALUE));
    expect(data).not.toContain("0.7654321");
    expect(data).not.toContain(String(SECRET_OPTIMUM));
    expect(data).not.toContain("PROTECTED_REFERENCE_CODE");
    expect(data).toContain("left out: a step of the environment's protected reference solution");
    expect(data).toContain("1.5"); // a visible score stays
    expect(readFileSync(path.join(dir, "index.html"), "utf8")).toContain('content="static"');
    expect(files.map((f) => path.relative(dir, f))).toEqual(
      expect.arrayContaining([
        "app.js",
        "viewer.css",
        "data/runs.json",
        `data/runs/${ids.plain}/items-0.json`,
        `data/runs/${ids.plain}/outline.json`,
        "data/compare.json",
      ]),
    );
    // The live server, for whoever may open it, shows everything.
    const live = JSON.parse((await get(`${viewer.url}api/runs/${ids.hidden}`)).body) as RunDetail;
    expect(live.row.rawScore).toBe(HIDDEN_VALUE);
  });

  test("rebench serve refuses a store that does not exist instead of creating it", async () => {
    const missing = path.join(root, "nothing-here.db");
    const out = await rebench("serve", "--db", missing);
    expect(out.code).toBe(3);
    expect(out.stderr).toMatch(/no run store at .*nothing-here\.db[\s\S]*hint: record runs first/);
  });

  test("a terminal recording's timing file: classic and multi-stream, input delays carried to the next output", () => {
    expect(parseTiming("0.5 10\n1.25 3\n")).toEqual([
      [0.5, 10],
      [1.25, 3],
    ]);
    expect(parseTiming("H 0 START_TIME 2026\nO 0.5 10\nI 1.0 2\nO 0.25 4\nS 0.1 SIGWINCH\n")).toEqual([
      [0.5, 10],
      [1.25, 4],
    ]);
  });
});
