/**
 * @module
 * Open the run store a command asks for: `--db PATH` (or `sqlite:PATH`), else `$REBENCH_HOME/rebench.db`,
 * else `~/.rebench/rebench.db`.
 */
import path from "node:path";
import { rebenchHome, UnavailableError } from "../core/index.js";
import { SqliteRunStore } from "./sqlite/sqlite-store.js";
import type { RunStore } from "./store.js";

export function defaultDbPath(): string {
  return path.join(rebenchHome(), "rebench.db");
}

export function openStore(db: string | undefined = undefined): RunStore {
  const target = db ?? defaultDbPath();
  if (/^postgres(ql)?:\/\//.test(target)) {
    throw new UnavailableError("the PostgreSQL run store is not built yet", {
      hint: "use SQLite: pass a file path with --db PATH",
    });
  }
  return SqliteRunStore.open(target.replace(/^sqlite:/, ""));
}
