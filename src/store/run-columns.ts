/**
 * @module
 * The `runs` columns both stores copy out of a run's summary with each event, so that the viewer's runs
 * list sorts and filters in the store without parsing summaries, the columns each sort key orders by, and
 * how event search folds case.
 */
import type { RunSummary } from "../core/index.js";
import type { RunSortKey } from "./store.js";

/** The column each sort key orders by. */
export const SORT_COLUMNS: Record<RunSortKey, string> = {
  created: "created_at",
  updated: "updated_at",
  environment: "environment",
  variant: "variant",
  participant: "participant_alias",
  state: "state",
  working: "working_seconds",
  scores: "score_calls",
  raw: "raw",
  normalized: "normalized",
};

/** The sortable columns of a summary, as the stores write them with each event. */
export function sortColumns(summary: RunSummary) {
  return {
    raw: summary.finalRaw ?? summary.currentRaw ?? null,
    normalized: summary.normalized ?? null,
    working: summary.usage.workingSeconds,
    scoreCalls: summary.scoreCalls,
  };
}

/** Lower-case ASCII letters only, as SQLite's lower() and PostgreSQL's under COLLATE "C" do (event search ignores ASCII case). */
export function asciiLower(text: string): string {
  return text.replace(/[A-Z]/g, (c) => c.toLowerCase());
}
