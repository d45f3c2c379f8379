/**
 * @module
 * Whether a run's orchestrator is gone, so that it goes on only after `rebench runs resume`: what `runs list`
 * and the viewer show beside its state, which the log cannot say (a process's death writes no event). The
 * test is the one `runs resume` applies (src/runs/ownership.ts): the latest `driver_attached` event names a
 * process of this host that no longer exists. A driver on another host cannot be checked from here, and runs
 * that no orchestrator drives (human runs, Slurm jobs: `runs list` shows their job's state) are never orphaned.
 */
import os from "node:os";
import { isTerminal, pidAlive, type RunId, type RunSummary } from "../core/index.js";
import type { RunStore } from "./store.js";

/** The process that drives a run, as its latest `driver_attached` event names it. */
export interface Driver {
  pid: number;
  host: string;
}

/** The run's latest driver (src/runs/ownership.ts decides from it who may drive), or undefined where none attached. */
export async function lastDriver(store: RunStore, runId: RunId): Promise<Driver | undefined> {
  const last = (await store.events(runId, { types: ["driver_attached"] })).at(-1)?.event;
  return last?.type === "driver_attached" ? { pid: last.pid, host: last.host } : undefined;
}

/** Why `run` needs `rebench runs resume` (its orchestrator process is gone), or undefined. */
export async function orphanedRun(store: RunStore, run: RunSummary): Promise<string | undefined> {
  if (isTerminal(run.state)) return undefined;
  const { driver, executor } = run.spec.config;
  if ((driver ?? "orchestrator") !== "orchestrator" || executor === "slurm") return undefined;
  const last = await lastDriver(store, run.id);
  if (!last || last.host !== os.hostname() || pidAlive(last.pid)) return undefined;
  return `its orchestrator (process ${last.pid} on ${last.host}) is gone: \`rebench runs resume --run ${run.id}\` continues it`;
}

/** orphanedRun() of each run, by id (only the orphaned ones). */
export async function orphanedRuns(store: RunStore, runs: readonly RunSummary[]): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for (const run of runs) {
    const why = await orphanedRun(store, run);
    if (why) found.set(run.id, why);
  }
  return found;
}
