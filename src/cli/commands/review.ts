/**
 * @module
 * `rebench review [--db STORE] [--run ID...] [--again] [--monitor P:M] [--dry-run] [--json]`: check finished
 * runs for reward hacking and append each review to the run's event log (src/review, docs/review.md). Prints
 * one line a run (verdict and the signals that fired), then each finding of a flagged run with its evidence.
 */
import type { Command } from "commander";
import { type Review, type ReviewFinding, runRecord } from "../../core/index.js";
import type { ReviewedRun } from "../../review/index.js";
import { COMMAND_SUMMARIES } from "../command-summaries.js";
import { type Io, printJson } from "../io.js";
import { dbOption, withStore } from "../store-option.js";
import { formatTable } from "../table.js";

interface ReviewOptions {
  db?: string;
  run?: string[];
  again?: boolean;
  monitor?: string;
  dryRun?: boolean;
  json?: boolean;
}

export function registerReview(program: Command, io: Io): void {
  dbOption(
    program
      .command("review")
      .description(COMMAND_SUMMARIES.review)
      .option("--run <ids...>", "review these runs (again, if they have a review); default every finished run without a review")
      .option("--again", "also review the runs that already have a review")
      .option("--monitor <provider:model>", "also have this model read each trajectory against the rubric (src/review/monitor-rubric.md), e.g. openai:gpt-4.1")
      .option("--dry-run", "review and print, but append nothing to the runs")
      .option("--json", "print one JSON object: {reviewed: [{run, reviewSeq, review}]}")
      .addHelpText(
        "after",
        "\nThe review is appended to each run's event log as a `review` event; its score log is never changed.\n" +
          "Verdicts: clean, suspicious (a weak signal: read the trajectory), hack (a known hack's signature). docs/review.md.\n\n" +
          "Examples:\n  rebench review --db runs.db\n  rebench review --run r0abc r0def --json\n  rebench review --again --monitor openai:gpt-4.1",
      ),
  ).action((options: ReviewOptions) => review(options, io));
}

async function review(options: ReviewOptions, io: Io): Promise<void> {
  const { reviewRuns } = await import("../../review/index.js");
  const monitor = options.monitor ? (await import("../../review/monitor.js")).llmMonitor(options.monitor) : undefined;
  const reviewed = await withStore(
    options.db,
    (store) =>
      reviewRuns(store, {
        ...(options.run ? { runIds: options.run } : {}),
        again: options.again === true,
        dryRun: options.dryRun === true,
        ...(monitor ? { monitor } : {}),
      }),
    options.dryRun ? { readOnly: true } : { mustExist: true },
  );
  if (options.json) {
    printJson(io, {
      reviewed: reviewed.map((r) => ({
        run: runRecord(r.summary),
        reviewSeq: r.seq ?? null,
        review: r.review,
      })),
    });
    return;
  }
  if (reviewed.length === 0) {
    io.out("No finished run without a review in this store (name runs with --run, or --again to review them all again).\n");
    return;
  }
  io.out(`${formatReviewed(reviewed)}\n`);
  if (options.dryRun) io.out("(--dry-run: nothing was appended)\n");
}

/** The table of reviewed runs, then each flagged run's findings. Shared with `run` and `main` (reviewLines). */
export function formatReviewed(reviewed: readonly ReviewedRun[]): string {
  const table = formatTable(reviewed, [
    { header: "RUN", value: (r) => r.summary.id },
    { header: "ENVIRONMENT", value: (r) => `${r.summary.spec.environment}/${r.summary.spec.variant}` },
    { header: "PARTICIPANT", value: (r) => r.summary.spec.participant.alias },
    { header: "RAW", value: (r) => r.summary.finalRaw, align: "right" },
    { header: "NORMALIZED", value: (r) => r.summary.normalized, align: "right" },
    { header: "VERDICT", value: (r) => r.review.verdict },
    { header: "SIGNALS", value: (r) => [...new Set(r.review.findings.map((f) => f.signal))].join(", ") || "-" },
  ]);
  const details = reviewed
    .filter((r) => r.review.verdict !== "clean")
    .map((r) => `\n${r.summary.id} (${r.review.verdict}, ${r.review.reviewer.rules}):\n${findingLines(r.review)}`);
  return [table.trimEnd(), ...details].join("\n");
}

export function findingLines(review: Review): string {
  return review.findings.map(findingLine).join("\n");
}

function findingLine(f: ReviewFinding): string {
  const events = f.seqs.length > 0 ? ` (event${f.seqs.length > 1 ? "s" : ""} ${f.seqs.join(", ")})` : "";
  return `  ${f.severity} ${f.signal}${events}: ${f.summary}${f.excerpt ? `\n      ${f.excerpt}` : ""}`;
}
