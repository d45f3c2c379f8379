/**
 * @module
 * The `--db PATH` option and opening the store it names. The store (and its SQLite driver) loads only when
 * a command opens it, so a command that reads a runs file instead (`rebench report --runs-file`) never
 * loads it.
 */
import type { Command } from "commander";
import type { OpenStoreOptions, RunStore } from "../store/index.js";

/** Add `--db PATH` to a command. */
export function dbOption(command: Command): Command {
  return command.option(
    "--db <path>",
    "run store: a SQLite file or postgres://USER@HOST/DB; default $REBENCH_DB, else $REBENCH_HOME/rebench.db (~/.rebench/rebench.db)",
  );
}

/**
 * Open the store, run `fn`, close the store. A command that only reads passes `{ readOnly: true }`, one
 * that acts on runs already there `{ mustExist: true }`: a mistyped `--db` is then an error naming the
 * path, never a new empty store that answers "no runs".
 */
export async function withStore<T>(db: string | undefined, fn: (store: RunStore) => Promise<T>, options: OpenStoreOptions = {}): Promise<T> {
  const { openStore } = await import("../store/open-store.js");
  const store = await openStore(db, options);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}
