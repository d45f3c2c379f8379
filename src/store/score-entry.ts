/**
 * @module
 * The entry of a stored `score_logged` event, for reads of many score logs at once (`RunStore.scoreLogs`):
 * only the entry is checked, as the event's own schema checks it, not the whole event against every kind of
 * event (half the time of a report's read of 160,000 entries).
 */
import { ScoreLogEntry } from "../core/index.js";

export function scoreEntryFrom(payload: string): ScoreLogEntry {
  return ScoreLogEntry.parse((JSON.parse(payload) as { entry?: unknown }).entry);
}
