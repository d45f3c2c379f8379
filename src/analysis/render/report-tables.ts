/**
 * @module
 * The report's tables as text cells, drawn the same way in the terminal, in report.md and in report.html:
 * scores by budget (allocation, interval, coverage, human percentile), cost and speed, tokens and
 * dollars by kind, and the per-environment breakdown.
 */
import type { Report } from "../build-report.js";

export interface ReportTable {
  title: string;
  headers: string[];
  /** Which columns hold numbers (right-aligned). */
  numeric: boolean[];
  rows: string[][];
  note: string;
}

const DASH = "-";

export function reportTables(report: Report): ReportTable[] {
  const percent = Math.round(report.settings.confidence * 100);
  const all = report.environments.length;
  const key = (participant: string, budget: string) => `${participant}\u0000${budget}`;
  const usage = new Map(report.usage.map((u) => [key(u.participant, u.budget), u]));
  const percentiles = new Map(report.humanPercentiles.map((p) => [key(p.participant, p.budget), p]));
  return [
    {
      title: "Score by total time budget",
      headers: ["participant", "budget", "allocation", "score", `${percent}% CI`, "coverage", "human percentile"],
      numeric: [false, false, false, true, false, true, true],
      rows: report.rows.map((row) => {
        const p = percentiles.get(key(row.participant, row.budget));
        return [
          row.participant,
          row.budget,
          row.allocation ? `${row.allocation.k} × ${duration(row.allocation.runTimeLimitSeconds)}` : DASH,
          fixed(row.score, 3),
          row.ci ? `[${fixed(row.ci[0], 3)}, ${fixed(row.ci[1], 3)}]` : DASH,
          `${row.coverage}/${all}`,
          p?.percentile === null || p === undefined ? DASH : `${fixed(p.percentile, 0)}%`,
        ];
      }),
      note:
        "score: equal-weight mean over the covered environments of score@k, the expected best of k runs at the " +
        "per-run limit (Scaling Law: the mean of runs); allocation: the best observed k × per-run limit for the budget; " +
        `CI: ${report.settings.bootstrap}-replicate bootstrap within environments (seed ${report.settings.seed}); ` +
        "human percentile: mean over environments of the rank among human final scores.",
    },
    {
      title: "Cost and speed",
      headers: ["participant", "budget", "tokens / env", "dollars / env", "hours / env", "score calls / hour", "runs used"],
      numeric: [false, false, true, true, true, true, true],
      rows: report.rows.map((row) => {
        const u = usage.get(key(row.participant, row.budget))!;
        return [
          row.participant,
          row.budget,
          compact(u.tokens),
          u.dollars === null ? DASH : `$${fixed(u.dollars, 2)}`,
          fixed(u.hours, 1),
          fixed(u.scoreCallsPerHour, 1),
          String(u.runs),
        ];
      }),
      note:
        "Per environment for the chosen allocation: k times the mean use of one run, averaged over the covered environments. " +
        "Tokens: every token the model read or wrote (input of every kind, output with reasoning). " +
        "Score calls per hour: protected scoring calls per working hour (unknown for METR's records, and under a minute of working time).",
    },
    {
      title: "Tokens and dollars by kind",
      headers: [
        "participant",
        "budget",
        "input",
        "cache read",
        "cache write",
        "output",
        "of it reasoning",
        "$ input",
        "$ cache read",
        "$ cache write",
        "$ output",
      ],
      numeric: [false, false, true, true, true, true, true, true, true, true, true],
      rows: report.rows
        .filter((row) => usage.get(key(row.participant, row.budget))!.byKind !== null)
        .map((row) => {
          const k = usage.get(key(row.participant, row.budget))!.byKind!;
          const usd = (x: number | undefined) => (x === undefined ? DASH : `$${fixed(x, 2)}`);
          return [
            row.participant,
            row.budget,
            compact(k.input),
            compact(k.cacheRead),
            compact(k.cacheWrite),
            compact(k.output),
            compact(k.reasoning),
            usd(k.dollars?.input),
            usd(k.dollars?.cacheRead),
            usd(k.dollars?.cacheWrite),
            usd(k.dollars?.output),
          ];
        }),
      note:
        "Per environment for the chosen allocation, as in Cost and speed, for the runs that record kinds (rebench's agent runs, not METR's records). " +
        "Input is charged at the full price; cache reads and writes at the model's cache prices (src/agents/models/prices.ts, REBENCH_PRICES); " +
        "reasoning is part of the output and priced as output. '-' dollars: some generation did not price its kinds.",
    },
    {
      title: "Score by environment (best allocation)",
      headers: ["participant", "budget", ...report.environments],
      numeric: [false, false, ...report.environments.map(() => true)],
      rows: report.rows.map((row) => [
        row.participant,
        row.budget,
        ...report.environments.map((e) => {
          const s = row.environments[e];
          return s?.score === null || s === undefined ? `${DASH} (n=${s?.n ?? 0})` : fixed(s.score, 3);
        }),
      ]),
      note: "score@k per environment; '- (n=N)': only N runs, fewer than k, so the environment is missing (never extrapolated).",
    },
  ];
}

function fixed(value: number | null, digits: number): string {
  return value === null ? DASH : value.toFixed(digits);
}

function compact(value: number | null): string {
  if (value === null) return DASH;
  if (value >= 1e6) return `${(value / 1e6).toFixed(1)}M`;
  if (value >= 1e3) return `${(value / 1e3).toFixed(1)}k`;
  return value.toFixed(0);
}

function duration(seconds: number): string {
  if (seconds % 3600 === 0) return `${seconds / 3600}h`;
  if (seconds % 60 === 0) return `${seconds / 60}m`;
  return `${seconds}s`;
}
