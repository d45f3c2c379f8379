/**
 * @module
 * A score log's final raw score: min, max or last valid entry. Invalid, timed-out and failed entries
 * are skipped; a log without a valid entry has no score (never a number standing in for one).
 */
import type { Aggregation } from "./manifest.js";
import { type ScoreLogEntry, validRaw } from "./score.js";

export type AggregateResult = { kind: "scored"; raw: number /** index of the chosen entry in the log */; index: number } | { kind: "noScore"; entries: number };

/** Whether a new valid raw score replaces the current aggregate. */
export function replacesAggregate(current: number | undefined, raw: number, aggregation: Aggregation): boolean {
  if (current === undefined) return true;
  switch (aggregation) {
    case "last":
      return true;
    case "min":
      return raw < current;
    case "max":
      return raw > current;
  }
}

export function aggregateScoreLog(log: readonly Pick<ScoreLogEntry, "outcome">[], aggregation: Aggregation): AggregateResult {
  let best: { raw: number; index: number } | undefined;
  log.forEach((entry, index) => {
    const raw = validRaw(entry);
    if (raw !== undefined && replacesAggregate(best?.raw, raw, aggregation)) best = { raw, index };
  });
  return best ? { kind: "scored", ...best } : { kind: "noScore", entries: log.length };
}
