/**
 * @module
 * `rebench store copy --from A --to B`: move runs between stores (a SQLite file and a PostgreSQL database,
 * either way), every event under its own number and time; copying again continues runs that went on since.
 */
import type { Command } from "commander";
import { ConflictError } from "../../core/index.js";
import { type CopyReport, copyRuns, openStore, storeDisplay } from "../../store/index.js";
import { COMMAND_SUMMARIES } from "../command-summaries.js";
import { type Io, printJson } from "../io.js";

export function registerStore(program: Command, io: Io): void {
  const store = program.command("store").description(COMMAND_SUMMARIES.store);
  store
    .command("copy")
    .description("copy runs (their whole event logs) from one store to another; again, it continues runs that went on since")
    .requiredOption("--from <store>", "the source: a SQLite file or postgres://USER@HOST/DB")
    .requiredOption("--to <store>", "the target: a SQLite file or postgres://USER@HOST/DB (created or migrated as needed)")
    .option("--run <ids...>", "only these runs")
    .option("--json", "print JSON")
    .addHelpText(
      "after",
      "\nExamples:\n  rebench store copy --from ~/.rebench/rebench.db --to postgres://rebench@db.example/rebench\n" +
        "  rebench store copy --from postgres://rebench@db.example/rebench --to backup.db",
    )
    .action(async (options: { from: string; to: string; run?: string[]; json?: boolean }) => {
      const from = await openStore(options.from);
      try {
        const to = await openStore(options.to);
        try {
          const report = await copyRuns(from, to, {
            ...(options.run ? { runIds: options.run } : {}),
            onRun: (run) => {
              if (!options.json && run.result === "conflict") io.err(`conflict ${run.runId}: ${run.why}\n`);
            },
          });
          const count = (result: string) => report.runs.filter((r) => r.result === result).length;
          if (options.json) printJson(io, copyJson(options.from, options.to, report));
          else {
            io.out(
              `copied ${report.events} event(s) from ${from.location} to ${to.location}: ${count("copied")} new run(s), ` +
                `${count("continued")} continued, ${count("same")} already there, ${count("conflict")} in conflict\n`,
            );
          }
          const conflicts = report.runs.filter((r) => r.result === "conflict");
          if (conflicts.length > 0) {
            throw new ConflictError(`${conflicts.length} run(s) were not copied: their copy in ${to.location} differs from the source`, {
              hint: `\`rebench runs show ${conflicts[0]!.runId} --events --db ...\` on both stores shows where they part`,
            });
          }
        } finally {
          await to.close();
        }
      } finally {
        await from.close();
      }
    });
}

/**
 * What `--json` prints: each run by its `runId` (the run record's vocabulary, docs/runs.md "Runs as JSON"),
 * and the events copied as `eventsCopied` (`events` is a run's event count in the viewer's API).
 */
function copyJson(from: string, to: string, report: CopyReport) {
  return {
    from: storeDisplay(from),
    to: storeDisplay(to),
    runs: report.runs.map(({ events, ...run }) => ({ ...run, eventsCopied: events })),
    eventsCopied: report.events,
  };
}
