/**
 * @module
 * The order environments appear in tables and figures: the paper's order for the seven, then any other
 * name alphabetically.
 */
import { compareText } from "../core/compare-text.js";
import { PAPER_ENVIRONMENTS } from "../core/paper-environments.js";

/** The distinct names in `names`, in report order. */
export function environmentOrder(names: Iterable<string>): string[] {
  const rank = (name: string) => {
    const i = (PAPER_ENVIRONMENTS as readonly string[]).indexOf(name);
    return i === -1 ? PAPER_ENVIRONMENTS.length : i;
  };
  return [...new Set(names)].sort((a, b) => rank(a) - rank(b) || compareText(a, b));
}
