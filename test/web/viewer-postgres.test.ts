import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { copyRuns, type RunStore, SqliteRunStore } from "../../src/store/index.js";
import { PostgresRunStore } from "../../src/store/postgres/postgres-store.js";
import { startViewer, type Viewer } from "../../src/web/viewer-server.js";
import { rebench } from "../helpers/cli.js";
import { generateLargeRun, LARGE_SPEC } from "../helpers/large-run.js";
import { freshDatabase, postgresSkip } from "../helpers/postgres.js";
import { RUNS, record } from "../helpers/recorded-runs.js";
import { tempDir } from "../helpers/tmp.js";
import { ensureViewerBuilt } from "../helpers/viewer-build.js";

const root = tempDir("rebench-viewer-pg-");

/** The viewer over the same runs in SQLite and in PostgreSQL answers alike. */
describe.skipIf(postgresSkip !== undefined)("rebench serve on a PostgreSQL store", () => {
  const db = path.join(root, "runs.db");
  let pgUrl = "";
  let sqlite: RunStore;
  let postgres: RunStore;
  let viewers: Viewer[] = [];
  let large = "";

  beforeAll(async () => {
    ensureViewerBuilt();
    sqlite = SqliteRunStore.open(db);
    for (const r of RUNS) await record(sqlite, r);
    // Normalized scores (the recorded runs have none), ties among them, and a participant in capitals.
    for (const [alias, normalized] of [
      ["Zed", 0.5],
      ["agent-a", 0.1],
      ["agent-b", null],
      ["bob", 0.9],
      ["alice", 0.5],
    ] as const) {
      const run = await sqlite.createRun({ ...LARGE_SPEC, participant: { kind: "agent", alias } });
      await sqlite.append(run.id, { type: "run_finished", stopReason: "submitted", finalRaw: normalized === null ? null : 2 - normalized, normalized });
    }
    large = await generateLargeRun(sqlite, { events: 300, observationBytes: 500 });
    pgUrl = await freshDatabase();
    postgres = await PostgresRunStore.open(pgUrl);
    const copied = await copyRuns(sqlite, postgres);
    // `store copy` leaves runs that have not ended in the source; the viewer must show them alike on both
    // stores, so the fixture's unfinished run is copied by its events (no process drives it).
    for (const { runId } of copied.runs.filter((r) => r.result === "unfinished")) await postgres.importEvents(runId, await sqlite.events(runId));
    viewers = [await startViewer({ store: sqlite, pollMs: 50 }), await startViewer({ store: postgres, pollMs: 50 })];
  }, 120_000);

  afterAll(async () => {
    await Promise.all(viewers.map((v) => v.close()));
    await sqlite?.close();
    await postgres?.close();
  });

  const both = async (query: string) =>
    Promise.all(
      viewers.map(async (v) => {
        const response = await fetch(`${v.url}${query}`);
        expect(response.status, query).toBe(200);
        return response.json();
      }),
    );

  test("the runs list, sorted, filtered and paged, with its filter menus, is the same as on SQLite", async () => {
    const queries = [
      "api/runs",
      "api/runs?sort=normalized&desc=1",
      "api/runs?sort=raw&limit=2&offset=1",
      "api/runs?sort=participant",
      "api/runs?sort=working&desc=1",
      "api/runs?min=0.2&max=0.9",
      "api/runs?state=finished",
    ];
    for (const query of queries) {
      const [a, b] = await both(query);
      expect(b, query).toEqual(a);
      expect((a as { total: number }).total, query).toBeGreaterThan(0);
    }
  });

  test("a run's page, its trajectory pages and its search are the same as on SQLite", async () => {
    const [a, b] = await both(`api/runs/${large}`);
    expect(b).toEqual(a);
    for (const query of [
      `api/runs/${large}/items?page=0`,
      `api/runs/${large}/items?page=1`,
      `api/runs/${large}/search?q=OBSERVATION`,
      `api/runs/${large}/search?q=${encodeURIComponent("\n")}`,
    ]) {
      const [x, y] = await both(query);
      expect(y, query).toEqual(x);
    }
    const [search] = await both(`api/runs/${large}/search?q=a`);
    expect((search as { seqs: number[] }).seqs.length).toBeGreaterThan(0);
  });

  test("rebench serve --db postgres://… opens the store (its --export writes the same runs)", { timeout: 120_000 }, async () => {
    const dir = path.join(root, "export-pg");
    const out = await rebench("serve", "--db", pgUrl, "--export", dir);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toMatch(new RegExp(`wrote ${RUNS.length + 6} runs in \\d+ files`));
    const runs = JSON.parse(readFileSync(path.join(dir, "data/runs.json"), "utf8")) as unknown;
    expect(JSON.stringify(runs)).toContain(large);
    const refused = await rebench("serve", "--db", "postgres://rebench:pw@127.0.0.1:1/none", "--port", "0");
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/cannot open the run store at postgres:\/\/rebench@127\.0\.0\.1:1\/none/);
  });
});
