/**
 * @module
 * Schema migrations for the SQLite store, applied in order inside one transaction each.
 * Append new migrations at the end; never edit one that has shipped.
 */

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
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
      CREATE TABLE run_events (
        run_id TEXT NOT NULL REFERENCES runs (id),
        seq INTEGER NOT NULL,
        ts TEXT NOT NULL,
        type TEXT NOT NULL,
        payload TEXT NOT NULL,
        PRIMARY KEY (run_id, seq)
      ) WITHOUT ROWID;
      CREATE INDEX run_events_by_type ON run_events (run_id, type, seq);
      CREATE TRIGGER run_events_no_update BEFORE UPDATE ON run_events
        BEGIN SELECT RAISE(ABORT, 'run_events is append-only'); END;
      CREATE TRIGGER run_events_no_delete BEFORE DELETE ON run_events
        BEGIN SELECT RAISE(ABORT, 'run_events is append-only'); END;
    `,
  },
  {
    // Older rebench cannot read these events, so it refuses the store (a newer schema) instead of failing on them.
    version: 2,
    name: "runs record their scheduler job (events v3: job_submitted, job_started, cancel_requested)",
    sql: `
      ALTER TABLE runs ADD COLUMN job_id TEXT;
      CREATE INDEX runs_by_job ON runs (job_id);
    `,
  },
];
