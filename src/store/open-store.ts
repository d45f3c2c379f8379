/**
 * @module
 * Open the run store a command asks for: `--db PATH` (or `sqlite:PATH`), else `$REBENCH_HOME/rebench.db`,
 * else `~/.rebench/rebench.db`.
 */
import os from "node:os";
import path from "node:path";
import { UnavailableError } from "../core/index.js";
import { SqliteRunStore } from "./sqlite/sqlite-store.js";
import type { RunStore } from "./store.js";

/** rebench's home folder: `$REBENCH_HOME`, else `~/.rebench`. Assets and the default store live here. */
export function rebenchHome(): string {
  return process.env.REBENCH_HOME ?? path.join(os.homedir(), ".rebench");
}

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
