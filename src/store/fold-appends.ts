/**
 * @module
 * What every store does with new events before it writes them (`RunStore.append`, `appendMany`): each is
 * checked and stamped (now, unless it carries its own `ts`), then numbered after the run's last event and
 * folded into the summary, one after the other. The stores differ only in how they write the result.
 */
import { type NewRunEvent, parseWith, RunEvent, type RunId, type RunSummary, type StoredEvent, summarize } from "../core/index.js";
import type { AppendResult } from "./store.js";

/** Check and stamp new events of a run (an invalid one throws before anything is written). */
export function parseNewEvents(runId: RunId, inputs: readonly NewRunEvent[]): RunEvent[] {
  const now = new Date().toISOString();
  return inputs.map((input) => parseWith(RunEvent, { ...input, ts: input.ts ?? now }, `an event of run ${runId}`));
}

/** Number `events` after `current`'s last one and fold each into the summary: each event's result, in order. */
export function foldAppends(runId: RunId, current: RunSummary, events: readonly RunEvent[]): AppendResult[] {
  const results: AppendResult[] = [];
  let summary = current;
  for (const event of events) {
    const stored: StoredEvent = { runId, seq: summary.lastSeq + 1, event };
    summary = summarize(summary, stored);
    results.push({ stored, summary });
  }
  return results;
}
