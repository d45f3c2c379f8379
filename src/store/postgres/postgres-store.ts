/**
 * @module
 * The PostgreSQL run store (node-postgres): one database that orchestrators on several hosts share. The
 * same tables and guarantees as the SQLite store: an append inserts its events under the next sequence
 * numbers and rewrites the run's summary in one transaction, so concurrent writers on any host never lose,
 * duplicate or reorder an event; triggers refuse UPDATE, DELETE and TRUNCATE of events; a store of a newer
 * schema is refused.
 *
 * An append is one statement, so one round trip (`appendStatement`): the process folds the new summary from
 * the summary it last wrote or read for the run, and the statement writes the events and the summary only if
 * the row still ends at that summary's last event (`last_seq`). Where another writer appended in between
 * (another host driving the same run, which rebench's ownership of runs makes rare), it writes nothing, and
 * the append takes the run's row lock instead (`SELECT ... FOR UPDATE`, the way every append worked before),
 * which queues the writers of a run fairly, and so do the run's next 16 appends from this process: under
 * contention an append costs what it did before. Within one process,
 * the appends of one run are queued, so they commit in the order they were called, as with SQLite's
 * synchronous driver. Text sorts by its bytes and search ignores ASCII case only (COLLATE "C"), as in
 * SQLite, whatever the database's locale.
 */
import pg from "pg";
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
} from "../../core/index.js";
import { foldAppends, parseNewEvents } from "../fold-appends.js";
import { checkImport, runColumns } from "../import-events.js";
import { inSeqOrder } from "../in-seq-order.js";
import { redactUrl } from "../redact-url.js";
import { asciiLower, SORT_COLUMNS, sortColumns } from "../run-columns.js";
import { scoreEntryFrom } from "../score-entry.js";
import type { AppendResult, EventQuery, RunFacets, RunFilter, RunPage, RunPageQuery, RunStore } from "../store.js";
import { decodeSummary, encodeSummary } from "../summary-json.js";
import { MIGRATION_LOCK, PG_MIGRATIONS } from "./migrations.js";

/** Equality filters of RunFilter and the `runs` columns they compare. */
const FILTER_COLUMNS = [
  ["environment", "environment"],
  ["variant", "variant"],
  ["participant", "participant_alias"],
  ["batchId", "batch_id"],
] as const satisfies ReadonlyArray<readonly [keyof RunFilter, string]>;

/** Events a search reads from the server at a time (matches stop it early). */
const SEARCH_BATCH = 200;

/** Runs whose last summary this process remembers (the runs it is writing); the oldest are forgotten first. */
const KNOWN_RUNS = 4096;

/**
 * Insert a run's new events and rewrite its summary, if its row still ends at event `$11`: one statement, so
 * one round trip and one transaction. The events come as arrays (any number in one statement); the insert
 * reads the updated row, so where the row has moved on (or is gone) nothing is written and no row returns.
 */
const APPEND_SQL = `
  WITH updated AS (
    UPDATE runs SET state = $1, updated_at = $2, last_seq = $3, summary = $4, job_id = $5, raw = $6, normalized = $7,
                    working_seconds = $8, score_calls = $9
    WHERE id = $10 AND last_seq = $11 RETURNING id)
  INSERT INTO run_events (run_id, seq, ts, type, payload)
  SELECT updated.id, e.seq, e.ts, e.type, e.payload
  FROM updated, unnest($12::integer[], $13::text[], $14::text[], $15::text[]) AS e (seq, ts, type, payload)`;

/** Runs whose score logs one query of `scoreLogs` reads at a time. */
const SCORE_LOG_RUNS = 5000;

/** Appends of a run that take its row lock straight away once one found another writer's events first. */
const CONTENDED_APPENDS = 16;

/** A new run's row and its run_created event in one statement; no row returns where the id is taken. */
const CREATE_SQL = `
  WITH created AS (
    INSERT INTO runs (id, environment, variant, task, participant_kind, participant_alias, batch_id,
                      state, created_at, updated_at, last_seq, summary, raw, normalized, working_seconds, score_calls)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9, 1, $10, $11, $12, $13, $14) ON CONFLICT (id) DO NOTHING RETURNING id)
  INSERT INTO run_events (run_id, seq, ts, type, payload) SELECT created.id, 1, $9, $15, $16 FROM created`;

/** The `runs` columns of text, which sort by bytes (COLLATE "C") as SQLite's do. */
const TEXT_COLUMNS = new Set(["created_at", "updated_at", "environment", "variant", "participant_alias", "state"]);

export interface PostgresStoreOptions {
  /** Connections this process keeps at most; default 8 (a batch's concurrent runs share them). */
  maxConnections?: number;
  /** Refuse a database that holds no run store (NotFoundError) instead of creating its tables. Default false. */
  mustExist?: boolean;
  /**
   * Appends that may find another writer's events first before one takes the run's row lock; default 1. 0
   * takes the lock every time (three round trips more per append: the tests use it to check that way).
   */
  optimisticTries?: number;
}

export class PostgresRunStore implements RunStore {
  readonly location: string;
  readonly #pool: pg.Pool;
  /** Per run, the tail of this process's queue of appends (so they commit in call order). */
  readonly #queues = new Map<string, Promise<unknown>>();
  /** Per run, the summary this process last wrote (checked against the row by every append). */
  readonly #known = new Map<string, RunSummary>();
  /** Per run that other writers append to as well, how many more appends take the row lock straight away. */
  readonly #contended = new Map<string, number>();
  #closed = false;

  readonly #optimisticTries: number;

  private constructor(location: string, pool: pg.Pool, optimisticTries: number) {
    this.location = location;
    this.#pool = pool;
    this.#optimisticTries = optimisticTries;
  }

  /** Connect to the store at `url` (`postgres://` or `postgresql://`), creating or migrating its tables. */
  static async open(url: string, options: PostgresStoreOptions = {}): Promise<PostgresRunStore> {
    const location = redactUrl(url);
    const pool = new pg.Pool({ connectionString: url, max: options.maxConnections ?? 8, connectionTimeoutMillis: 15_000 });
    // An idle connection the server drops must not crash the process; the next query reconnects.
    pool.on("error", () => undefined);
    try {
      await migrate(pool, location, options.mustExist ?? false);
    } catch (error) {
      await pool.end().catch(() => undefined);
      if (error instanceof ConflictError || error instanceof NotFoundError) throw error;
      throw new InfrastructureError(`cannot open the run store at ${location}: ${(error as Error).message}`, {
        cause: error,
        hint:
          "check that the server is up and the URL names a database you may create tables in " +
          "(postgres://USER@HOST:PORT/DB; the password from PGPASSWORD or ~/.pgpass), or pass another store with --db",
      });
    }
    return new PostgresRunStore(location, pool, options.optimisticTries ?? 1);
  }

  async createRun(spec: RunSpecInput, options: { id?: RunId; ts?: string } = {}): Promise<RunSummary> {
    const parsed = parseWith(RunSpec, spec, "the run specification");
    const id = options.id ?? newRunId();
    const event = parseWith(RunEvent, { type: "run_created", ts: options.ts ?? new Date().toISOString(), spec: parsed }, "the run_created event");
    const summary = summarize(undefined, { runId: id, seq: 1, event });
    const { raw, normalized, working, scoreCalls } = sortColumns(summary);
    const inserted = await this.#query((client) =>
      client.query({
        name: "rebench-create-run",
        text: CREATE_SQL,
        values: [
          ...runColumns(id, parsed, summary.state),
          event.ts,
          encodeSummary(summary),
          raw,
          normalized,
          working,
          scoreCalls,
          event.type,
          JSON.stringify(event),
        ],
      }),
    );
    if (inserted.rowCount === 0) throw new ConflictError(`run ${id} already exists`);
    this.#remember(summary);
    return summary;
  }

  async append(runId: RunId, input: NewRunEvent): Promise<AppendResult> {
    const [result] = await this.appendMany(runId, [input]);
    return result!;
  }

  async appendMany(runId: RunId, inputs: readonly NewRunEvent[]): Promise<AppendResult[]> {
    const events = parseNewEvents(runId, inputs);
    if (events.length === 0) return [];
    return this.#queued(runId, async () => {
      const locking = this.#contended.get(runId) ?? 0;
      if (locking > 0) {
        // Others write this run too: an optimistic try would wait for their lock only to fail.
        if (locking === 1) this.#contended.delete(runId);
        else this.#contended.set(runId, locking - 1);
      }
      for (let tries = locking > 0 ? this.#optimisticTries : 0; tries < this.#optimisticTries; tries++) {
        const current = this.#known.get(runId) ?? (await this.#query((client) => readSummary(client, runId, { lock: false })));
        if (!current) throw new NotFoundError(`no run ${runId} in ${this.location}`);
        const results = foldAppends(runId, current, events);
        const written = await this.#query((client) => client.query(appendStatement(runId, current.lastSeq, results)));
        if (written.rowCount === results.length) {
          this.#remember(results.at(-1)!.summary);
          return results;
        }
        // Another writer appended since this process's summary: forget it (a next try reads the row; the lock below reads it too),
        // and take the lock for the run's next appends.
        this.#known.delete(runId);
        this.#contended.set(runId, CONTENDED_APPENDS);
        if (this.#contended.size > KNOWN_RUNS) this.#contended.delete(this.#contended.keys().next().value!);
      }
      const results = await this.#transaction(async (client): Promise<AppendResult[]> => {
        const current = await readSummary(client, runId, { lock: true });
        if (!current) throw new NotFoundError(`no run ${runId} in ${this.location}`);
        const folded = foldAppends(runId, current, events);
        const written = await client.query(appendStatement(runId, current.lastSeq, folded));
        if (written.rowCount !== folded.length)
          throw new InfrastructureError(`run ${runId}: an append under the run's row lock wrote ${written.rowCount} events of ${folded.length}`);
        return folded;
      });
      this.#remember(results.at(-1)!.summary);
      return results;
    });
  }

  async importEvents(runId: RunId, events: readonly StoredEvent[]): Promise<RunSummary> {
    return this.#queued(runId, () =>
      this.#transaction(async (client) => {
        const current = await readSummary(client, runId, { lock: true });
        const { summary, parsed } = checkImport(runId, current, events, this.location);
        if (current === undefined) {
          // The row first (events refer to it); updateSummary fills in the rest.
          await client.query(
            `INSERT INTO runs (id, environment, variant, task, participant_kind, participant_alias, batch_id,
                               state, created_at, updated_at, last_seq, summary)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 0, '{}')`,
            [...runColumns(runId, summary.spec, summary.state), summary.createdAt, summary.updatedAt],
          );
        }
        await updateSummary(client, runId, summary);
        for (const { seq, event } of parsed) await insertEvent(client, runId, seq, event);
        return summary;
      }).then((summary) => {
        this.#remember(summary);
        return summary;
      }),
    );
  }

  async getRun(runId: string): Promise<RunSummary> {
    const summary = await this.findRun(runId);
    if (!summary) {
      throw new NotFoundError(`no run ${runId} in ${this.location}`, { hint: "`rebench runs list` shows the runs" });
    }
    return summary;
  }

  async findRun(runId: string): Promise<RunSummary | undefined> {
    return this.#query((client) => readSummary(client, runId, { lock: false }));
  }

  async listRuns(filter: RunFilter = {}): Promise<RunSummary[]> {
    const { where, params } = whereClause(filter);
    const clause = where.length > 0 ? `WHERE ${where.join(" AND ")}` : "";
    let order = "ORDER BY created_at, id";
    if (filter.limit !== undefined) {
      params.push(filter.limit);
      order = `ORDER BY created_at DESC, id DESC LIMIT $${params.length}`;
    }
    const { rows } = await this.#query((client) => client.query<{ summary: string }>(`SELECT summary FROM runs ${clause} ${order}`, params));
    return rows.map((row) => decodeSummary(row.summary));
  }

  async pageRuns(query: RunPageQuery = {}): Promise<RunPage> {
    const { where, params } = whereClause(query);
    if (query.minScore !== undefined) {
      params.push(query.minScore);
      where.push(`normalized >= $${params.length}`);
    }
    if (query.maxScore !== undefined) {
      params.push(query.maxScore);
      where.push(`normalized <= $${params.length}`);
    }
    const filter = where.length > 0 ? `WHERE ${where.join(" AND ")}` : "";
    const column = SORT_COLUMNS[query.sort ?? "created"];
    const direction = query.descending ? "DESC" : "ASC";
    const sorted = TEXT_COLUMNS.has(column) ? `${column} COLLATE "C"` : column;
    // Missing values last; ties in creation order (as SQLite's store sorts).
    const order =
      column === "created_at"
        ? `created_at COLLATE "C" ${direction}, id COLLATE "C" ${direction}`
        : `${column} IS NULL, ${sorted} ${direction}, created_at COLLATE "C", id COLLATE "C"`;
    const pageParams = [...params, query.limit ?? 50, query.offset ?? 0];
    const [count, page] = await this.#query(
      async (client) =>
        [
          await client.query<{ n: string }>(`SELECT COUNT(*) AS n FROM runs ${filter}`, params),
          await client.query<{ summary: string }>(
            `SELECT summary FROM runs ${filter} ORDER BY ${order} LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
            pageParams,
          ),
        ] as const,
    );
    return { total: Number(count.rows[0]?.n ?? 0), runs: page.rows.map((row) => decodeSummary(row.summary)) };
  }

  async runFacets(): Promise<RunFacets> {
    return this.#query(async (client) => {
      const distinct = async (column: string) =>
        (await client.query<{ v: string }>(`SELECT DISTINCT ${column} COLLATE "C" AS v FROM runs ORDER BY v`)).rows.map((r) => r.v);
      return {
        environments: await distinct("environment"),
        variants: await distinct("variant"),
        participants: await distinct("participant_alias"),
        states: await distinct("state"),
      };
    });
  }

  async searchEvents(runId: RunId, text: string, options: { limit?: number } = {}): Promise<number[]> {
    if (text === "") return [];
    const needle = asciiLower(text);
    const limit = options.limit ?? 1000;
    // The payload's JSON text narrows the rows in the server (a value's escaped form is in it); then only the
    // event's string values count (not its keys, nor its type and timestamp), as text: a newline matches a
    // newline. Checked here rather than through jsonb, which refuses a payload with "\u0000" in it.
    return this.#query(async (client) => {
      const found: number[] = [];
      let after = 0;
      for (;;) {
        const { rows } = await client.query<{ seq: number; payload: string }>(
          `SELECT seq, payload FROM run_events WHERE run_id = $1 AND seq > $2 AND strpos(lower(payload COLLATE "C"), $3) > 0
           ORDER BY seq LIMIT ${SEARCH_BATCH}`,
          [runId, after, JSON.stringify(needle).slice(1, -1)],
        );
        for (const row of rows) {
          if (!eventTextContains(JSON.parse(row.payload) as Record<string, unknown>, needle)) continue;
          found.push(row.seq);
          if (found.length >= limit) return found;
        }
        if (rows.length < SEARCH_BATCH) return found;
        after = rows.at(-1)!.seq;
      }
    });
  }

  async events(runId: RunId, query: EventQuery = {}): Promise<StoredEvent[]> {
    // LIMIT NULL is no limit.
    const params: unknown[] = [runId, query.afterSeq ?? 0, query.limit ?? null];
    let typeClause = "";
    if (query.types && query.types.length > 0) {
      params.push([...query.types]);
      typeClause = "AND type = ANY($4)";
    }
    const { rows } = await this.#query((client) =>
      client.query<{ run_id: string; seq: number; payload: string }>(
        `SELECT run_id, seq, payload FROM run_events WHERE run_id = $1 AND seq > $2 ${typeClause} ORDER BY seq LIMIT $3`,
        params,
      ),
    );
    return rows.map((row) => ({ runId: row.run_id, seq: row.seq, event: RunEvent.parse(JSON.parse(row.payload)) }));
  }

  async eventTypes(runId: RunId): Promise<RunEventType[]> {
    const { rows } = await this.#query((client) =>
      client.query<{ seq: number; type: RunEventType }>("SELECT seq, type FROM run_events WHERE run_id = $1", [runId]),
    );
    return inSeqOrder(rows);
  }

  async scoreLog(runId: RunId): Promise<ScoreLogEntry[]> {
    const events = await this.events(runId, { types: ["score_logged"] });
    return events.flatMap(({ event }) => (event.type === "score_logged" ? [event.entry] : []));
  }

  async scoreLogs(runIds: readonly RunId[]): Promise<Map<RunId, ScoreLogEntry[]>> {
    const logs = new Map<RunId, ScoreLogEntry[]>(runIds.map((id) => [id, []]));
    const ids = [...logs.keys()];
    for (let i = 0; i < ids.length; i += SCORE_LOG_RUNS) {
      const { rows } = await this.#query((client) =>
        client.query<{ run_id: string; payload: string }>(
          `SELECT run_id, payload FROM run_events WHERE run_id = ANY($1) AND type = 'score_logged' ORDER BY run_id, seq`,
          [ids.slice(i, i + SCORE_LOG_RUNS)],
        ),
      );
      for (const row of rows) {
        logs.get(row.run_id)?.push(scoreEntryFrom(row.payload));
      }
    }
    return logs;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.allSettled([...this.#queues.values()]);
    await this.#pool.end();
  }

  /** Remember the summary this process wrote for a run (most recent last; the oldest forgotten past KNOWN_RUNS). */
  #remember(summary: RunSummary): void {
    this.#known.delete(summary.id);
    this.#known.set(summary.id, summary);
    if (this.#known.size > KNOWN_RUNS) this.#known.delete(this.#known.keys().next().value!);
  }

  /** Run `fn` after the appends of `runId` this process already queued. */
  #queued<T>(runId: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.#queues.get(runId) ?? Promise.resolve();
    const next = previous.then(fn, fn);
    const tail = next.catch(() => undefined);
    this.#queues.set(runId, tail);
    void tail.then(() => {
      if (this.#queues.get(runId) === tail) this.#queues.delete(runId);
    });
    return next;
  }

  async #query<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.#connect();
    try {
      return await fn(client);
    } finally {
      client.release();
    }
  }

  async #transaction<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return this.#query(async (client) => {
      await client.query("BEGIN");
      try {
        const result = await fn(client);
        await client.query("COMMIT");
        return result;
      } catch (error) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw error;
      }
    });
  }

  async #connect(): Promise<pg.PoolClient> {
    if (this.#closed) throw new InvalidInputError(`the run store ${this.location} is closed`);
    try {
      return await this.#pool.connect();
    } catch (error) {
      throw new InfrastructureError(`lost the run store at ${this.location}: ${(error as Error).message}`, {
        cause: error,
        hint: "check that the PostgreSQL server is up and reachable from this host; unfinished runs continue with `rebench runs resume`",
      });
    }
  }
}

async function readSummary(client: pg.PoolClient, runId: string, options: { lock: boolean }): Promise<RunSummary | undefined> {
  const { rows } = await client.query<{ summary: string }>(`SELECT summary FROM runs WHERE id = $1${options.lock ? " FOR UPDATE" : ""}`, [runId]);
  return rows[0] ? decodeSummary(rows[0].summary) : undefined;
}

/** Rewrite the run's summary row: the summary and the columns copied out of it (sort columns, scheduler job). */
async function updateSummary(client: pg.PoolClient, runId: string, summary: RunSummary): Promise<void> {
  const { raw, normalized, working, scoreCalls } = sortColumns(summary);
  await client.query(
    `UPDATE runs SET state = $1, updated_at = $2, last_seq = $3, summary = $4, job_id = $5, raw = $6, normalized = $7,
                     working_seconds = $8, score_calls = $9 WHERE id = $10`,
    [summary.state, summary.updatedAt, summary.lastSeq, encodeSummary(summary), summary.job?.id ?? null, raw, normalized, working, scoreCalls, runId],
  );
}

/** APPEND_SQL for `results` (events numbered after `lastSeq`, each with the summary folded so far). */
function appendStatement(runId: string, lastSeq: number, results: readonly AppendResult[]): pg.QueryConfig {
  const summary = results.at(-1)!.summary;
  const { raw, normalized, working, scoreCalls } = sortColumns(summary);
  return {
    name: "rebench-append",
    text: APPEND_SQL,
    values: [
      summary.state,
      summary.updatedAt,
      summary.lastSeq,
      encodeSummary(summary),
      summary.job?.id ?? null,
      raw,
      normalized,
      working,
      scoreCalls,
      runId,
      lastSeq,
      results.map((r) => r.stored.seq),
      results.map((r) => r.stored.event.ts),
      results.map((r) => r.stored.event.type),
      results.map((r) => JSON.stringify(r.stored.event)),
    ],
  };
}

/** Whether a string value of the event (not a key, nor its top-level type and timestamp) contains `needle`, ignoring ASCII case. */
function eventTextContains(event: Record<string, unknown>, needle: string): boolean {
  const walk = (value: unknown): boolean => {
    if (typeof value === "string") return asciiLower(value).includes(needle);
    if (Array.isArray(value)) return value.some(walk);
    if (value !== null && typeof value === "object") return Object.values(value).some(walk);
    return false;
  };
  return Object.entries(event).some(([key, value]) => key !== "type" && key !== "ts" && walk(value));
}

/** RunFilter's equality filters and states as conditions, and their parameters ($1, $2, ... in order). */
function whereClause(filter: RunFilter): { where: string[]; params: unknown[] } {
  const where: string[] = [];
  const params: unknown[] = [];
  for (const [key, column] of FILTER_COLUMNS) {
    const value = filter[key];
    if (value === undefined) continue;
    params.push(value);
    where.push(`${column} = $${params.length}`);
  }
  if (filter.states && filter.states.length > 0) {
    params.push([...filter.states]);
    where.push(`state = ANY($${params.length})`);
  }
  return { where, params };
}

async function insertEvent(client: pg.PoolClient, runId: string, seq: number, event: RunEvent): Promise<void> {
  await client.query("INSERT INTO run_events (run_id, seq, ts, type, payload) VALUES ($1, $2, $3, $4, $5)", [
    runId,
    seq,
    event.ts,
    event.type,
    JSON.stringify(event),
  ]);
}

async function migrate(pool: pg.Pool, location: string, mustExist: boolean): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    try {
      if (mustExist) {
        const { rows } = await client.query<{ t: string | null }>("SELECT to_regclass('schema_migrations')::text AS t");
        if (rows[0]?.t == null) {
          throw new NotFoundError(`no run store in ${location}`, {
            hint: "check the URL's database, or name the store with --db PATH or --db postgres://USER@HOST/DB",
          });
        }
      }
      // One migrating rebench at a time; the others wait here and then find the tables made.
      await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK.toString()]);
      await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`);
      const { rows } = await client.query<{ version: number | null }>("SELECT MAX(version) AS version FROM schema_migrations");
      const current = rows[0]?.version ?? 0;
      const latest = PG_MIGRATIONS.at(-1)?.version ?? 0;
      if (current > latest) {
        throw new ConflictError(`the run store ${location} has schema version ${current}, newer than this rebench knows (${latest})`, {
          hint: "upgrade rebench, or use another store with --db",
        });
      }
      for (const migration of PG_MIGRATIONS) {
        if (migration.version <= current) continue;
        await client.query(migration.sql);
        await client.query("INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)", [
          migration.version,
          migration.name,
          new Date().toISOString(),
        ]);
      }
      await client.query("COMMIT");
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    }
  } finally {
    client.release();
  }
}
