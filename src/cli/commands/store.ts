/**
 * @module
 * `rebench store copy --from A --to B`: move runs between stores (a SQLite file and a PostgreSQL database,
 * either way), every event under its own number and time; copying again continues runs that went on since.
 * Runs that have not ended are refused, or with --move-unfinished moved: ended in the source as `moved`,
 * they go on in the target only (src/store/copy-store.ts).
 */
import type { Command } from "commander";
import { ConflictError, type RunSummary } from "../../core/index.js";
import { liveDriver } from "../../runs/ownership.js";
import { type CopyReport, copyRuns, openStore, type RunStore, storeDisplay } from "../../store/index.js";
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
    .option(
      "--move-unfinished",
      "move the runs that have not ended (no live process may drive them): they end in the source as `moved` and go on in the target only (`rebench runs resume --db TARGET`)",
    )
    .option("--json", "print JSON")
    .addHelpText(
      "after",
      "\nExamples:\n  rebench store copy --from ~/.rebench/rebench.db --to postgres://rebench@db.example/rebench\n" +
        "  rebench store copy --from postgres://rebench@db.example/rebench --to backup.db\n" +
        "  rebench store copy --from runs.db --to postgres://rebench@db.example/rebench --move-unfinished",
    )
    .action(async (options: { from: string; to: string; run?: string[]; moveUnfinished?: boolean; json?: boolean }) => {
      // Only a move writes to the source (its run_moved events); a plain copy only reads it.
      const from = await openStore(options.from, options.moveUnfinished ? { mustExist: true } : { readOnly: true });
      try {
        const to = await openStore(options.to);
        try {
          const report = await copyRuns(from, to, {
            ...(options.run ? { runIds: options.run } : {}),
            ...(options.moveUnfinished ? { moveUnfinished: { to: to.location, movable: (run: RunSummary) => whyNotMovable(from, run) } } : {}),
            onRun: (run) => {
              if (options.json) return;
              if (run.result === "conflict" || run.result === "unfinished") io.err(`${run.result} ${run.runId}: ${run.why}\n`);
              if (run.result === "moved" && run.events > 0) io.err(`moved ${run.runId}: it goes on in ${to.location} only\n`);
            },
          });
          const count = (result: string) => report.runs.filter((r) => r.result === result).length;
          if (options.json) printJson(io, copyJson(options.from, options.to, report));
          else {
            io.out(
              `copied ${report.events} event(s) from ${from.location} to ${to.location}: ${count("copied")} new run(s), ` +
                `${count("continued")} continued, ${count("same")} already there, ${count("conflict")} in conflict` +
                `${count("moved") > 0 ? `, ${count("moved")} moved` : ""}${count("unfinished") > 0 ? `, ${count("unfinished")} not finished (not copied)` : ""}\n`,
            );
            if (report.runs.some((r) => r.result === "moved" && r.events > 0)) {
              io.out(`continue the moved runs there, on the host that holds their sandboxes: rebench runs resume --db ${storeDisplay(options.to)}\n`);
            }
          }
          const open = report.runs.filter((r) => r.result === "unfinished");
          if (open.length > 0) {
            const ids = open.map((r) => r.runId);
            throw new ConflictError(
              `${open.length} run(s) were not copied because they have not ended in ${from.location}: ${ids.slice(0, 10).join(", ")}${ids.length > 10 ? ", ..." : ""}`,
              {
                hint: options.moveUnfinished
                  ? "stop the processes that drive them (or let the runs end), then copy again"
                  : `a run is driven from one store only: finish them in the source (\`rebench runs resume --db ${storeDisplay(options.from)}\`) and copy again, ` +
                    "or move them with --move-unfinished (they end in the source as `moved` and go on in the target)",
              },
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

/** Why a run that has not ended cannot be moved to another store, or undefined when it can. */
async function whyNotMovable(store: RunStore, run: RunSummary): Promise<string | undefined> {
  const { driver, executor } = run.spec.config;
  if (driver === "cli") return "a run of `rebench start`, which `rebench score --dir DIR` drives from this store: submit it there first";
  if (driver === "human") return "a run of `rebench human`: it ends with the terminal that ran it";
  if (executor === "slurm") return "a run of the Slurm executor: resume it (`rebench runs resume`) or cancel it (`rebench runs cancel`) in the source first";
  const live = await liveDriver(store, run.id);
  if (live) return `the live process ${live.pid} on ${live.host} drives it: stop it (Ctrl-C) or let the run end first`;
  return undefined;
}
