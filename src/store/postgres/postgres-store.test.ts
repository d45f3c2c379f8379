import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { describe, expect, test, vi } from "vitest";
import { REPO_ROOT } from "../../../test/helpers/cli.js";
import { freshDatabase, postgresSkip, sql } from "../../../test/helpers/postgres.js";
import { ConflictError, InfrastructureError, Usage } from "../../core/index.js";
import { bulkStoreContract } from "../bulk.contract.js";
import { redactUrl } from "../redact-url.js";
import { runStoreContract, sampleSpec, schemaOneRun } from "../store.contract.js";
import { PG_MIGRATIONS } from "./migrations.js";
import { PostgresRunStore } from "./postgres-store.js";

const run = promisify(execFile);

const scoreEntry = (value: number) => ({
  timestamp: "2026-12-07T10:00:00.000Z",
  elapsedSeconds: 1,
  outcome: { kind: "scored" as const, value },
  message: {},
  details: {},
});

describe.skipIf(postgresSkip !== undefined)("PostgresRunStore", () => {
  runStoreContract("postgres", async () => PostgresRunStore.open(await freshDatabase()));
  bulkStoreContract("postgres", async () => PostgresRunStore.open(await freshDatabase()));
  bulkStoreContract("postgres, every append under the row lock", async () => PostgresRunStore.open(await freshDatabase(), { optimisticTries: 0 }));

  test("an append is one statement to the server once the process knows the run", async () => {
    const store = await PostgresRunStore.open(await freshDatabase());
    const run = await store.createRun(sampleSpec);
    const query = vi.spyOn(pg.Client.prototype, "query");
    try {
      await store.append(run.id, { type: "note", message: "one" });
      await store.appendMany(run.id, [
        { type: "note", message: "two" },
        { type: "note", message: "three" },
      ]);
      expect(query).toHaveBeenCalledTimes(2);
      query.mockClear();
      await store.createRun(sampleSpec);
      expect(query).toHaveBeenCalledTimes(1);
    } finally {
      query.mockRestore();
    }
    expect((await store.getRun(run.id)).lastSeq).toBe(4);
    await store.close();
  });

  test("a process whose summary of a run is stale (another wrote since) reads the run again and appends after it", async () => {
    const url = await freshDatabase();
    const [a, b, locking] = [await PostgresRunStore.open(url), await PostgresRunStore.open(url), await PostgresRunStore.open(url, { optimisticTries: 0 })];
    const run = await a.createRun(sampleSpec);
    await a.append(run.id, { type: "state_changed", to: "running" });
    await b.append(run.id, { type: "score_logged", trigger: "action", entry: scoreEntry(1.5) });
    const fromA = await a.appendMany(run.id, [
      { type: "note", message: "a1" },
      { type: "score_logged", trigger: "action", entry: scoreEntry(1.2) },
    ]);
    expect(fromA.map((r) => r.stored.seq)).toEqual([4, 5]);
    expect(fromA[1]?.summary).toMatchObject({ state: "running", scoreCalls: 2, currentRaw: 1.2, lastSeq: 5 });
    expect((await locking.append(run.id, { type: "note", message: "locked" })).stored.seq).toBe(6);
    expect((await b.append(run.id, { type: "note", message: "b2" })).summary).toMatchObject({ scoreCalls: 2, lastSeq: 7 });
    const summary = await a.getRun(run.id);
    expect(summary).toMatchObject({ scoreCalls: 2, validScores: 2, currentRaw: 1.2, lastSeq: 7 });
    expect((await a.events(run.id)).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    await Promise.all([a.close(), b.close(), locking.close()]);
  });

  test("keeps runs across reconnecting, and names the store without its password", async () => {
    const url = await freshDatabase();
    const store = await PostgresRunStore.open(url);
    const run = await store.createRun(sampleSpec);
    await store.append(run.id, { type: "note", message: "hello" });
    await store.close();
    const again = await PostgresRunStore.open(url);
    expect((await again.getRun(run.id)).lastSeq).toBe(2);
    await again.close();
    expect(redactUrl("postgres://rebench:s3cret@db.example:5432/runs")).toBe("postgres://rebench@db.example:5432/runs");
  });

  test("the event table is append-only, even to direct SQL (UPDATE, DELETE, TRUNCATE)", async () => {
    const url = await freshDatabase();
    const store = await PostgresRunStore.open(url);
    const run = await store.createRun(sampleSpec);
    await store.close();
    await expect(sql(url, "DELETE FROM run_events")).rejects.toThrow(/append-only/);
    await expect(sql(url, "UPDATE run_events SET type = 'x'")).rejects.toThrow(/append-only/);
    await expect(sql(url, "TRUNCATE run_events CASCADE")).rejects.toThrow(/append-only/);
    // A run's events keep its summary row alive.
    await expect(sql(url, "DELETE FROM runs")).rejects.toThrow(/foreign key/);
    const again = await PostgresRunStore.open(url);
    expect((await again.events(run.id)).length).toBe(1);
    await again.close();
  });

  test("refuses a store written by a newer schema", async () => {
    const url = await freshDatabase();
    await (await PostgresRunStore.open(url)).close();
    await sql(url, "INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, 'future', 'now')");
    const opened = PostgresRunStore.open(url);
    await expect(opened).rejects.toThrow(/schema version 999, newer than this rebench knows/);
    await expect(opened).rejects.toBeInstanceOf(ConflictError);
  });

  test.each([1, 2])("a store of schema %i is migrated, and its runs (summaries without a job) read as before", async (version) => {
    const url = await freshDatabase();
    await sql(url, "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)");
    for (const migration of PG_MIGRATIONS.filter((m) => m.version <= version)) {
      await sql(url, migration.sql);
      await sql(url, "INSERT INTO schema_migrations VALUES ($1, $2, 'then')", [migration.version, migration.name]);
    }
    const { summary, event } = schemaOneRun();
    await sql(
      url,
      `INSERT INTO runs (id, environment, variant, task, participant_kind, participant_alias, batch_id, state, created_at, updated_at, last_seq, summary)
       VALUES ($1, 'optimize_kernel', 'mini', 'main', 'agent', 'test-model', NULL, 'queued', $2, $2, 1, $3)`,
      [summary.id, summary.createdAt, JSON.stringify(summary)],
    );
    await sql(url, "INSERT INTO run_events VALUES ($1, 1, $2, 'run_created', $3)", [summary.id, summary.createdAt, JSON.stringify(event)]);
    const store = await PostgresRunStore.open(url);
    expect(await store.getRun(summary.id)).toEqual({ ...summary, job: null, contendedScores: 0, review: null, usage: Usage.parse(summary.usage) }); // usage gains the token kinds, at 0; review (added later) is null
    await store.append(summary.id, { type: "job_submitted", executor: "slurm", jobId: "42", request: [] });
    expect((await sql(url, "SELECT job_id FROM runs"))[0]).toEqual({ job_id: "42" });
    expect(await sql(url, "SELECT version FROM schema_migrations ORDER BY version")).toEqual(PG_MIGRATIONS.map((m) => ({ version: m.version })));
    expect(PG_MIGRATIONS.at(-1)?.version).toBe(4);
    await store.close();
  });

  test("migration 2 fills the sortable columns of runs written before it", async () => {
    const scratch = await PostgresRunStore.open(await freshDatabase());
    const run = await scratch.createRun(sampleSpec);
    const { summary } = await scratch.append(run.id, { type: "run_finished", stopReason: "submitted", finalRaw: 1.25, normalized: 0.75 });
    await scratch.close();
    const url = await freshDatabase();
    await sql(url, "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)");
    await sql(url, PG_MIGRATIONS[0]!.sql);
    await sql(url, "INSERT INTO schema_migrations VALUES (1, 'v1', 'then')");
    await sql(
      url,
      `INSERT INTO runs (id, environment, variant, task, participant_kind, participant_alias, state, created_at, updated_at, last_seq, summary)
       VALUES ($1, 'optimize_kernel', 'mini', 'main', 'agent', 'test-model', 'finished', $2, $3, 2, $4)`,
      [run.id, summary.createdAt, summary.updatedAt, JSON.stringify(summary)],
    );
    const store = await PostgresRunStore.open(url);
    const page = await store.pageRuns({ minScore: 0.5, sort: "raw" });
    expect(page.runs.map((r) => [r.id, r.finalRaw])).toEqual([[run.id, 1.25]]);
    expect((await store.pageRuns({ maxScore: 0.5 })).total).toBe(0);
    await store.close();
  });

  test("orchestrators that open a new store at once migrate it once", async () => {
    const url = await freshDatabase();
    const stores = await Promise.all(Array.from({ length: 6 }, () => PostgresRunStore.open(url)));
    expect(await sql(url, "SELECT version FROM schema_migrations ORDER BY version")).toEqual(PG_MIGRATIONS.map((m) => ({ version: m.version })));
    await Promise.all(stores.map((s) => s.close()));
  });

  test.each([1, 4])("writer processes appending to the same runs (%i at a time) lose and reorder nothing", { timeout: 120_000 }, async (batch) => {
    const url = await freshDatabase();
    const store = await PostgresRunStore.open(url);
    const shared = await store.createRun(sampleSpec);
    const other = await store.createRun(sampleSpec);
    const writers = 4;
    const perWriter = 40;
    const tsx = path.join(REPO_ROOT, "node_modules/tsx/dist/loader.mjs");
    await Promise.all(
      Array.from({ length: writers }, (_, w) =>
        run(process.execPath, ["--import", tsx, path.join(REPO_ROOT, "test/fixtures/store-writer.ts"), url, `w${w}`, String(perWriter), shared.id, other.id], {
          env: { ...process.env, STORE_WRITER_BATCH: String(batch) },
        }),
      ),
    );
    for (const id of [shared.id, other.id]) {
      const events = await store.events(id);
      expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 1 + writers * perWriter }, (_, i) => i + 1));
      const notes = events.flatMap(({ event }) => (event.type === "note" ? [event.message] : []));
      for (let w = 0; w < writers; w++) {
        expect(notes.filter((m) => m.startsWith(`w${w}-`))).toEqual(Array.from({ length: perWriter }, (_, i) => `w${w}-${i}`));
      }
      expect((await store.getRun(id)).lastSeq).toBe(1 + writers * perWriter);
    }
    await store.close();
  });

  test("a server that is not there is broken infrastructure, with what to check", async () => {
    const opened = PostgresRunStore.open("postgres://rebench:pw@127.0.0.1:1/none");
    await expect(opened).rejects.toBeInstanceOf(InfrastructureError);
    await expect(opened).rejects.toThrow(/cannot open the run store at postgres:\/\/rebench@127\.0\.0\.1:1\/none: .*ECONNREFUSED/);
  });
});
