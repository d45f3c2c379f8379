/**
 * @module
 * The SQLite run store (better-sqlite3): one file, WAL journal, safe for several processes on one
 * machine (the orchestrator, `rebench score`, the viewer). Every append is one IMMEDIATE transaction
 * that inserts the event and rewrites the run's summary row.
 */
import { accessSync, constants, existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import {
  ConflictError,
  InfrastructureError,
  InvalidInputError,
  type NewRunEvent,
  NotFoundError,
  newRunId,
  parseWith,
  RunEvent,
  type RunEventType,
  type RunId,
  RunSpec,
  type RunSpecInput,
  type RunSummary,
  type ScoreLogEntry,
  type StoredEvent,
  summarize,
  UnavailableError,
} from "../../core/index.js";
import { foldAppends, parseNewEvents } from "../fold-appends.js";
import { checkImport, runColumns } from "../import-events.js";
import { inSeqOrder } from "../in-seq-order.js";
import { asciiLower, SORT_COLUMNS, sortColumns } from "../run-columns.js";
import { scoreEntryFrom } from "../score-entry.js";
import type { AppendResult, EventQuery, RunFacets, RunFilter, RunPage, RunPageQuery, RunStore } from "../store.js";
import { decodeSummary, encodeSummary } from "../summary-json.js";
import { MIGRATIONS } from "./migrations.js";

/** Equality filters of RunFilter and the `runs` columns they compare. */
const FILTER_COLUMNS = [
  ["environment", "environment"],
  ["variant", "variant"],
  ["participant", "participant_alias"],
  ["batchId", "batch_id"],
] as const satisfies ReadonlyArray<readonly [keyof RunFilter, string]>;

interface RunRow {
  summary: string;
}

interface EventRow {
  run_id: string;
  seq: number;
  payload: string;
}

export class SqliteRunStore implements RunStore {
  readonly location: string;
  readonly #db: Database.Database;

  private constructor(location: string, db: Database.Database) {
    this.location = location;
    this.#db = db;
  }

  /**
   * Open the store at `file`, or an in-memory store for `:memory:`. By default it is created (with its
   * folder) where it is missing; `mustExist` refuses a missing file instead, and `readOnly` (for commands
   * that only read) also never writes to it, so that a store on a read-only file or folder can be read.
   */
  static open(file: string, options: SqliteOpenOptions = {}): SqliteRunStore {
    if (file !== ":memory:" && (options.mustExist || options.readOnly) && !existsSync(file)) {
      throw new NotFoundError(`no run store at ${file}`, {
        hint: "check the path (record runs first, e.g. `rebench main`), or name the store with --db PATH or --db postgres://USER@HOST/DB",
      });
    }
    if (options.readOnly && file !== ":memory:") return new SqliteRunStore(file, openReadOnly(file));
    if (file !== ":memory:") mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    let db: Database.Database;
    try {
      db = new Database(file);
      // The wait first: turning a new file to WAL takes a lock that another process opening it at once may hold.
      db.pragma("busy_timeout = 10000");
      db.pragma("journal_mode = WAL");
      db.pragma("synchronous = NORMAL");
      db.pragma("foreign_keys = ON");
    } catch (cause) {
      const readOnly = unwritable(file);
      if (readOnly) {
        // The machine's situation, not a broken store: read-only media or no write permission.
        throw new UnavailableError(`cannot open the run store at ${file}: ${readOnly}`, {
          cause,
          hint: "SQLite writes beside the file even to read it (WAL): copy it somewhere writable (`cp STORE COPY`) and pass --db COPY",
        });
      }
      throw new InfrastructureError(`cannot open the run store at ${file}: ${(cause as Error).message}`, {
        cause,
        hint: "check the path and its permissions, or pass another with --db PATH",
      });
    }
    migrate(db, file);
    return new SqliteRunStore(file, db);
  }

  async createRun(spec: RunSpecInput, options: { id?: RunId; ts?: string } = {}): Promise<RunSummary> {
    const parsed = parseWith(RunSpec, spec, "the run specification");
    const id = options.id ?? newRunId();
    const event = parseWith(RunEvent, { type: "run_created", ts: options.ts ?? new Date().toISOString(), spec: parsed }, "the run_created event");
    const summary = summarize(undefined, { runId: id, seq: 1, event });
    this.#db
      .transaction(() => {
        const exists = this.#db.prepare("SELECT 1 FROM runs WHERE id = ?").get(id);
        if (exists) throw new ConflictError(`run ${id} already exists`);
        this.#db
          .prepare(
            `INSERT INTO runs (id, environment, variant, task, participant_kind, participant_alias, batch_id,
                             state, created_at, updated_at, last_seq, summary, raw, normalized, working_seconds, score_calls)
           VALUES (@id, @environment, @variant, @task, @kind, @alias, @batchId, @state, @ts, @ts, 1, @summary,
                   @raw, @normalized, @working, @scoreCalls)`,
          )
          .run({
            id,
            environment: parsed.environment,
            variant: parsed.variant,
            task: parsed.task,
            kind: parsed.participant.kind,
            alias: parsed.participant.alias,
            batchId: parsed.batchId ?? null,
            state: summary.state,
            ts: event.ts,
            summary: encodeSummary(summary),
            ...sortColumns(summary),
          });
        this.#insertEvent(id, 1, event);
      })
      .immediate();
    return summary;
  }

  async append(runId: RunId, input: NewRunEvent): Promise<AppendResult> {
    const [result] = await this.appendMany(runId, [input]);
    return result!;
  }

  async appendMany(runId: RunId, inputs: readonly NewRunEvent[]): Promise<AppendResult[]> {
    const events = parseNewEvents(runId, inputs);
    if (events.length === 0) return [];
    return this.#db
      .transaction((): AppendResult[] => {
        const current = this.#readSummary(runId);
        if (!current) throw new NotFoundError(`no run ${runId} in ${this.location}`);
        const results = foldAppends(runId, current, events);
        for (const { stored } of results) this.#insertEvent(runId, stored.seq, stored.event);
        this.#writeSummary(runId, results.at(-1)!.summary);
        return results;
      })
      .immediate();
  }

  async importEvents(runId: RunId, events: readonly StoredEvent[]): Promise<RunSummary> {
    return this.#db
      .transaction((): RunSummary => {
        const current = this.#readSummary(runId);
        const { summary, parsed } = checkImport(runId, current, events, this.location);
        if (current === undefined) {
          this.#db
            .prepare(
              `INSERT INTO runs (id, environment, variant, task, participant_kind, participant_alias, batch_id,
                               state, created_at, updated_at, last_seq, summary) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, '{}')`,
            )
            .run(...runColumns(runId, summary.spec, summary.state), summary.createdAt, summary.updatedAt);
        }
        this.#writeSummary(runId, summary);
        for (const { seq, event } of parsed) this.#insertEvent(runId, seq, event);
        return summary;
      })
      .immediate();
  }

  async getRun(runId: string): Promise<RunSummary> {
    const summary = this.#readSummary(runId);
    if (!summary) {
      throw new NotFoundError(`no run ${runId} in ${this.location}`, { hint: "`rebench runs list` shows the runs" });
    }
    return summary;
  }

  async findRun(runId: string): Promise<RunSummary | undefined> {
    return this.#readSummary(runId);
  }

  async listRuns(filter: RunFilter = {}): Promise<RunSummary[]> {
    const { clause, params } = whereClause(filter);
    const order = filter.limit === undefined ? "ORDER BY created_at, id" : "ORDER BY created_at DESC, id DESC LIMIT @limit";
    if (filter.limit !== undefined) params.limit = filter.limit;
    const rows = this.#db.prepare(`SELECT summary FROM runs ${clause} ${order}`).all(params) as RunRow[];
    return rows.map((row) => decodeSummary(row.summary));
  }

  async pageRuns(query: RunPageQuery = {}): Promise<RunPage> {
    const { clause, params } = whereClause(query);
    const where = clause === "" ? [] : [clause.slice("WHERE ".length)];
    if (query.minScore !== undefined) {
      where.push("normalized >= @minScore");
      params.minScore = query.minScore;
    }
    if (query.maxScore !== undefined) {
      where.push("normalized <= @maxScore");
      params.maxScore = query.maxScore;
    }
    const filter = where.length > 0 ? `WHERE ${where.join(" AND ")}` : "";
    const { n } = this.#db.prepare(`SELECT COUNT(*) AS n FROM runs ${filter}`).get(params) as { n: number };
    const column = SORT_COLUMNS[query.sort ?? "created"];
    const direction = query.descending ? "DESC" : "ASC";
    // Missing values last; ties in creation order.
    const order = column === "created_at" ? `created_at ${direction}, id ${direction}` : `${column} IS NULL, ${column} ${direction}, created_at, id`;
    params.limit = query.limit ?? 50;
    params.offset = query.offset ?? 0;
    const rows = this.#db.prepare(`SELECT summary FROM runs ${filter} ORDER BY ${order} LIMIT @limit OFFSET @offset`).all(params) as RunRow[];
    return { total: n, runs: rows.map((row) => decodeSummary(row.summary)) };
  }

  async runFacets(): Promise<RunFacets> {
    const distinct = (column: string) =>
      (this.#db.prepare(`SELECT DISTINCT ${column} AS v FROM runs ORDER BY ${column}`).all() as { v: string }[]).map((r) => r.v);
    return {
      environments: distinct("environment"),
      variants: distinct("variant"),
      participants: distinct("participant_alias"),
      states: distinct("state"),
    };
  }

  async searchEvents(runId: RunId, text: string, options: { limit?: number } = {}): Promise<number[]> {
    if (text === "") return [];
    // Only the event's string values (not its keys, type or timestamp), as text: a newline matches a newline.
    const rows = this.#db
      .prepare(
        `SELECT seq FROM run_events WHERE run_id = @runId AND instr(lower(payload), @escaped) > 0 AND EXISTS (
           SELECT 1 FROM json_tree(payload) AS t WHERE t.type = 'text' AND t.fullkey NOT IN ('$.type', '$.ts')
             AND instr(lower(t.value), @needle) > 0)
         ORDER BY seq LIMIT @limit`,
      )
      .all({ runId, needle: asciiLower(text), escaped: JSON.stringify(asciiLower(text)).slice(1, -1), limit: options.limit ?? 1000 }) as { seq: number }[];
    return rows.map((row) => row.seq);
  }

  async events(runId: RunId, query: EventQuery = {}): Promise<StoredEvent[]> {
    const params: Record<string, unknown> = { runId, afterSeq: query.afterSeq ?? 0, limit: query.limit ?? -1 };
    let typeClause = "";
    if (query.types && query.types.length > 0) {
      typeClause = `AND type IN (${query.types
        .map((type, i) => {
          params[`t${i}`] = type;
          return `@t${i}`;
        })
        .join(", ")})`;
    }
    const rows = this.#db
      // With types, the type index (else SQLite walks the whole run in seq order, payloads and all).
      .prepare(
        `SELECT run_id, seq, payload FROM run_events ${typeClause ? "INDEXED BY run_events_by_type" : ""} WHERE run_id = @runId AND seq > @afterSeq ${typeClause} ORDER BY seq LIMIT @limit`,
      )
      .all(params) as EventRow[];
    return rows.map((row) => ({ runId: row.run_id, seq: row.seq, event: RunEvent.parse(JSON.parse(row.payload)) }));
  }

  async eventTypes(runId: RunId): Promise<RunEventType[]> {
    // The type index covers (type, seq): the table itself holds the payloads (100 MB for a long run).
    const rows = this.#db.prepare("SELECT seq, type FROM run_events INDEXED BY run_events_by_type WHERE run_id = ?").all(runId) as {
      seq: number;
      type: RunEventType;
    }[];
    return inSeqOrder(rows);
  }

  async scoreLog(runId: RunId): Promise<ScoreLogEntry[]> {
    const events = await this.events(runId, { types: ["score_logged"] });
    return events.flatMap(({ event }) => (event.type === "score_logged" ? [event.entry] : []));
  }

  async scoreLogs(runIds: readonly RunId[]): Promise<Map<RunId, ScoreLogEntry[]>> {
    const logs = new Map<RunId, ScoreLogEntry[]>(runIds.map((id) => [id, []]));
    if (runIds.length === 0) return logs;
    const rows = this.#db
      .prepare(
        `SELECT run_id, payload FROM run_events WHERE run_id IN (SELECT value FROM json_each(?)) AND type = 'score_logged'
         ORDER BY run_id, seq`,
      )
      .all(JSON.stringify([...logs.keys()])) as { run_id: string; payload: string }[];
    for (const row of rows) {
      logs.get(row.run_id)?.push(scoreEntryFrom(row.payload));
    }
    return logs;
  }

  async close(): Promise<void> {
    if (this.#db.open) this.#db.close();
  }

  #readSummary(runId: string): RunSummary | undefined {
    const row = this.#db.prepare("SELECT summary FROM runs WHERE id = ?").get(runId) as RunRow | undefined;
    return row ? decodeSummary(row.summary) : undefined;
  }

  /** Rewrite the run's summary row: the summary and the columns copied out of it (sort columns, scheduler job). */
  #writeSummary(runId: string, summary: RunSummary): void {
    this.#db
      .prepare(
        `UPDATE runs SET state = @state, updated_at = @updatedAt, last_seq = @lastSeq, summary = @summary, raw = @raw,
                normalized = @normalized, working_seconds = @working, score_calls = @scoreCalls, job_id = @jobId WHERE id = @id`,
      )
      .run({
        state: summary.state,
        updatedAt: summary.updatedAt,
        lastSeq: summary.lastSeq,
        summary: encodeSummary(summary),
        jobId: summary.job?.id ?? null,
        id: runId,
        ...sortColumns(summary),
      });
  }

  #insertEvent(runId: string, seq: number, event: RunEvent): void {
    this.#db
      .prepare("INSERT INTO run_events (run_id, seq, ts, type, payload) VALUES (?, ?, ?, ?, ?)")
      .run(runId, seq, event.ts, event.type, JSON.stringify(event));
  }
}

export interface SqliteOpenOptions {
  /** Refuse a missing file (NotFoundError) instead of creating the store. Default false. */
  mustExist?: boolean;
  /** Only read: never create, migrate or write the file (implies mustExist). Default false. */
  readOnly?: boolean;
}

/**
 * A read-only connection to an existing store. A store in WAL mode (every store rebench writes) can be read
 * in place where its folder is writable or its `-shm` file exists; in a read-only folder SQLite cannot make
 * that file, and this build has no `immutable` URIs, so the store is read from a snapshot in memory (its
 * header marked as a rollback-journal database). A store older than this rebench's schema is migrated in
 * place where it may be written, else in the snapshot only.
 */
function openReadOnly(file: string): Database.Database {
  const latest = MIGRATIONS.at(-1)?.version ?? 0;
  let db: Database.Database;
  let version: number;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    version = schemaVersion(db, file);
  } catch (cause) {
    if (cause instanceof InvalidInputError || (cause as { code?: string }).code !== "SQLITE_CANTOPEN") throw openFailed(file, cause);
    db = snapshot(file);
    version = schemaVersion(db, file);
  }
  if (version > latest) {
    db.close();
    throw newerSchema(file, version, latest);
  }
  if (version < latest) {
    db.close();
    if (writable(file)) {
      const rw = new Database(file);
      try {
        migrate(rw, file);
      } finally {
        rw.close();
      }
      return openReadOnly(file);
    }
    db = snapshot(file);
    migrate(db, file);
  }
  db.pragma("busy_timeout = 10000");
  return db;
}

function snapshot(file: string): Database.Database {
  if (existsSync(`${file}-wal`) && statSync(`${file}-wal`).size > 0) {
    throw new InfrastructureError(`cannot read the run store at ${file}: its folder is read-only and it has changes not yet saved in ${file}-wal`, {
      hint: "open it once with any command where its folder is writable (that saves them), then read it here",
    });
  }
  try {
    const bytes = readFileSync(file);
    // Bytes 18 and 19 of the header: 2 for WAL, 1 for a rollback journal (an in-memory database cannot use WAL).
    if (bytes.length >= 20) bytes.fill(1, 18, 20);
    return new Database(bytes);
  } catch (cause) {
    throw openFailed(file, cause);
  }
}

function writable(file: string): boolean {
  try {
    accessSync(file, constants.W_OK);
    accessSync(path.dirname(file), constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** The store's schema version; an error where the file is not a run store. */
function schemaVersion(db: Database.Database, file: string): number {
  const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get();
  if (!table) throw new InvalidInputError(`${file} is not a rebench run store`, { hint: "name the store with --db PATH" });
  const row = db.prepare("SELECT MAX(version) AS version FROM schema_migrations").get() as { version: number | null };
  return row.version ?? 0;
}

function openFailed(file: string, cause: unknown): Error {
  if (cause instanceof InvalidInputError) return cause;
  return new InfrastructureError(`cannot open the run store at ${file}: ${(cause as Error).message}`, {
    cause,
    hint: "check the path and its permissions, or pass another with --db PATH",
  });
}

function newerSchema(file: string, version: number, latest: number): ConflictError {
  return new ConflictError(`the run store ${file} has schema version ${version}, newer than this rebench knows (${latest})`, {
    hint: "upgrade rebench, or use another store with --db PATH",
  });
}

/** The WHERE clause of RunFilter's equality filters and states. */
function whereClause(filter: RunFilter): { clause: string; params: Record<string, unknown> } {
  const where: string[] = [];
  const params: Record<string, unknown> = {};
  for (const [key, column] of FILTER_COLUMNS) {
    const value = filter[key];
    if (value === undefined) continue;
    where.push(`${column} = @${key}`);
    params[key] = value;
  }
  if (filter.states && filter.states.length > 0) {
    const names = filter.states.map((state, i) => {
      params[`state${i}`] = state;
      return `@state${i}`;
    });
    where.push(`state IN (${names.join(", ")})`);
  }
  return { clause: where.length > 0 ? `WHERE ${where.join(" AND ")}` : "", params };
}

/**
 * Bring the store's tables to the latest schema. Processes that open a new store at once (a batch's Slurm jobs,
 * writers of one file) migrate it once: the version is read again under the write lock (an IMMEDIATE
 * transaction) before anything is changed, so a process that waited finds the tables made.
 */
function migrate(db: Database.Database, file: string): void {
  const latest = MIGRATIONS.at(-1)?.version ?? 0;
  const version = (): number => {
    const made = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get();
    if (!made) return 0;
    const row = db.prepare("SELECT MAX(version) AS version FROM schema_migrations").get() as { version: number | null };
    return row.version ?? 0;
  };
  const before = version();
  if (before > latest) throw newerSchema(file, before, latest);
  if (before === latest) return;
  db.transaction(() => {
    const current = version();
    if (current > latest) throw newerSchema(file, current, latest);
    db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`);
    for (const migration of MIGRATIONS) {
      if (migration.version <= current) continue;
      db.exec(migration.sql);
      db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)").run(migration.version, migration.name, new Date().toISOString());
    }
  }).immediate();
}

/** Why the store's folder cannot be written (a read-only file system, no permission), or undefined. */
function unwritable(file: string): string | undefined {
  if (file === ":memory:") return undefined;
  try {
    accessSync(path.dirname(path.resolve(file)), constants.W_OK);
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EROFS") return `${path.dirname(path.resolve(file))} is on a read-only file system`;
    if (code === "EACCES" || code === "EPERM") return `no permission to write in ${path.dirname(path.resolve(file))}`;
    return undefined;
  }
}
