/**
 * @module
 * The report's figures as data: suite score against total time budget (log axis, bootstrap bands, one
 * line per participant), per-environment bars at each budget, and mean score over working time for each
 * environment with score logs. Colours follow the participant, so a participant looks the same everywhere.
 */
import type { Report } from "../build-report.js";
import type { Figure, LineFigure } from "./figure.js";

const HUMAN_COLOR = "#222222";
const PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"];
const DASHES = [undefined, "8 4", "2 3", "10 3 2 3"];
const SCORE_AXIS = "normalized score (0 = starting solution, 1 = reference)";
const REFERENCE = [{ y: 1, label: "reference solution" }];

export function reportFigures(report: Report): Figure[] {
  const agents = report.participants.filter((p) => p.name !== "human").map((p) => p.name);
  const color = (participant: string) => (participant === "human" ? HUMAN_COLOR : PALETTE[agents.indexOf(participant) % PALETTE.length]!);
  const percent = Math.round(report.settings.confidence * 100);
  const figures: Figure[] = [
    {
      kind: "line",
      name: "suite-score-vs-budget",
      title: "Suite score vs total time budget (best-of-k)",
      xLabel: "total time budget per environment (hours, log scale)",
      yLabel: `mean ${SCORE_AXIS}`,
      xScale: "log",
      xTicks: report.settings.budgets.map((b) => ({ value: b.seconds / 3600, label: b.label })),
      guides: REFERENCE,
      series: report.participants.map((p) => ({
        name: p.name,
        color: color(p.name),
        points: report.rows
          .filter((row) => row.participant === p.name && row.score !== null)
          .map((row) => ({ x: row.budgetSeconds / 3600, y: row.score!, ...(row.ci ? { lo: row.ci[0], hi: row.ci[1] } : {}) })),
      })),
      note: `Bands: ${percent}% bootstrap intervals (${report.settings.bootstrap} replicates, seed ${report.settings.seed}); each point uses the participant's best observed runs-per-budget allocation.`,
    },
  ];
  for (const budget of report.settings.budgets) {
    figures.push({
      kind: "bar",
      name: `environment-scores-${budget.label}`,
      title: `Score by environment, total budget ${budget.label} per environment (best-of-k)`,
      yLabel: SCORE_AXIS,
      categories: report.environments,
      guides: REFERENCE,
      series: report.participants.map((p) => {
        const row = report.rows.find((r) => r.participant === p.name && r.budget === budget.label);
        return { name: p.name, color: color(p.name), values: report.environments.map((e) => row?.environments[e]?.score ?? null) };
      }),
      note: "n/a: fewer runs than the budget's k at every per-run limit (never extrapolated).",
    });
  }
  const environments = [...new Set(report.scoreOverTime.map((c) => c.environment))];
  for (const environment of environments) {
    const curves = report.scoreOverTime.filter((c) => c.environment === environment);
    const limits = [...new Set(curves.map((c) => c.timeLimitSeconds))].sort((a, b) => a - b);
    const figure: LineFigure = {
      kind: "line",
      name: `score-over-time-${environment}`,
      title: `${environment}: mean score over working time`,
      xLabel: "working time since the run started (hours)",
      yLabel: SCORE_AXIS,
      xScale: "linear",
      guides: REFERENCE,
      series: curves.map((c) => ({
        name: `${c.participant}, ${hours(c.timeLimitSeconds)} runs (n=${c.runs})`,
        color: color(c.participant),
        step: true,
        ...(DASHES[limits.indexOf(c.timeLimitSeconds) % DASHES.length] ? { dash: DASHES[limits.indexOf(c.timeLimitSeconds) % DASHES.length]! } : {}),
        points: c.points.map((p) => ({ x: p.seconds / 3600, y: p.score })),
      })),
      note: "Best valid score so far (last valid for Scaling Law), normalized, averaged over runs; 0 before a run's first valid score.",
    };
    figures.push(figure);
  }
  return figures;
}

function hours(seconds: number): string {
  return seconds % 3600 === 0 ? `${seconds / 3600}h` : `${Math.round(seconds / 60)}m`;
}
