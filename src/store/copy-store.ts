/**
 * @module
 * Copy runs from one store to another (SQLite → PostgreSQL, PostgreSQL → SQLite, or between two of a
 * kind), each run's whole event log under its own sequence numbers and timestamps, so that the target's
 * summaries are the same fold of the same events. Copying again continues: a run the target holds a
 * prefix of gets the events after it; a run whose copy differs from the source, or is ahead of it, is a
 * conflict and is left as it is.
 */
import { isDeepStrictEqual } from "node:util";
import { ConflictError, type RunSummary } from "../core/index.js";
import type { RunStore } from "./store.js";

export interface CopyOptions {
  /** Only these runs (default: every run of the source). */
  runIds?: readonly string[];
  /** Called after each run, with what happened to it. */
  onRun?: (result: CopiedRun) => void;
}

export interface CopiedRun {
  runId: string;
  /** `copied`: new in the target; `continued`: the target had a prefix of its log; `same`: nothing to copy; `conflict`: left alone. */
  result: "copied" | "continued" | "same" | "conflict";
  events: number;
  why?: string;
}

export interface CopyReport {
  runs: CopiedRun[];
  events: number;
}

export async function copyRuns(from: RunStore, to: RunStore, options: CopyOptions = {}): Promise<CopyReport> {
  const runs: RunSummary[] = options.runIds ? await Promise.all(options.runIds.map((id) => from.getRun(id))) : await from.listRuns();
  const report: CopyReport = { runs: [], events: 0 };
  for (const run of runs) {
    const result = await copyRun(from, to, run.id);
    report.runs.push(result);
    report.events += result.events;
    options.onRun?.(result);
  }
  return report;
}

async function copyRun(from: RunStore, to: RunStore, runId: string): Promise<CopiedRun> {
  const events = await from.events(runId);
  const there = await to.findRun(runId);
  let have = 0;
  if (there) {
    const theirs = await to.events(runId);
    const mismatch = theirs.findIndex((e, i) => !isDeepStrictEqual(e, events[i]));
    if (theirs.length > events.length || mismatch !== -1) {
      const at = mismatch === -1 ? events.length + 1 : mismatch + 1;
      return { runId, result: "conflict", events: 0, why: `the target's log differs from the source's at event ${at}` };
    }
    have = theirs.length;
  }
  if (have === events.length) return { runId, result: "same", events: 0 };
  try {
    await to.importEvents(runId, events.slice(have));
  } catch (error) {
    // Another writer appended to the target's copy meanwhile.
    if (error instanceof ConflictError) return { runId, result: "conflict", events: 0, why: error.message };
    throw error;
  }
  return { runId, result: have === 0 ? "copied" : "continued", events: events.length - have };
}
