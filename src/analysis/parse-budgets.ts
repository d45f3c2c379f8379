/**
 * @module
 * Total time budgets as people write them (`2h,8h,32h`, `30m`, `1.5d`, `5400s`): parsed once, sorted
 * ascending, each keeping the label the user wrote for tables and file names.
 */
import { InvalidInputError } from "../core/errors.js";

export interface Budget {
  /** As written, e.g. `8h`. */
  label: string;
  seconds: number;
}

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, min: 60, h: 3600, d: 86400 };

/** Parse a comma-separated list of budgets; throws InvalidInputError naming the bad item. */
export function parseBudgets(text: string): Budget[] {
  const items = text
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  if (items.length === 0) throw new InvalidInputError("no budgets given", { hint: "for example --budgets 2h,8h,32h" });
  const budgets = items.map((label) => {
    const match = /^(\d+(?:\.\d+)?)(s|m|min|h|d)$/.exec(label);
    const seconds = match ? Number(match[1]) * UNIT_SECONDS[match[2]!]! : Number.NaN;
    if (!(seconds > 0)) {
      throw new InvalidInputError(`cannot read the budget "${label}"`, {
        hint: "write a number and a unit (s, m, h, d), comma-separated: --budgets 2h,8h,32h",
      });
    }
    return { label, seconds };
  });
  budgets.sort((a, b) => a.seconds - b.seconds);
  for (let i = 1; i < budgets.length; i++) {
    if (budgets[i]!.seconds === budgets[i - 1]!.seconds) {
      throw new InvalidInputError(`budgets "${budgets[i - 1]!.label}" and "${budgets[i]!.label}" are the same`);
    }
  }
  return budgets;
}
