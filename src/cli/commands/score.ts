/**
 * @module
 * `rebench score --dir DIR [--submit NOTES]`: score the solution in a directory started with
 * `rebench start`, exactly as the agent's `score` action does (protected grader, score log in the store);
 * with `--submit`, take the final score and end the run.
 */
import type { Command } from "commander";
import type { RunOutcomeView, ScoreView } from "../../core/index.js";
import { type RunStatusView, readDirMarker, scoreDirRun } from "../../runs/dir-run.js";
import { registerBuiltins } from "../builtins.js";
import { COMMAND_SUMMARIES } from "../command-summaries.js";
import { formatDuration, formatNumber } from "../format.js";
import { type Io, printJson } from "../io.js";
import { withStore } from "../store-option.js";

/** One line for a score the participant may see (the value, or why there is none), and rebench's notice on its own line. */
export function formatScoreLine(view: ScoreView): string {
  const line = scoreLine(view);
  return view.notice ? `${line}\nwarning: ${view.notice}` : line;
}

function scoreLine(view: ScoreView): string {
  const message = Object.keys(view.message).length > 0 ? `  ${JSON.stringify(view.message)}` : "";
  switch (view.outcome) {
    case "scored":
      return `${view.score === undefined ? "valid (score hidden for this task)" : `score ${formatNumber(view.score)}`}${message}`;
    case "invalid":
      return `invalid: ${view.reason ?? ""}${message}`;
    case "timedOut":
      return `timed out: ${view.reason ?? ""}`;
    case "error":
      return `scoring error: ${view.reason ?? ""}`;
  }
}

function formatEnded(outcome: RunOutcomeView, run: RunStatusView): string {
  const why = outcome.limit ? `${outcome.stopReason}: ${outcome.limit}` : outcome.stopReason;
  const final = outcome.finalScore ? `final scoring: ${formatScoreLine(outcome.finalScore)}\n` : "";
  return `run ${run.id} has ended (${why})\n${final}the run's score log and final score are in the store (\`rebench runs show ${run.id}\`)\n`;
}

export function registerScore(program: Command, io: Io): void {
  program
    .command("score")
    .description(COMMAND_SUMMARIES.score)
    .requiredOption("--dir <dir>", "the directory given to `rebench start`")
    .option("--db <path>", "run store (default: the one `rebench start` used)")
    .option("--submit [notes]", "take the final score and end the run")
    .option("--json", "print JSON")
    .addHelpText("after", '\nExample:\n  rebench score --dir ~/kernel\n  rebench score --dir ~/kernel --submit "triton kernel, one pass"')
    .action(async (options: { dir: string; db?: string; submit?: string | boolean; json?: boolean }) => {
      registerBuiltins();
      const marker = await readDirMarker(options.dir);
      const submit = options.submit === undefined ? undefined : options.submit === true ? "" : String(options.submit);
      const result = await withStore(options.db ?? marker.db, (store) => scoreDirRun({ store, dir: options.dir, ...(submit === undefined ? {} : { submit }) }));
      if (options.json) return printJson(io, result);
      if (result.kind === "ended") return io.out(formatEnded(result.outcome, result.run));
      const { usage } = result.run;
      io.out(`${formatScoreLine(result.view)}\n`);
      io.out(`run ${result.run.id}: working time ${formatDuration(usage.workingSeconds)}, ${result.run.scoreCalls} scoring calls\n`);
    });
}
