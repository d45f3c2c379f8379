/**
 * @module
 * Names as people count them: `model-2` before `model-10`. Runs of digits compare as numbers, the rest as
 * `compareText` does (by UTF-16 code units, no locale), and names equal as numbers (`a-2`, `a-02`) fall back
 * to `compareText`, so the order is total and the same on every machine.
 */
import { compareText } from "./compare-text.js";

const CHUNKS = /\d+|\D+/g;

/** Negative, zero or positive as `a` sorts before, with or after `b`, digits counted as numbers. */
export function compareNatural(a: string, b: string): number {
  const x = a.match(CHUNKS) ?? [];
  const y = b.match(CHUNKS) ?? [];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const p = x[i]!;
    const q = y[i]!;
    if (p === q) continue;
    if (isDigits(p) && isDigits(q)) {
      const m = p.replace(/^0+(?=\d)/, "");
      const n = q.replace(/^0+(?=\d)/, "");
      if (m.length !== n.length) return m.length - n.length;
      if (m !== n) return compareText(m, n);
      continue;
    }
    return compareText(p, q);
  }
  return x.length - y.length || compareText(a, b);
}

function isDigits(chunk: string): boolean {
  const code = chunk.charCodeAt(0);
  return code >= 48 && code <= 57;
}
