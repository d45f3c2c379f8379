import type { Command } from "commander";
import { InvalidInputError, parseTaskId, parseVariant, ReportedFailureError } from "../../core/index.js";
import { runStatusView, startDirRun } from "../../runs/dir-run.js";
import { runEnvironment } from "../../runs/run-environment.js";
import { scoreView } from "../../scoring/score-view.js";
import { resolveDbPath, storeDisplay } from "../../store/index.js";
import { registerBuiltins } from "../builtins.js";
import { COMMAND_SUMMARIES } from "../command-summaries.js";
import { formatDuration } from "../format.js";
import { type Io, printJson } from "../io.js";
import { dbOption, withStore } from "../store-option.js";
import { formatScoreLine } from "./score.js";

export function registerStart(program: Command, io: Io): void {
  dbOption(
    program
      .command("start")
      .description(COMMAND_SUMMARIES.start)
      .argument("<name>", "environment name (see `rebench environments list`)")
      .requiredOption("--variant <variant>", "mini, gpu or paper")
      .option("--task <task>", "main or hidden_score", "main")
      .requiredOption("--dir <dir>", "a new or empty directory to work in")
      .option("--participant <alias>", "who works on it (reports group runs by this name)", "human")
      .option("--time-limit <seconds>", "working-time limit in seconds (default: none)", positiveNumber)
      .option("--backend <name>", "sandbox backend", "local")
      .option("--json", "print JSON")
      .addHelpText("after", "\nExample:\n  rebench start optimize_kernel --variant mini --dir ~/kernel --time-limit 28800\n  rebench score --dir ~/kernel"),
  ).action(
    async (
      name: string,
      options: { variant: string; task: string; dir: string; participant: string; timeLimit?: number; backend: string; db?: string; json?: boolean },
    ) => {
      registerBuiltins();
      const variant = parseVariant(options.variant);
      const task = parseTaskId(options.task);
      const db = resolveDbPath(options.db);
      const shown = storeDisplay(db);
      // Ctrl-C (or SIGTERM) while starting: the run is marked failed and the directory left as it was; a second one exits at once.
      const interrupt = new AbortController();
      const onSignal = () => {
        if (interrupt.signal.aborted) process.exit(130);
        io.err("rebench start: interrupted; marking the run failed (Ctrl-C again to quit at once)\n");
        interrupt.abort(new ReportedFailureError("rebench start was interrupted: the run is marked failed and the directory left as it was"));
      };
      process.on("SIGINT", onSignal).on("SIGTERM", onSignal);
      try {
        await withStore(db, async (store) => {
          const { run, instructions, dir } = await startDirRun({
            signal: interrupt.signal,
            store,
            environment: name,
            variant,
            task,
            dir: options.dir,
            participant: { kind: "human", alias: options.participant },
            ...(options.timeLimit === undefined ? {} : { limits: { workingSeconds: options.timeLimit } }),
            sandbox: options.backend,
            onGpuWait: (line) => io.err(line),
          });
          const visible = runEnvironment(run.spec).visible;
          const starting = (await store.scoreLog(run.id)).map((entry) => scoreView(entry, visible));
          if (options.json) return printJson(io, { run: runStatusView(run), dir, instructions, startingScore: starting[0] ?? null });
          const limit = run.spec.limits.workingSeconds;
          io.out(
            [
              `started run ${run.id}: ${run.spec.environment}/${run.spec.variant} (${run.spec.task}) in ${dir}`,
              `working-time limit: ${limit === undefined ? "none" : formatDuration(limit)}; store: ${shown}`,
              ...(starting[0] ? [`starting solution: ${formatScoreLine(starting[0])}`] : []),
              "",
              instructions.trimEnd(),
              "",
              `Score your solution:   rebench score --dir ${dir}`,
              `Submit (ends the run): rebench score --dir ${dir} --submit "what you did"`,
              "",
            ].join("\n"),
          );
        });
      } finally {
        process.off("SIGINT", onSignal).off("SIGTERM", onSignal);
      }
    },
  );
}

function positiveNumber(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidInputError(`--time-limit must be a positive number of seconds, got "${value}"`);
  return n;
}
