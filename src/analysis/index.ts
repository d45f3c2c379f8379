/**
 * @module
 * The analysis layer: pure functions that turn runs into the comparison of agents and humans
 * (normalized scores over time, score@k over total time budgets, bootstrap intervals, human
 * percentiles, cost and speed), the METR run-record importer/exporter, and the report's tables and figures.
 */
export * from "./analysis-run.js";
export * from "./analysis-run-from-store.js";
export * from "./bootstrap-score-at-k.js";
export * from "./build-report.js";
export * from "./compute-allocations.js";
export * from "./curve-value-at.js";
export * from "./environment-order.js";
export * from "./human-percentile.js";
export * from "./metr/metr-families.js";
export * from "./metr/metr-run-record.js";
export * from "./metr/parse-metr-runs.js";
export * from "./metr/to-metr-record.js";
export * from "./parse-budgets.js";
export * from "./quantile.js";
export * from "./render/figure.js";
export * from "./render/figure-svg.js";
export * from "./render/report-figures.js";
export * from "./render/report-html.js";
export * from "./render/report-markdown.js";
export * from "./render/report-tables.js";
export * from "./render/svg-to-png.js";
export * from "./score-at-k.js";
export * from "./score-at-k-weights.js";
export * from "./score-at-time.js";
export * from "./score-curve.js";
export * from "./seeded-random.js";
export * from "./suite-mean.js";
export * from "./usage-at-budget.js";
