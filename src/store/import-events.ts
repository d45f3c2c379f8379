/**
 * @module
 * What every store checks before it imports events under their own sequence numbers and timestamps
 * (`RunStore.importEvents`, used by `rebench store copy`): they continue the run's log exactly where the
 * target's copy ends, without gaps, and each is a valid event. The summary is the same fold as for appends.
 */
import { ConflictError, parseWith, RunEvent, type RunSpec, type RunState, type RunSummary, type StoredEvent, summarize } from "../core/index.js";

export interface CheckedImport {
  summary: RunSummary;
  parsed: StoredEvent[];
}

export function checkImport(runId: string, current: RunSummary | undefined, events: readonly StoredEvent[], location: string): CheckedImport {
  let summary = current;
  let expected = (current?.lastSeq ?? 0) + 1;
  const parsed: StoredEvent[] = [];
  for (const stored of events) {
    if (stored.runId !== runId) throw new ConflictError(`an event of run ${stored.runId} was imported as run ${runId}`);
    if (stored.seq !== expected) {
      throw new ConflictError(`run ${runId} in ${location} ends at event ${expected - 1}; the imported events start at ${stored.seq}, not ${expected}`, {
        hint: "copy the run's whole log, or the events after the target's last one",
      });
    }
    const event = parseWith(RunEvent, stored.event, `event ${stored.seq} of run ${runId}`);
    const next: StoredEvent = { runId, seq: stored.seq, event };
    summary = summarize(summary, next);
    parsed.push(next);
    expected += 1;
  }
  if (summary === undefined) throw new ConflictError(`run ${runId}: nothing to import`);
  return { summary, parsed };
}

/** The first eight columns of a `runs` row: id, environment, variant, task, participant kind and alias, batch, state. */
export function runColumns(id: string, spec: RunSpec, state: RunState): unknown[] {
  return [id, spec.environment, spec.variant, spec.task, spec.participant.kind, spec.participant.alias, spec.batchId ?? null, state];
}
