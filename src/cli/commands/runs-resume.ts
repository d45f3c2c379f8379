/**
 * @module
 * `rebench runs resume`: after an orchestrator was killed (even with SIGKILL) or crashed, reconcile every
 * unfinished agent run from its event log and continue it to its end; a run of the Slurm executor whose job
 * is gone is submitted again (one whose job is still queued or running is waited for).
 */
import type { Command } from "commander";
import { InvalidInputError, type RunSummary } from "../../core/index.js";
import { resumeRuns } from "../../runs/resume-runs.js";
import { registerBuiltins } from "../builtins.js";
import { slurmContext } from "../executor-options.js";
import { formatNumber } from "../format.js";
import { type Io, printJson } from "../io.js";
import { dbOption, withStore } from "../store-option.js";

export function registerRunsResume(program: Command, io: Io): void {
  const runs = program.commands.find((c) => c.name() === "runs");
  if (!runs) throw new Error("register `runs` before `runs resume`");
  dbOption(
    runs
      .command("resume")
      .description("reconcile and continue every unfinished agent run whose orchestrator is gone (a Slurm run whose job is gone: submit it again)")
      .option("--run <ids...>", "only these runs")
      .option("--concurrency <n>", "runs at a time (default 4)", positiveInt)
      .option("--json", "print JSON")
      .addHelpText("after", "\nExample:\n  rebench runs resume --db ~/.rebench/rebench.db --concurrency 2"),
  ).action(async (options: { db?: string; run?: string[]; concurrency?: number; json?: boolean }) => {
    registerBuiltins();
    const line = (run: RunSummary) =>
      `${run.id}  ${run.spec.environment}/${run.spec.variant}  ${run.state}${run.stopReason ? ` (${run.stopReason})` : ""}` +
      `${run.error ? `: ${run.error}` : `  raw ${formatNumber(run.finalRaw)}`}`;
    const report = await withStore(
      options.db,
      (store) =>
        resumeRuns({
          store,
          slurm: { ...slurmContext(options.db, io, { warn: false }), onSubmitted: (run, jobId) => io.err(`run ${run.id}: Slurm job ${jobId} submitted\n`) },
          ...(options.run ? { runIds: options.run } : {}),
          ...(options.concurrency ? { concurrency: options.concurrency } : {}),
          onRunEnded: (run) => {
            if (!options.json) io.out(`ended ${line(run)}\n`);
          },
        }),
      { mustExist: true },
    );
    if (options.json) return printJson(io, report);
    for (const { run, why } of report.skipped) io.out(`skipped ${run.id}: ${why}\n`);
    if (report.resumed.length === 0 && report.skipped.length === 0) io.out("no unfinished runs to resume\n");
    else io.out(`resumed ${report.resumed.length} run(s), skipped ${report.skipped.length}\n`);
  });
}

function positiveInt(value: string): number {
  const n = Number.parseInt(value, 10);
  if (!Number.isInteger(n) || n < 1) throw new InvalidInputError(`--concurrency must be a positive integer, got "${value}"`);
  return n;
}
