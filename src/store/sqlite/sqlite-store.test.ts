import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { describe, expect, test } from "vitest";
import { finished, node } from "../../../test/helpers/child.js";
import { tempDir } from "../../../test/helpers/tmp.js";
import { Usage } from "../../core/index.js";
import { bulkStoreContract } from "../bulk.contract.js";
import { runStoreContract, sampleSpec, schemaOneRun } from "../store.contract.js";
import { MIGRATIONS } from "./migrations.js";
import { SqliteRunStore } from "./sqlite-store.js";

const dir = tempDir();
let n = 0;
runStoreContract("sqlite", async () => SqliteRunStore.open(path.join(dir, `contract-${n++}.db`)));
bulkStoreContract("sqlite", async () => SqliteRunStore.open(path.join(dir, `contract-${n++}.db`)));

describe("SqliteRunStore", () => {
  test("processes that open a new store file at once migrate it once", { timeout: 120_000 }, async () => {
    const file = path.join(dir, "opened-at-once.db");
    const processes = 8;
    const signal = (name: string) => path.join(dir, `at-once-${name}`);
    const openers = Array.from({ length: processes }, (_, i) =>
      finished(node("test/fixtures/store-opener.ts", [file, signal(`ready-${i}`), signal("go")], process.env)),
    );
    while (!Array.from({ length: processes }, (_, i) => existsSync(signal(`ready-${i}`))).every(Boolean)) await new Promise((r) => setTimeout(r, 10));
    writeFileSync(signal("go"), "");
    const ends = await Promise.all(openers);
    expect(ends.filter((end) => end.code !== 0).map((end) => end.output)).toEqual([]);
    const store = SqliteRunStore.open(file);
    expect((await store.listRuns()).length).toBe(processes);
    await store.close();
    const raw = new Database(file);
    expect(raw.prepare("SELECT version FROM schema_migrations ORDER BY version").all()).toEqual(MIGRATIONS.map((m) => ({ version: m.version })));
    raw.close();
  });

  test("keeps runs across reopening the file", async () => {
    const file = path.join(dir, "reopen.db");
    const store = SqliteRunStore.open(file);
    const run = await store.createRun(sampleSpec);
    await store.append(run.id, { type: "note", message: "hello" });
    await store.close();
    const again = SqliteRunStore.open(file);
    expect((await again.getRun(run.id)).lastSeq).toBe(2);
    await again.close();
  });

  test("the event table is append-only, even to direct SQL", async () => {
    const file = path.join(dir, "append-only.db");
    const store = SqliteRunStore.open(file);
    const run = await store.createRun(sampleSpec);
    await store.close();
    const db = new Database(file);
    expect(() => db.prepare("DELETE FROM run_events").run()).toThrow(/append-only/);
    expect(() => db.prepare("UPDATE run_events SET type = 'x'").run()).toThrow(/append-only/);
    db.close();
    const again = SqliteRunStore.open(file);
    expect((await again.events(run.id)).length).toBe(1);
    await again.close();
  });

  test("refuses a store written by a newer schema", async () => {
    const file = path.join(dir, "newer.db");
    (await SqliteRunStore.open(file)).close();
    const db = new Database(file);
    db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, 'future', 'now')").run();
    db.close();
    expect(() => SqliteRunStore.open(file)).toThrow(/schema version 999, newer than this rebench knows/);
  });

  test.each([1, 2])("a store of schema %i is migrated, and its runs (summaries without a job) read as before", async (version) => {
    const file = path.join(dir, `schema-${version}.db`);
    const db = new Database(file);
    db.exec("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)");
    for (const migration of MIGRATIONS.filter((m) => m.version <= version)) {
      db.exec(migration.sql);
      db.prepare("INSERT INTO schema_migrations VALUES (?, ?, 'then')").run(migration.version, migration.name);
    }
    const { summary, event } = schemaOneRun();
    db.prepare(
      `INSERT INTO runs (id, environment, variant, task, participant_kind, participant_alias, batch_id, state, created_at, updated_at, last_seq, summary)
       VALUES (?, 'optimize_kernel', 'mini', 'main', 'agent', 'test-model', NULL, 'queued', ?, ?, 1, ?)`,
    ).run(summary.id, summary.createdAt, summary.createdAt, JSON.stringify(summary));
    db.prepare("INSERT INTO run_events VALUES (?, 1, ?, 'run_created', ?)").run(summary.id, summary.createdAt, JSON.stringify(event));
    db.close();
    const store = SqliteRunStore.open(file);
    expect(await store.getRun(summary.id)).toEqual({ ...summary, job: null, contendedScores: 0, review: null, usage: Usage.parse(summary.usage) }); // usage gains the token kinds, at 0; review (added later) is null
    await store.append(summary.id, { type: "job_submitted", executor: "slurm", jobId: "42", request: [] });
    await store.close();
    const raw = new Database(file);
    expect(raw.prepare("SELECT job_id FROM runs").get()).toEqual({ job_id: "42" });
    expect(raw.prepare("SELECT version FROM schema_migrations ORDER BY version").all()).toEqual(MIGRATIONS.map((m) => ({ version: m.version })));
    expect(MIGRATIONS.at(-1)?.version).toBe(4);
    raw.close();
  });

  test("a second process-like connection sees appended events at once", async () => {
    const file = path.join(dir, "two.db");
    const writer = SqliteRunStore.open(file);
    const reader = SqliteRunStore.open(file);
    const run = await writer.createRun(sampleSpec);
    await writer.append(run.id, { type: "state_changed", to: "running" });
    expect((await reader.getRun(run.id)).state).toBe("running");
    await writer.close();
    await reader.close();
  });

  test("migration 2 fills the sortable columns of runs written before it", async () => {
    const scratch = SqliteRunStore.open(":memory:");
    const run = await scratch.createRun(sampleSpec);
    const { summary } = await scratch.append(run.id, { type: "run_finished", stopReason: "submitted", finalRaw: 1.25, normalized: 0.75 });
    await scratch.close();
    const file = path.join(dir, "v1.db");
    const db = new Database(file);
    db.exec("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)");
    db.exec(MIGRATIONS[0]!.sql);
    db.prepare("INSERT INTO schema_migrations VALUES (1, 'v1', 'then')").run();
    db.prepare(
      `INSERT INTO runs (id, environment, variant, task, participant_kind, participant_alias, state, created_at, updated_at, last_seq, summary)
       VALUES (?, 'optimize_kernel', 'mini', 'main', 'agent', 'test-model', 'finished', ?, ?, 2, ?)`,
    ).run(run.id, summary.createdAt, summary.updatedAt, JSON.stringify(summary));
    db.close();
    const store = SqliteRunStore.open(file);
    const page = await store.pageRuns({ minScore: 0.5, sort: "raw" });
    expect(page.runs.map((r) => [r.id, r.finalRaw])).toEqual([[run.id, 1.25]]);
    expect((await store.pageRuns({ maxScore: 0.5 })).total).toBe(0);
    await store.close();
  });
});
