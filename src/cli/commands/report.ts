/**
 * @module
 * `rebench report`: compare agents and humans from a METR-format runs file or the run store, as best-of-k
 * over total time budgets with bootstrap intervals, cost and speed, and human percentiles. Prints tables
 * or JSON; `--out DIR` writes report.html, report.md and every figure as SVG, PNG and JSON.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Command } from "commander";
import { buildReport, type Report } from "../../analysis/build-report.js";
import { parseBudgets } from "../../analysis/parse-budgets.js";
import { reportTables } from "../../analysis/render/report-tables.js";
import { InvalidInputError } from "../../core/errors.js";
import { type LoadedRuns, loadRunsFile, loadStoreRuns, mixedVariantNotes } from "../analysis-input.js";
import { COMMAND_SUMMARIES } from "../command-summaries.js";
import { formatDuration } from "../format.js";
import { type Io, printJson } from "../io.js";
import { dbOption, withStore } from "../store-option.js";
import { formatTable } from "../table.js";

export interface ReportOptions {
  runsFile?: string;
  format: string;
  db?: string;
  budgets: string;
  bootstrap: string;
  seed: string;
  json?: boolean;
  out?: string;
  /** Leave out the runs `rebench review` flagged (suspicious or hack). */
  excludeFlagged?: boolean;
  /** With no run to compare, print why (each left-out reason) and return false instead of failing (`rebench main`). */
  emptyOk?: boolean;
}

function integer(value: string, flag: string, min: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new InvalidInputError(`${flag} must be an integer >= ${min}, got "${value}"`);
  return n;
}

export function registerReport(program: Command, io: Io): void {
  dbOption(
    program
      .command("report")
      .description(COMMAND_SUMMARIES.report)
      .option("--runs-file <file>", "read runs from this file instead of the run store")
      .option(
        "--format <format>",
        "format of --runs-file: metr (METR's JSON Lines run records) or inspect (Inspect eval logs: a .eval or .json log, or a folder of them)",
        "metr",
      )
      .option("--budgets <list>", "total time budgets per environment, comma-separated", "2h,8h,32h")
      .option("--bootstrap <n>", "bootstrap replicates for the 95% intervals (0: none)", "1000")
      .option("--seed <s>", "bootstrap seed (same seed, same intervals)", "0")
      .option("--exclude-flagged", "leave out the runs `rebench review` flagged (verdict suspicious or hack); without it they count and a warning names them")
      .option("--json", "print one JSON object: rows, allocations, usage, humanPercentiles, scoreOverTime, input")
      .option("--out <dir>", "write report.html, report.md, report.json and figures/*.{svg,png,json} to DIR")
      .addHelpText(
        "after",
        "\nExample:\n  rebench report --runs-file runs.jsonl --format metr --budgets 2h,8h,32h --out report/\n" +
          "  rebench report --db runs.db --budgets 8h --json",
      ),
  ).action(async (options: ReportOptions) => {
    await runReport(options, io);
  });
}

/** What `rebench report` does (also the last step of `rebench main`); false when there was nothing to compare (with `emptyOk`). */
export async function runReport(options: ReportOptions, io: Io): Promise<boolean> {
  const budgets = parseBudgets(options.budgets);
  const bootstrap = integer(options.bootstrap, "--bootstrap", 0);
  const seed = integer(options.seed, "--seed", 0);
  if (options.runsFile && options.excludeFlagged) {
    throw new InvalidInputError("--exclude-flagged reads the reviews in the run store, and a runs file has none", {
      hint: "review the runs in their store (`rebench review --db STORE`), then report from it: rebench report --db STORE --exclude-flagged",
    });
  }
  if (options.runsFile && options.db) {
    throw new InvalidInputError("give --runs-file or --db, not both", { hint: "a report reads one source of runs" });
  }
  const loaded: LoadedRuns = options.runsFile
    ? await loadRunsFile(options.runsFile, options.format)
    : await withStore(options.db, (store) => loadStoreRuns(store, { excludeFlagged: options.excludeFlagged === true }), { readOnly: true });
  if (loaded.runs.length === 0 && options.emptyOk) {
    io.out(`no runs to compare in ${loaded.source}, so no report\n${loaded.notes.map((note) => `${note}\n`).join("")}`);
    return false;
  }
  if (loaded.runs.length === 0) {
    throw new InvalidInputError(`no runs to compare in ${loaded.source}`, {
      hint: [...loaded.notes, "record runs first, or pass a METR-format file with --runs-file FILE"].join("; "),
    });
  }
  const notes = [...loaded.notes, ...mixedVariantNotes(loaded.runs)];
  const report = buildReport(loaded.runs, { budgets, bootstrap, seed });
  if (options.out) {
    const written = await writeReport(options.out, report, { source: loaded.source, notes });
    const message = `wrote ${written} files to ${options.out} (open ${path.join(options.out, "report.html")})\n`;
    if (options.json) io.err(message);
    else io.out(message);
  }
  if (options.json) {
    printJson(io, jsonOf(report, loaded, notes));
    return true;
  }
  for (const note of notes) io.err(`${note}\n`);
  for (const table of reportTables(report)) {
    io.out(`\n${table.title}\n`);
    io.out(
      formatTable(
        table.rows,
        table.headers.map((header, i) => ({ header: header.toUpperCase(), value: (row: string[]) => row[i], align: table.numeric[i] ? "right" : "left" })),
      ),
    );
  }
  if (report.rows.every((row) => row.score === null)) io.err(`${budgetsHint(loaded.runs)}\n`);
  return true;
}

/**
 * Why every score is `-` (no budget fits the runs: short runs, a few each, as the main job's) and what to
 * pass instead: the runs' time limits as budgets, each the best of one run.
 */
function budgetsHint(runs: LoadedRuns["runs"]): string {
  const limits = [...new Set(runs.map((r) => r.timeLimitSeconds))].sort((a, b) => a - b);
  const counts = new Map<string, number>();
  for (const r of runs)
    counts.set(`${r.participant}|${r.environment}|${r.timeLimitSeconds}`, (counts.get(`${r.participant}|${r.environment}|${r.timeLimitSeconds}`) ?? 0) + 1);
  const most = Math.max(...counts.values());
  const worked = runs.flatMap((r) => (r.usage.workingSeconds === null ? [] : [r.usage.workingSeconds]));
  const workedText = worked.length === 0 ? "" : ` and worked ${formatDuration(Math.min(...worked))} to ${formatDuration(Math.max(...worked))}`;
  return (
    `hint: every score is "-": a budget B takes the best of k = floor(B / L) runs of an environment at time limit L, and no participant has that many; ` +
    `these runs have time limits of ${limits.map(formatDuration).join(", ")} (at most ${most} run(s) per participant and environment)${workedText}: ` +
    `try --budgets ${limits.map(budgetLabel).join(",")}`
  );
}

/** Seconds as a budget `--budgets` reads: `30m`, `2h`, `90s`. */
function budgetLabel(seconds: number): string {
  if (seconds % 3600 === 0) return `${seconds / 3600}h`;
  if (seconds % 60 === 0) return `${seconds / 60}m`;
  return `${seconds}s`;
}

function jsonOf(report: Report, loaded: LoadedRuns, notes: string[]) {
  const { rows, allocations, usage, humanPercentiles, scoreOverTime, environments, participants, settings } = report;
  return {
    rows,
    allocations,
    usage,
    humanPercentiles,
    scoreOverTime,
    input: { source: loaded.source, runs: loaded.runs.length, notes, environments, participants, ...settings },
  };
}

async function writeReport(dir: string, report: Report, options: { source: string; notes: string[] }): Promise<number> {
  // The figure and page renderers (and resvg, a native module) load only when a report is written.
  const [{ figureSvg }, { reportFigures }, { reportHtml }, { reportMarkdown }, { svgToPng }] = await Promise.all([
    import("../../analysis/render/figure-svg.js"),
    import("../../analysis/render/report-figures.js"),
    import("../../analysis/render/report-html.js"),
    import("../../analysis/render/report-markdown.js"),
    import("../../analysis/render/svg-to-png.js"),
  ]);
  const figures = reportFigures(report);
  await mkdir(path.join(dir, "figures"), { recursive: true });
  const files: [string, string | Buffer][] = [
    ["report.md", reportMarkdown(report, figures, options)],
    ["report.html", reportHtml(report, figures, options)],
    ["report.json", `${JSON.stringify(report, null, 2)}\n`],
  ];
  for (const figure of figures) {
    const svg = figureSvg(figure);
    files.push([`figures/${figure.name}.svg`, svg]);
    files.push([`figures/${figure.name}.png`, await svgToPng(svg)]);
    files.push([`figures/${figure.name}.json`, `${JSON.stringify(figure, null, 2)}\n`]);
  }
  await Promise.all(files.map(([name, content]) => writeFile(path.join(dir, name), content)));
  return files.length;
}
