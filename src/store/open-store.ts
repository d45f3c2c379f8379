/**
 * @module
 * Open the run store a command asks for: `--db PATH` (or `sqlite:PATH`), else `$REBENCH_HOME/rebench.db`,
 * else `~/.rebench/rebench.db`. A value with a URL scheme (`postgres://…`) is refused: SQLite is the only
 * store today, and a URL taken as a path would quietly create a SQLite file under `./postgres:/…`.
 */
import path from "node:path";
import { InvalidInputError, rebenchHome } from "../core/index.js";
import { SqliteRunStore } from "./sqlite/sqlite-store.js";
import type { RunStore } from "./store.js";

/** The stores `--db` accepts, as the error for any other value lists them. */
export const SUPPORTED_STORES = "a SQLite file path (`--db runs.db`, or `sqlite:runs.db`)";

export function defaultDbPath(): string {
  return path.join(rebenchHome(), "rebench.db");
}

/**
 * The absolute path of the SQLite file that `--db` names (undefined: the default store). Throws
 * InvalidInputError for a URL (`scheme://…`): PostgreSQL and other servers are not supported yet.
 */
export function resolveDbPath(db: string | undefined = undefined): string {
  const target = db ?? defaultDbPath();
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(target)?.[1];
  if (scheme !== undefined && scheme.toLowerCase() !== "sqlite") {
    const what = /^postgres(ql)?$/i.test(scheme) ? "a PostgreSQL store is not supported yet" : `"${scheme}://" is not a store rebench knows`;
    throw new InvalidInputError(`--db ${target}: ${what}; the supported store is ${SUPPORTED_STORES}`, {
      hint: "pass a file path, e.g. --db ~/.rebench/rebench.db (the default); for several machines, export each store with `rebench runs export --format metr` and report on the files together",
    });
  }
  return path.resolve(target.replace(/^sqlite:(\/\/(?=\/))?/i, ""));
}

export function openStore(db: string | undefined = undefined): RunStore {
  return SqliteRunStore.open(resolveDbPath(db));
}
