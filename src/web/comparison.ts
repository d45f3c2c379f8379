/**
 * @module
 * The comparison page: `rebench report`'s tables and figures computed from the store as it is now, over the
 * runs the page's filters keep (environment, variant, participant, task; budgets as `--budgets`), one
 * section per task. The same
 * analysis functions and renderers as the report, so the page and `report.html` cannot disagree.
 */

import type { AnalysisRun } from "../analysis/analysis-run.js";
import { analysisRunFromStore } from "../analysis/analysis-run-from-store.js";
import { buildReport } from "../analysis/build-report.js";
import { normalizedByNotes } from "../analysis/normalized-by-notes.js";
import { parseBudgets } from "../analysis/parse-budgets.js";
import { figureSvg } from "../analysis/render/figure-svg.js";
import { reportFigures } from "../analysis/render/report-figures.js";
import { reportTables } from "../analysis/render/report-tables.js";
import { compareText, InvalidInputError, type RunSummary } from "../core/index.js";
import type { RunStore } from "../store/index.js";
import type { ComparisonSection, ComparisonView } from "./api-types.js";
import { scoresHidden } from "./publish.js";

export interface ComparisonFilters {
  environment?: string;
  variant?: string;
  participant?: string;
  /** Only this task (`main`, `hidden_score`, ...); default every task, each in a section of its own. */
  task?: string;
  /** As `rebench report --budgets`; default the runs' own time limits (as `rebench main` reports) and 2h, 8h, 32h. */
  budgets?: string;
  /** Bootstrap replicates; default 200 (the page answers in well under a second; the report's default is 1000). */
  bootstrap?: number;
}

/**
 * Runs of different tasks are never pooled: a `hidden_score` run (no score feedback) and a `main` run of the
 * same participant measure different things, so each task is a report of its own (`main` first).
 */
export async function comparison(store: RunStore, filters: ComparisonFilters, options: { publish?: boolean } = {}): Promise<ComparisonView> {
  const summaries = await store.listRuns({
    states: ["finished"],
    ...(filters.environment ? { environment: filters.environment as RunSummary["spec"]["environment"] } : {}),
    ...(filters.variant ? { variant: filters.variant as RunSummary["spec"]["variant"] } : {}),
    ...(filters.participant ? { participant: filters.participant } : {}),
  });
  const runs: AnalysisRun[] = [];
  const skipped: Record<string, number> = {};
  const skip = (reason: string) => (skipped[reason] = (skipped[reason] ?? 0) + 1);
  const tasks = new Set<string>();
  const logs = await store.scoreLogs(summaries.map((s) => s.id));
  for (const summary of summaries) {
    if (options.publish && scoresHidden(summary.spec)) {
      skip("its task hides score values (left out of a published copy)");
      continue;
    }
    tasks.add(summary.spec.task);
    if (filters.task && summary.spec.task !== filters.task) continue;
    const result = analysisRunFromStore(summary, logs.get(summary.id) ?? []);
    if (result.kind === "run") runs.push(result.run);
    else skip(result.reason);
  }
  const notes = Object.entries(skipped)
    .sort(([a], [b]) => compareText(a, b))
    .map(([reason, n]) => `Left out ${n} run(s): ${reason}.`);
  const budgetsText = filters.budgets?.trim() || defaultBudgets(runs);
  const budgets = parseBudgets(budgetsText);
  const bootstrap = filters.bootstrap ?? 200;
  if (!Number.isInteger(bootstrap) || bootstrap < 0) throw new InvalidInputError(`bootstrap must be an integer >= 0, got ${bootstrap}`);
  const sections: ComparisonSection[] = taskOrder([...new Set(runs.map((r) => r.task))]).map((task) => {
    const own = runs.filter((r) => r.task === task);
    const report = buildReport(own, { budgets, bootstrap, seed: 0 });
    return {
      task,
      runs: own.length,
      notes: normalizedByNotes(own),
      tables: reportTables(report),
      figures: reportFigures(report).map((figure) => ({ name: figure.name, title: figure.title, svg: figureSvg(figure) })),
    };
  });
  if (runs.length === 0) notes.push("No finished runs with a time limit and normalization constants match: nothing to compare.");
  return {
    source: store.location,
    runs: runs.length,
    notes,
    tasks: taskOrder([...tasks]),
    sections,
    filters: { ...pick(filters), budgets: budgetsText },
  };
}

/** `main` first (the benchmark's own task), then the others by name. */
function taskOrder(tasks: string[]): string[] {
  return tasks.sort((a, b) => Number(b === "main") - Number(a === "main") || compareText(a, b));
}

/** The runs' own per-run limits (one run is then one allocation, as `rebench main` reports) and 2h, 8h, 32h. */
export function defaultBudgets(runs: readonly AnalysisRun[]): string {
  const seconds = new Set([...runs.map((r) => r.timeLimitSeconds).slice(0, 1000), 7200, 28800, 115200]);
  const label = (s: number) => (s % 3600 === 0 ? `${s / 3600}h` : s % 60 === 0 ? `${s / 60}m` : `${s}s`);
  return [...seconds]
    .sort((a, b) => a - b)
    .slice(0, 6)
    .map(label)
    .join(",");
}

function pick(filters: ComparisonFilters): Omit<ComparisonView["filters"], "budgets"> {
  return {
    ...(filters.environment ? { environment: filters.environment } : {}),
    ...(filters.variant ? { variant: filters.variant } : {}),
    ...(filters.participant ? { participant: filters.participant } : {}),
    ...(filters.task ? { task: filters.task } : {}),
  };
}
