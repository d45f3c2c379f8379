/**
 * @module
 * The notes a report and the viewer's comparison page add: per environment variant, which constants
 * normalized its runs (the calibration entry of each machine class, or the paper's or declared ones) and
 * how many runs each, so that a reader sees what the normalized scores rest on.
 */
import { compareText } from "../core/compare-text.js";
import type { AnalysisRun } from "./analysis-run.js";

/** A note per environment variant: which constants (calibration entries) normalized its runs, and how many each. */
export function normalizedByNotes(runs: readonly AnalysisRun[]): string[] {
  const byVariant = new Map<string, Map<string, number>>();
  for (const r of runs) {
    const key = `${r.environment}/${r.variant ?? "unknown"}`;
    const entries = byVariant.get(key) ?? new Map<string, number>();
    const by = r.normalizedBy ?? "unknown";
    entries.set(by, (entries.get(by) ?? 0) + 1);
    byVariant.set(key, entries);
  }
  return [...byVariant]
    .sort(([a], [b]) => compareText(a, b))
    .map(([key, entries]) => {
      const list = [...entries].sort(([a], [b]) => compareText(a, b)).map(([by, n]) => `${by} (${n} run${n === 1 ? "" : "s"})`);
      return `${key} normalized by ${list.join("; ")}.`;
    });
}
