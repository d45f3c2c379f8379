/**
 * @module
 * Rows of `(seq, type)` as read from a type index (ordered by type, then seq) put back in the run's order.
 */
import type { RunEventType } from "../core/index.js";

/** The types by seq: index 0 is seq 1. Seqs are 1 to n without gaps (each append takes the next). */
export function inSeqOrder(rows: readonly { seq: number; type: RunEventType }[]): RunEventType[] {
  const types = new Array<RunEventType>(rows.length);
  for (const { seq, type } of rows) types[Number(seq) - 1] = type;
  return types;
}
