/**
 * @module
 * The `--db PATH` option and opening the store it names. The store (and its SQLite driver) loads only when
 * a command opens it, so a command that reads a runs file instead (`rebench report --runs-file`) never
 * loads it.
 */
import type { Command } from "commander";
import type { RunStore } from "../store/index.js";

/** Add `--db PATH` to a command. */
export function dbOption(command: Command): Command {
  return command.option(
    "--db <path>",
    "run store: a SQLite file or postgres://USER@HOST/DB; default $REBENCH_DB, else $REBENCH_HOME/rebench.db (~/.rebench/rebench.db)",
  );
}

/** Open the store, run `fn`, close the store. */
export async function withStore<T>(db: string | undefined, fn: (store: RunStore) => Promise<T>): Promise<T> {
  const { openStore } = await import("../store/open-store.js");
  const store = await openStore(db);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}
