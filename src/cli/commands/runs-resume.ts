/**
 * @module
 * `rebench runs resume`: after an orchestrator was killed (even with SIGKILL) or crashed, reconcile every
 * unfinished agent run from its event log and continue it to its end; a run of the Slurm executor whose job
 * is gone is submitted again (one whose job is still queued or running is waited for). It shows progress,
 * prints and exits as `rebench run` does: the runs' table (`--json`: `{db, runs: [RunRecord], skipped}`),
 * exit 1 when a resumed run failed or could not be continued.
 */
import type { Command } from "commander";
import { isTerminal, runRecord } from "../../core/index.js";
import { resumeRuns } from "../../runs/resume-runs.js";
import { resolveDbPath, storeDisplay } from "../../store/index.js";
import { BatchProgress } from "../batch-progress.js";
import { registerBuiltins } from "../builtins.js";
import { warnContended } from "../contention-warning.js";
import { arraySubmittedLine, slurmContext } from "../executor-options.js";
import { type Io, printJson } from "../io.js";
import { positiveInteger, positiveNumber } from "../number-options.js";
import { reviewAfterRuns } from "../review-after-runs.js";
import { dbOption, withStore } from "../store-option.js";
import { RunsFailedError, runsTable } from "./run.js";

interface ResumeOptions {
  db?: string;
  run?: string[];
  concurrency?: number;
  progress: number;
  json?: boolean;
}

export function registerRunsResume(program: Command, io: Io): void {
  const runs = program.commands.find((c) => c.name() === "runs");
  if (!runs) throw new Error("register `runs` before `runs resume`");
  dbOption(
    runs
      .command("resume")
      .description("reconcile and continue every unfinished agent run whose orchestrator is gone (a Slurm run whose job is gone: submit it again)")
      .option("--run <ids...>", "only these runs")
      .option("--concurrency <n>", "runs at a time (default 4)", positiveInteger("--concurrency"))
      .option("--progress <seconds>", "seconds between progress lines when not on a terminal", positiveNumber("--progress"), 30)
      .option("--json", "print one JSON object: {db, runs: [{runId, rawScore, normalizedScore, ...}], skipped: [{runId, state, why}]}")
      .addHelpText("after", "\nExample:\n  rebench runs resume --db ~/.rebench/rebench.db --concurrency 2"),
  ).action((options: ResumeOptions) => resume(options, io));
}

async function resume(options: ResumeOptions, io: Io): Promise<void> {
  registerBuiltins();
  const db = resolveDbPath(options.db);
  const shown = storeDisplay(db);
  // As `rebench run --json`: progress goes to stderr, stdout holds the JSON alone.
  const shownIo: Io = options.json ? { ...io, out: io.err, interactive: false } : io;
  const { report, resumed, reviewText } = await withStore(
    db,
    async (store) => {
      let progress: BatchProgress | undefined;
      try {
        const report = await resumeRuns({
          store,
          slurm: {
            ...slurmContext(options.db, io, { warn: false }),
            onSubmitted: (run, jobId) => {
              const line = `run ${run.id}: Slurm job ${jobId} submitted\n`;
              if (progress) progress.note(line);
              else shownIo.out(line);
            },
            onArraySubmitted: (runs, jobId) => {
              const line = arraySubmittedLine(runs, jobId);
              if (progress) progress.note(line);
              else shownIo.out(line);
            },
          },
          ...(options.run ? { runIds: options.run } : {}),
          ...(options.concurrency ? { concurrency: options.concurrency } : {}),
          onStart: (runs) => {
            if (runs.length === 0) return;
            shownIo.out(`resuming ${runs.length} run(s): ${runs.map((r) => r.id).join(", ")}\n`);
            progress = new BatchProgress({
              io: shownIo,
              store,
              runIds: runs.map((r) => r.id),
              total: runs.length,
              label: "resumed",
              everySeconds: options.progress,
            });
            progress.start();
          },
          onRunEnded: (run) => progress?.runEnded(run),
        });
        await progress?.stop();
        progress = undefined;
        await warnContended(shownIo, store, report.resumed);
        const reviewed = await reviewAfterRuns(store, report.resumed, io, shown);
        return { report, resumed: reviewed.runs, reviewText: reviewed.text };
      } finally {
        await progress?.stop();
      }
    },
    { mustExist: true },
  );

  const skipped = report.skipped.map(({ run, why }) => ({ runId: run.id, state: run.state, why }));
  if (options.json) printJson(io, { db: shown, runs: resumed.map((run) => runRecord(run)), skipped });
  else {
    for (const { runId, why } of skipped) io.out(`skipped ${runId}: ${why}\n`);
    if (resumed.length === 0 && skipped.length === 0) io.out("no unfinished runs to resume\n");
    else {
      if (resumed.length > 0) io.out(`\n${runsTable(resumed)}${reviewText}`);
      io.out(`resumed ${resumed.length} run(s), skipped ${skipped.length}; store: ${shown}\n`);
    }
  }
  const failed = resumed.filter((r) => r.state === "failed");
  const unfinished = resumed.filter((r) => !isTerminal(r.state));
  const stuck = report.skipped.filter((s) => s.failed);
  if (failed.length > 0) {
    throw new RunsFailedError(`${failed.length} of ${resumed.length} resumed run(s) failed: ${failed[0]!.error ?? "unknown error"}`, {
      hint: `\`rebench runs show ${failed[0]!.id} --events --db ${shown}\` shows what happened`,
    });
  }
  if (unfinished.length > 0 || stuck.length > 0) {
    const ids = [...unfinished.map((r) => r.id), ...stuck.map((s) => s.run.id)];
    throw new RunsFailedError(`${ids.length} run(s) could not be continued to their end: ${ids.join(", ")}`, {
      hint: stuck[0] ? `${stuck[0].run.id}: ${stuck[0].why}` : `\`rebench runs resume --db ${shown}\` tries again`,
    });
  }
}
