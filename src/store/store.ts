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
  /** At most this many events (the first ones after `afterSeq`); default all. */
  limit?: number;
}

/** The columns a page of runs can be sorted by. */
export const RUN_SORT_KEYS = ["created", "updated", "environment", "variant", "participant", "state", "working", "scores", "raw", "normalized"] as const;
export type RunSortKey = (typeof RUN_SORT_KEYS)[number];

/** One page of runs (the viewer's runs list): RunFilter's filters, a score range, a sort and a window. */
export interface RunPageQuery extends Omit<RunFilter, "limit"> {
  /** Only runs whose normalized score is at least this (runs without one are left out). */
  minScore?: number;
  /** Only runs whose normalized score is at most this (runs without one are left out). */
  maxScore?: number;
  /** Default `created`. */
  sort?: RunSortKey;
  /** Default false (ascending); runs without a value sort last either way, and ties stay in creation order. */
  descending?: boolean;
  /** Runs to skip; default 0. */
  offset?: number;
  /** Runs on the page; default 50. */
  limit?: number;
}

export interface RunPage {
  /** Runs that match the filters, on every page. */
  total: number;
  runs: RunSummary[];
}

/** The distinct values the runs' filters can take, for the viewer's filter menus. */
export interface RunFacets {
  environments: string[];
  variants: string[];
  participants: string[];
  states: string[];
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
   * Append several events of one run at once, in order, in one transaction with the summary (one round trip
   * to PostgreSQL): all of them or, on an invalid event or an unknown run, none. Each event's result, in order.
   */
  appendMany(runId: RunId, events: readonly NewRunEvent[]): Promise<AppendResult[]>;
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
  /** One page of runs, sorted and filtered in the store (so 10,000 runs cost one page of work). */
  pageRuns(query?: RunPageQuery): Promise<RunPage>;
  runFacets(): Promise<RunFacets>;
  /**
   * The seqs of the run's events with a string value (not a key, nor the type or timestamp) that contains
   * `text`, ignoring ASCII case, first ones first, at most `limit` (default 1000).
   */
  searchEvents(runId: RunId, text: string, options?: { limit?: number }): Promise<number[]>;
  /**
   * The type of each of the run's events, in order (index 0 is seq 1), read from the type index without the
   * events themselves: the viewer's outline of a long run (which events are turns, which bookkeeping).
   */
  eventTypes(runId: RunId): Promise<RunEventType[]>;
  /** The run's score log, in order. */
  scoreLog(runId: RunId): Promise<ScoreLogEntry[]>;
  /** The score logs of many runs at once (a report, a comparison): one query, not one a run. Unknown ids get none. */
  scoreLogs(runIds: readonly RunId[]): Promise<Map<RunId, ScoreLogEntry[]>>;
  close(): Promise<void>;
}
