/**
 * @module
 * Schema migrations for the PostgreSQL store: the same tables and guarantees as the SQLite store's
 * (src/store/sqlite/migrations.ts), in PostgreSQL's dialect. Applied in order, each in its own transaction
 * under an advisory lock, so that orchestrators starting at once on several hosts migrate once. Append new
 * migrations at the end; never edit one that has shipped.
 */
import type { Migration } from "../sqlite/migrations.js";

export const PG_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "runs and append-only run events",
    sql: `
      CREATE TABLE runs (
        id TEXT PRIMARY KEY,
        environment TEXT NOT NULL,
        variant TEXT NOT NULL,
        task TEXT NOT NULL,
        participant_kind TEXT NOT NULL,
        participant_alias TEXT NOT NULL,
        batch_id TEXT,
        state TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        last_seq INTEGER NOT NULL,
        summary TEXT NOT NULL
      );
      CREATE INDEX runs_by_environment ON runs (environment, variant);
      CREATE INDEX runs_by_state ON runs (state);
      CREATE INDEX runs_by_batch ON runs (batch_id);
      CREATE INDEX runs_by_created ON runs (created_at, id);
      CREATE TABLE run_events (
        run_id TEXT NOT NULL REFERENCES runs (id),
        seq INTEGER NOT NULL,
        ts TEXT NOT NULL,
        type TEXT NOT NULL,
        payload TEXT NOT NULL,
        PRIMARY KEY (run_id, seq)
      );
      CREATE INDEX run_events_by_type ON run_events (run_id, type, seq);
      CREATE FUNCTION rebench_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'run_events is append-only'; END $$;
      CREATE TRIGGER run_events_no_update BEFORE UPDATE OR DELETE ON run_events
        FOR EACH ROW EXECUTE FUNCTION rebench_append_only();
      CREATE TRIGGER run_events_no_truncate BEFORE TRUNCATE ON run_events
        FOR EACH STATEMENT EXECUTE FUNCTION rebench_append_only();
    `,
  },
  {
    version: 2,
    name: "sortable score and usage columns of runs",
    // As SQLite's migration 2: what the viewer's runs list sorts and filters by, copied out of the summary
    // with each event. (runs_by_created is in migration 1 here.)
    sql: `
      ALTER TABLE runs ADD COLUMN raw DOUBLE PRECISION;
      ALTER TABLE runs ADD COLUMN normalized DOUBLE PRECISION;
      ALTER TABLE runs ADD COLUMN working_seconds DOUBLE PRECISION NOT NULL DEFAULT 0;
      ALTER TABLE runs ADD COLUMN score_calls INTEGER NOT NULL DEFAULT 0;
      UPDATE runs SET
        raw = COALESCE((summary::jsonb ->> 'finalRaw')::double precision, (summary::jsonb ->> 'currentRaw')::double precision),
        normalized = (summary::jsonb ->> 'normalized')::double precision,
        working_seconds = COALESCE((summary::jsonb -> 'usage' ->> 'workingSeconds')::double precision, 0),
        score_calls = COALESCE((summary::jsonb ->> 'scoreCalls')::integer, 0);
      CREATE INDEX runs_by_participant ON runs (participant_alias);
    `,
  },
  {
    // Older rebench cannot read these events, so it refuses the store (a newer schema) instead of failing on them.
    version: 3,
    name: "runs record their scheduler job (events v3: job_submitted, job_started, cancel_requested)",
    sql: `
      ALTER TABLE runs ADD COLUMN job_id TEXT;
      CREATE INDEX runs_by_job ON runs (job_id);
    `,
  },
  {
    // Older rebench cannot read review events, so it refuses the store (a newer schema) instead of failing on them.
    version: 4,
    name: "runs carry their reviews (events v4: review); the runs list sorted by last update uses an index",
    sql: `
      CREATE INDEX runs_by_updated ON runs (updated_at, id);
    `,
  },
];

/** The advisory lock key every rebench takes while it migrates a PostgreSQL store ("rebench" in ASCII). */
export const MIGRATION_LOCK = 0x7265_6265_6e63_68n;
