/**
 * @module
 * The run store interface. Every run is an append-only event log plus a summary row that the store
 * updates in the same transaction as each event. SQLite (one file, src/store/sqlite/) and PostgreSQL (a
 * server that several hosts share, src/store/postgres/) implement it; it is async because PostgreSQL's driver
 * is, and SQLite's synchronous calls simply resolve at once.
 */
import type {
  EnvironmentId,
  NewRunEvent,
  RunEventType,
  RunId,
  RunSpecInput,
  RunState,
  RunSummary,
  ScoreLogEntry,
  StoredEvent,
  Variant,
} from "../core/index.js";

export interface RunFilter {
  environment?: EnvironmentId;
  variant?: Variant;
  states?: readonly RunState[];
  /** Participant alias (model name, scaffold alias, or `human`). */
  participant?: string;
  batchId?: string;
  /** At most this many runs, newest first when set. */
  limit?: number;
}

export interface EventQuery {
  /** Only events with seq greater than this. */
  afterSeq?: number;
  types?: readonly RunEventType[];
}

export interface AppendResult {
  stored: StoredEvent;
  summary: RunSummary;
}

export interface RunStore {
  /** Where the store lives, for messages (a file path or a redacted URL). */
  readonly location: string;
  /** Create a run: appends its `run_created` event. */
  createRun(spec: RunSpecInput, options?: { id?: RunId; ts?: string }): Promise<RunSummary>;
  /** Append one event and update the run's summary atomically. */
  append(runId: RunId, event: NewRunEvent): Promise<AppendResult>;
  /**
   * Write events under their own sequence numbers and timestamps (`rebench store copy`): they must continue
   * the run's log here exactly (from 1 for a run this store lacks), in one transaction with the summary.
   * Throws ConflictError otherwise, writing nothing.
   */
  importEvents(runId: RunId, events: readonly StoredEvent[]): Promise<RunSummary>;
  /** The run's summary; throws NotFoundError for an unknown id. */
  getRun(runId: string): Promise<RunSummary>;
  findRun(runId: string): Promise<RunSummary | undefined>;
  /** Runs in creation order (oldest first), or newest first when `limit` is set. */
  listRuns(filter?: RunFilter): Promise<RunSummary[]>;
  events(runId: RunId, query?: EventQuery): Promise<StoredEvent[]>;
  /** The run's score log, in order. */
  scoreLog(runId: RunId): Promise<ScoreLogEntry[]>;
  close(): Promise<void>;
}
