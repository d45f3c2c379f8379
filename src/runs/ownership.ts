/**
 * @module
 * Which orchestrator process drives a run: the latest `driver_attached` event names a pid and host. A run
 * whose driver is alive (same host, process still there) is left alone by `rebench runs resume` and by
 * a restarted batch; a dead driver's runs are reconciled and continued.
 */
import os from "node:os";
import { pidAlive, type RunId } from "../core/index.js";
import { type Driver, lastDriver } from "../store/orphaned-run.js";
import type { RunStore } from "../store/store.js";

/** The run's live driver other than this process, if any. */
export async function liveDriver(store: RunStore, runId: RunId): Promise<Driver | undefined> {
  const last = await lastDriver(store, runId);
  if (!last || (last.pid === process.pid && last.host === os.hostname())) return undefined;
  if (last.host !== os.hostname()) return last;
  return pidAlive(last.pid) ? last : undefined;
}

/** Claim a run for this process (no-op when this process already holds it). */
export async function claimRun(store: RunStore, runId: RunId): Promise<void> {
  const last = await lastDriver(store, runId);
  if (last?.pid === process.pid && last.host === os.hostname()) return;
  await store.append(runId, { type: "driver_attached", pid: process.pid, host: os.hostname() });
}
