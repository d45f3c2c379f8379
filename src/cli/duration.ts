/**
 * @module
 * A duration as people write it on the command line: `30m`, `8h`, `1.5d`, `90s`, or a plain number of
 * seconds (`1800`). Used by every time-limit flag.
 */

import { parseBudgets } from "../analysis/parse-budgets.js";
import { InvalidInputError } from "../core/index.js";

/** Seconds in `text`; throws InvalidInputError naming the flag. */
export function parseDuration(text: string, flag: string): number {
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed) && Number(trimmed) > 0) return Number(trimmed);
  try {
    const [budget] = parseBudgets(trimmed);
    if (budget && !trimmed.includes(",")) return budget.seconds;
  } catch {
    // reported below, with the flag's name
  }
  throw new InvalidInputError(`${flag} must be a duration like 30m, 8h, 1.5d or a number of seconds, got "${text}"`);
}
