/**
 * @module
 * Copy runs from one store to another (SQLite → PostgreSQL, PostgreSQL → SQLite, or between two of a
 * kind), each run's whole event log under its own sequence numbers and timestamps, so that the target's
 * summaries are the same fold of the same events. Copying again continues: a run the target holds a
 * prefix of gets the events after it; a run whose copy differs from the source, or is ahead of it, is a
 * conflict and is left as it is.
 *
 * A run is driven from one store only. A run that has not ended in the source is not copied (`unfinished`):
 * its copy would go on apart from it (resumed in the target while it finishes in the source, the two stores
 * disagreeing for good). With `moveUnfinished`, one that no live process drives is moved instead: its log is
 * copied, then a `run_moved` event ends it in the source (which then refuses any further event), so it goes
 * on in the target only. Copying again reports it as `moved`.
 */
import { isDeepStrictEqual } from "node:util";
import { ConflictError, isTerminal, type RunSummary, type StoredEvent } from "../core/index.js";
import type { RunStore } from "./store.js";

export interface CopyOptions {
  /** Only these runs (default: every run of the source). */
  runIds?: readonly string[];
  /** Called after each run, with what happened to it. */
  onRun?: (result: CopiedRun) => void;
  /**
   * Move the runs that have not ended instead of refusing them, where `movable` allows (default: refuse
   * them, result `unfinished`). `to` names the target in the source's `run_moved` event.
   */
  moveUnfinished?: { to: string; movable: (run: RunSummary) => Promise<string | undefined> };
}

export interface CopiedRun {
  runId: string;
  /**
   * `copied`: new in the target; `continued`: the target had a prefix of its log; `same`: nothing to copy;
   * `conflict`: left alone; `unfinished`: not ended in the source, so not copied (`why` says how to go on);
   * `moved`: moved to the target (now, or by an earlier copy), where it goes on.
   */
  result: "copied" | "continued" | "same" | "conflict" | "unfinished" | "moved";
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
    const result = isTerminal(run.state) ? await copyRun(from, to, run.id) : await unfinished(from, to, run, options.moveUnfinished);
    report.runs.push(result);
    report.events += result.events;
    options.onRun?.(result);
  }
  return report;
}

/** A run not ended in the source: refused, or moved where `move` is given and the run may be moved. */
async function unfinished(from: RunStore, to: RunStore, run: RunSummary, move: CopyOptions["moveUnfinished"]): Promise<CopiedRun> {
  const runId = run.id;
  if (!move) return { runId, result: "unfinished", events: 0, why: `${run.state} in the source` };
  const refused = await move.movable(run);
  if (refused) return { runId, result: "unfinished", events: 0, why: `${run.state} in the source, and it cannot be moved: ${refused}` };
  const events = await from.events(runId);
  const have = await prefixInTarget(to, runId, events);
  if (typeof have === "string") return { runId, result: "conflict", events: 0, why: have };
  // End it in the source first, on the condition that its log is still the one read (a store refuses an
  // event whose number is taken): from here no process can drive it there.
  try {
    await from.importEvents(runId, [{ runId: run.id, seq: events.length + 1, event: { type: "run_moved", ts: new Date().toISOString(), to: move.to } }]);
  } catch (error) {
    if (error instanceof ConflictError) {
      return { runId, result: "unfinished", events: 0, why: `it went on in the source while it was copied (${error.message}); copy again` };
    }
    throw error;
  }
  try {
    if (have < events.length) await to.importEvents(runId, events.slice(have));
  } catch (error) {
    if (!(error instanceof ConflictError)) throw error;
    return {
      runId,
      result: "conflict",
      events: 0,
      why: `it is marked moved in the source, but another writer changed its copy in the target meanwhile (${error.message})`,
    };
  }
  return { runId, result: "moved", events: events.length - have };
}

/** How many of `events` the target holds already (0 where it has no copy), or why its copy conflicts. */
async function prefixInTarget(to: RunStore, runId: string, events: readonly StoredEvent[]): Promise<number | string> {
  if (!(await to.findRun(runId))) return 0;
  const theirs = await to.events(runId);
  const mismatch = theirs.findIndex((e, i) => !isDeepStrictEqual(e, events[i]));
  if (theirs.length > events.length || mismatch !== -1) {
    const at = mismatch === -1 ? events.length + 1 : mismatch + 1;
    return `the target's log differs from the source's at event ${at}`;
  }
  return theirs.length;
}

async function copyRun(from: RunStore, to: RunStore, runId: string): Promise<CopiedRun> {
  const events = await from.events(runId);
  // A run moved to this target by an earlier copy goes on there: the target holds its whole log up to the
  // move (and what it did since), never the move itself, which would end the copy that goes on.
  const last = events.at(-1)?.event;
  if (last?.type === "run_moved") {
    const before = events.slice(0, -1);
    const theirs = (await to.findRun(runId)) ? await to.events(runId) : [];
    const movedHere = before.length > 0 && theirs.length >= before.length && before.every((e, i) => isDeepStrictEqual(e, theirs[i]));
    if (movedHere && !isDeepStrictEqual(theirs[before.length], events.at(-1))) {
      return { runId, result: "moved", events: 0, why: `moved to ${last.to} by an earlier copy; it goes on there` };
    }
  }
  const have = await prefixInTarget(to, runId, events);
  if (typeof have === "string") return { runId, result: "conflict", events: 0, why: have };
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
