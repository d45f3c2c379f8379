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
    version: 2,
    name: "sortable score and usage columns of runs",
    // The viewer's runs list sorts and filters 10,000 runs in the store: these columns copy what it sorts by
    // out of the summary (written with each event, as the summary is), so no query parses summaries.
    sql: `
      ALTER TABLE runs ADD COLUMN raw REAL;
      ALTER TABLE runs ADD COLUMN normalized REAL;
      ALTER TABLE runs ADD COLUMN working_seconds REAL NOT NULL DEFAULT 0;
      ALTER TABLE runs ADD COLUMN score_calls INTEGER NOT NULL DEFAULT 0;
      UPDATE runs SET
        raw = COALESCE(json_extract(summary, '$.finalRaw'), json_extract(summary, '$.currentRaw')),
        normalized = json_extract(summary, '$.normalized'),
        working_seconds = COALESCE(json_extract(summary, '$.usage.workingSeconds'), 0),
        score_calls = COALESCE(json_extract(summary, '$.scoreCalls'), 0);
      CREATE INDEX runs_by_created ON runs (created_at, id);
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
