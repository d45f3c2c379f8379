/**
 * @module
 * Open the run store a command asks for: `--db` (a SQLite file path, `sqlite:PATH`, or a PostgreSQL URL
 * `postgres://…`), else `$REBENCH_DB`, else `$REBENCH_HOME/rebench.db` (`~/.rebench/rebench.db`). Any other
 * URL scheme is refused: taken as a path it would quietly create a SQLite file under `./mysql:/…`.
 */
import path from "node:path";
import { InvalidInputError, rebenchHome } from "../core/index.js";
import { redactUrl } from "./redact-url.js";
import { SqliteRunStore } from "./sqlite/sqlite-store.js";
import type { RunStore } from "./store.js";

/** The stores `--db` accepts, as the error for any other value lists them. */
export const SUPPORTED_STORES = "a SQLite file path (`--db runs.db`, or `sqlite:runs.db`) or a PostgreSQL URL (`--db postgres://USER@HOST/DB`)";

/** Where a store lives: a SQLite file, or a PostgreSQL database. */
export type StoreTarget = { kind: "sqlite"; path: string; display: string } | { kind: "postgres"; url: string; display: string };

export function defaultDbPath(): string {
  return path.join(rebenchHome(), "rebench.db");
}

/** The store `--db` names: its value, else `$REBENCH_DB`, else the default SQLite file. */
export function resolveStore(db: string | undefined = undefined): StoreTarget {
  const target = db ?? (process.env.REBENCH_DB || defaultDbPath());
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(target)?.[1]?.toLowerCase();
  if (scheme === "postgres" || scheme === "postgresql") {
    try {
      new URL(target);
    } catch {
      throw new InvalidInputError(`--db ${redactUrl(target)} is not a valid URL`, { hint: "e.g. --db postgres://rebench@db.example:5432/rebench" });
    }
    return { kind: "postgres", url: target, display: redactUrl(target) };
  }
  if (scheme !== undefined && scheme !== "sqlite") {
    throw new InvalidInputError(`--db ${target}: "${scheme}://" is not a store rebench knows; the supported stores are ${SUPPORTED_STORES}`, {
      hint: "pass a file path, e.g. --db ~/.rebench/rebench.db (the default), or a PostgreSQL URL",
    });
  }
  const file = path.resolve(target.replace(/^sqlite:(\/\/(?=\/))?/i, ""));
  return { kind: "sqlite", path: file, display: file };
}

/**
 * The absolute path of the SQLite file that `--db` names, or the PostgreSQL URL as given (undefined: the
 * default store): what commands print and pass on to the processes they start.
 */
export function resolveDbPath(db: string | undefined = undefined): string {
  const target = resolveStore(db);
  return target.kind === "sqlite" ? target.path : target.url;
}

/** A folder beside the store for what commands write next to it (reports, transcripts): the SQLite file's, else $REBENCH_HOME. */
export function storeSideDir(db: string | undefined = undefined): string {
  const target = resolveStore(db);
  return target.kind === "sqlite" ? path.dirname(target.path) : rebenchHome();
}

/** The store as messages name it (a PostgreSQL URL without its password). */
export function storeDisplay(db: string | undefined = undefined): string {
  return resolveStore(db).display;
}

export interface OpenStoreOptions {
  /** Refuse a store that does not exist (NotFoundError, exit 3) instead of creating it: commands that act on runs already there. */
  mustExist?: boolean;
  /** The command only reads: never create, migrate or write the store (implies mustExist); a read-only SQLite file or folder can be read. */
  readOnly?: boolean;
}

export async function openStore(db: string | StoreTarget | undefined = undefined, options: OpenStoreOptions = {}): Promise<RunStore> {
  const target = typeof db === "object" ? db : resolveStore(db);
  if (target.kind === "sqlite") return SqliteRunStore.open(target.path, options);
  // Loaded only here, so that commands on a SQLite store do not load the PostgreSQL driver.
  const { PostgresRunStore } = await import("./postgres/postgres-store.js");
  return PostgresRunStore.open(target.url, { mustExist: options.mustExist === true || options.readOnly === true });
}
