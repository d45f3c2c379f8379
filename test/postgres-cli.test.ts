import path from "node:path";
import pg from "pg";
import { describe, expect, test } from "vitest";
import { openStore, type RunStore, SqliteRunStore } from "../src/store/index.js";
import { rebench, rebenchProcess } from "./helpers/cli.js";
import { freshDatabase, postgresSkip } from "./helpers/postgres.js";
import { RUNS, record } from "./helpers/recorded-runs.js";
import { tempDir } from "./helpers/tmp.js";

const dir = tempDir();

/** Every run of a store with its whole event log. */
async function contents(store: RunStore) {
  const runs = await store.listRuns();
  return Promise.all(runs.map(async (run) => ({ run, events: await store.events(run.id), scoreLog: await store.scoreLog(run.id) })));
}

async function contentsOf(db: string) {
  const store = await openStore(db);
  try {
    return await contents(store);
  } finally {
    await store.close();
  }
}

describe.skipIf(postgresSkip !== undefined)("a PostgreSQL store through the command line", () => {
  const sqlite = path.join(dir, "source.db");
  let pgUrl = "";

  test("store copy moves a SQLite store into PostgreSQL, and runs list/export and report read it alike", { timeout: 120_000 }, async () => {
    const source = SqliteRunStore.open(sqlite);
    for (const r of RUNS) await record(source, r);
    await source.close();
    pgUrl = await freshDatabase();

    // The run that has not ended is not copied (a run is driven from one store only); the others are.
    const unfinished = (await contentsOf(sqlite)).find((c) => c.run.state === "running")!.run;
    const refused = await rebench("store", "copy", "--from", sqlite, "--to", pgUrl);
    expect(refused.code).toBe(5);
    expect(refused.stderr).toContain(`unfinished ${unfinished.id}: running in the source`);
    expect(refused.stdout).toMatch(
      new RegExp(
        `copied \\d+ event\\(s\\) from ${sqlite} to postgres://rebench@127\\.0\\.0\\.1:\\d+/rebench_test_\\d+_\\d+: ${RUNS.length - 1} new run\\(s\\), 0 continued, 0 already there, 0 in conflict, 1 not finished \\(not copied\\)`,
      ),
    );
    const ended = SqliteRunStore.open(sqlite);
    await ended.append(unfinished.id, { type: "run_finished", stopReason: "submitted", finalRaw: 1.2, normalized: 0.8 });
    await ended.close();
    const copy = await rebench("store", "copy", "--from", sqlite, "--to", pgUrl);
    expect(copy.stderr).toBe("");
    expect(copy.code).toBe(0);
    expect(copy.stdout).toMatch(/: 1 new run\(s\), 0 continued, \d+ already there, 0 in conflict\n/);
    expect(await contentsOf(pgUrl)).toEqual(await contentsOf(sqlite));

    for (const args of [
      ["runs", "list", "--json"],
      ["runs", "export", "--format", "metr"],
      ["report", "--budgets", "1h,2h", "--bootstrap", "200", "--seed", "3", "--json"],
    ]) {
      const fromSqlite = await rebench(...args, "--db", sqlite);
      const fromPg = await rebench(...args, "--db", pgUrl);
      expect(fromPg.code, args.join(" ")).toBe(0);
      // The same output, but for the report's line that names its store.
      const pgLocation = new URL(pgUrl).toString();
      expect(fromPg.stdout.replaceAll(pgLocation, "STORE"), args.join(" ")).toBe(fromSqlite.stdout.replaceAll(sqlite, "STORE"));
      expect(fromPg.stdout.length).toBeGreaterThan(100);
    }
    const show = await rebench("runs", "show", (await contentsOf(pgUrl))[0]!.run.id, "--db", pgUrl, "--events");
    expect(show.stdout).toMatch(/score log:/);
  });

  test("reading commands refuse a database that holds no run store, and leave it without tables", async () => {
    const empty = await freshDatabase();
    for (const args of [["runs", "list"], ["report"], ["runs", "resume"]]) {
      const result = await rebench(...args, "--db", empty);
      expect(result.code, args.join(" ")).toBe(3);
      expect(result.stderr).toMatch(/rebench: no run store in postgres:\/\/\S+\n/);
    }
    const client = new pg.Client({ connectionString: empty });
    await client.connect();
    const { rows } = await client.query("SELECT to_regclass('schema_migrations')::text AS t");
    await client.end();
    expect(rows[0].t).toBeNull();
  });

  test("REBENCH_DB names the store when --db is absent", async () => {
    const result = await rebenchProcess(["runs", "list", "--json"], { REBENCH_DB: pgUrl });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toHaveLength(RUNS.length);
  });

  test("store copy back into a new SQLite file loses nothing, and copying again continues what went on", { timeout: 120_000 }, async () => {
    const back = path.join(dir, "back.db");
    expect((await rebench("store", "copy", "--from", pgUrl, "--to", `sqlite:${back}`)).code).toBe(0);
    expect(await contentsOf(back)).toEqual(await contentsOf(sqlite));

    // A run's log goes on in the source after its end (a teardown's note); a second copy brings only the new events.
    const source = SqliteRunStore.open(sqlite);
    const goneOn = (await source.listRuns())[0]!;
    await source.append(goneOn.id, { type: "note", message: "the run's sandbox was not removed: ..." });
    await source.close();
    const again = await rebench("store", "copy", "--from", sqlite, "--to", pgUrl, "--json");
    expect(again.code).toBe(0);
    const report = JSON.parse(again.stdout);
    expect(report.eventsCopied).toBe(1);
    expect(report.runs.filter((r: { result: string }) => r.result === "continued").map((r: { runId: string }) => r.runId)).toEqual([goneOn.id]);
    expect(report.runs.filter((r: { result: string }) => r.result === "same")).toHaveLength(RUNS.length - 1);
    expect(await contentsOf(pgUrl)).toEqual(await contentsOf(sqlite));
  });

  test("a run whose copy went another way is a conflict: reported, left alone, exit 5", async () => {
    const target = await openStore(pgUrl);
    const run = (await target.listRuns())[1]!;
    await target.append(run.id, { type: "note", message: "only in the target" });
    await target.close();
    const source = SqliteRunStore.open(sqlite);
    await source.append(run.id, { type: "note", message: "only in the source" });
    await source.close();
    const result = await rebench("store", "copy", "--from", sqlite, "--to", pgUrl);
    expect(result.code).toBe(5);
    expect(result.stderr).toMatch(new RegExp(`conflict ${run.id}: the target's log differs from the source's at event ${run.lastSeq + 1}`));
    expect(result.stdout).toMatch(/0 new run\(s\), 0 continued, \d+ already there, 1 in conflict/);
    const events = (await contentsOf(pgUrl)).find((c) => c.run.id === run.id)!.events;
    expect(events.at(-1)?.event).toMatchObject({ type: "note", message: "only in the target" });
  });
});
