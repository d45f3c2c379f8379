/**
 * @module
 * `rebench main`: the offline main job. Every available `mini` environment is started in the sandbox
 * (default `local`), its starting solution and its reference solution are run as `replay` agents, scored
 * and stored in the run store (SQLite by default); with `--agent` and `--model` (and the provider's API key) an agent runs on each as
 * well. Then the report of the store is printed and written as HTML. No network, no API key needed.
 * Nothing of the job runs beside a scoring: the asset build ends (its workers with it) before the first run
 * starts, and the runs go one at a time, so a timing environment is never scored beside the job's own work;
 * other work on the machine is flagged in the entries it touched, and warned about after each batch.
 */
import path from "node:path";
import type { Command } from "commander";
import { buildAssets } from "../../assets/index.js";
import { InvalidInputError, type RunSummary } from "../../core/index.js";
import type { EnvironmentFamily } from "../../environments/contract.js";
import { getEnvironment, listEnvironments } from "../../environments/index.js";
import { requireImplementation } from "../../environments/registry.js";
import { resolveDbPath, storeDisplay, storeSideDir } from "../../store/index.js";
import { runAgentBatch } from "../agent-batch.js";
import { MODEL_SCAFFOLD_NAMES } from "../builtins.js";
import { COMMAND_SUMMARIES } from "../command-summaries.js";
import { parseDuration } from "../duration.js";
import { executorOptions, executorSettings } from "../executor-options.js";
import type { Io } from "../io.js";
import { noteUnnormalized } from "../normalization-notice.js";
import { positiveInteger, positiveNumber } from "../number-options.js";
import { reviewAfterRuns } from "../review-after-runs.js";
import { withStore } from "../store-option.js";
import { formatTable } from "../table.js";
import { runReport } from "./report.js";
import { RunsFailedError, runsTable } from "./run.js";

interface MainOptions {
  db?: string;
  environments?: string;
  backend: string;
  timeLimit: string;
  agent?: string;
  model?: string;
  runs: number;
  reportDir?: string;
  progress: number;
  executor: string;
  partition?: string;
  slurmOption?: string[];
}

function isMiniAvailable(family: EnvironmentFamily): boolean {
  return family.variants.mini.availability.status === "available";
}

export function registerMainJob(program: Command, io: Io): void {
  executorOptions(program.command("main"))
    .description(COMMAND_SUMMARIES.main)
    .option("--db <path>", "run store: a SQLite file or postgres://USER@HOST/DB; default $REBENCH_DB, else $REBENCH_HOME/rebench.db")
    .option("--environments <names>", "only these environments, comma-separated (default: every available mini variant)")
    .option("--backend <name>", "sandbox backend", "local")
    .option("--time-limit <duration>", "working-time limit per run", "30m")
    .option("--agent <scaffold>", `also run this scaffold on each environment: ${MODEL_SCAFFOLD_NAMES.join(", ")} (needs --model and its API key)`)
    .option("--model <provider:model>", "the agent's model, e.g. openai:gpt-4o")
    .option("--runs <k>", "agent runs per environment (with --agent)", positiveInteger("--runs"), 1)
    .option("--report-dir <dir>", "where to write the HTML report (default: report/ beside the store)")
    .option("--progress <seconds>", "seconds between progress lines when not on a terminal", positiveNumber("--progress"), 30)
    .addHelpText("after", "\nExamples:\n  rebench main --db /tmp/rebench.db\n  OPENAI_API_KEY=... rebench main --agent modular --model openai:gpt-4o")
    .action((options: MainOptions) => mainJob(options, io));
}

async function mainJob(options: MainOptions, io: Io): Promise<void> {
  if (options.agent !== undefined && !MODEL_SCAFFOLD_NAMES.includes(options.agent)) {
    throw new InvalidInputError(`--agent is one of ${MODEL_SCAFFOLD_NAMES.join(", ")}, got "${options.agent}"`);
  }
  if ((options.agent === undefined) !== (options.model === undefined)) {
    throw new InvalidInputError("--agent and --model go together", { hint: "e.g. --agent modular --model openai:gpt-4o, or neither for the offline job" });
  }
  const families = listEnvironments();
  const chosen = options.environments ? options.environments.split(",").map((name) => getEnvironment(name.trim())) : families.filter(isMiniAvailable);
  const db = resolveDbPath(options.db);
  const shown = storeDisplay(db);
  const executor = executorSettings(options, db, io);
  io.out(`rebench main job: ${families.filter(isMiniAvailable).length} of ${families.length} mini environments available (store: ${shown})\n\n`);
  io.out(
    formatTable(families, [
      { header: "ENVIRONMENT", value: (f) => f.name },
      { header: "MINI", value: (f) => (isMiniAvailable(f) ? "available" : "not yet") },
      { header: "SCALE", value: (f) => f.variants.mini.scale },
    ]),
  );
  if (chosen.length === 0) {
    io.out("\nNo mini environment is implemented yet, so there is nothing to run: the job ends here.\n");
    return;
  }
  const timeLimitSeconds = parseDuration(options.timeLimit, "--time-limit");
  const runs: RunSummary[] = [];
  let reviewText = "";
  // The store first: one that cannot be opened stops the job before minutes of asset building.
  await withStore(db, async (store) => {
    await buildNeededAssets(chosen, io);
    for (const [i, family] of chosen.entries()) {
      io.out(`\n[${i + 1}/${chosen.length}] ${family.name}/mini: ${family.title}\n`);
      // A Slurm job's node has its own class, which the job records (docs/runs.md, "Machine classes").
      if (executor?.executor !== "slurm") await noteUnnormalized(io, family.name, "mini");
      const common = {
        environment: family.name,
        variant: "mini" as const,
        task: "main" as const,
        timeLimitSeconds,
        backend: options.backend,
        progressSeconds: options.progress,
        storeShown: shown,
        concurrency: 1,
        executor,
      };
      runs.push(...(await runAgentBatch(store, { ...common, scaffold: "replay", actions: "start", runs: 1 }, io)));
      runs.push(...(await runAgentBatch(store, { ...common, scaffold: "replay", actions: "reference", runs: 1 }, io)));
      if (options.agent && options.model) {
        runs.push(...(await runAgentBatch(store, { ...common, scaffold: options.agent, model: options.model, runs: options.runs }, io)));
      }
    }
    const reviewed = await reviewAfterRuns(store, runs, io, shown);
    runs.splice(0, runs.length, ...reviewed.runs);
    reviewText = reviewed.text;
  });
  io.out(`\nRuns of this job\n${runsTable(runs)}${reviewText}`);
  const out = path.resolve(options.reportDir ?? path.join(storeSideDir(db), "report"));
  io.out(`\nReport of the store ${shown} (\`rebench report --db ${shown}\`)\n`);
  const budget = options.timeLimit.match(/^\d+(\.\d+)?$/) ? `${timeLimitSeconds}s` : options.timeLimit;
  const reported = await runReport({ db, format: "metr", budgets: budget, bootstrap: "1000", seed: "0", out, emptyOk: true }, io);
  if (reported) io.out(`\nHTML report: ${path.join(out, "report.html")}\n`);
  const failed = runs.filter((r) => r.state === "failed");
  if (failed.length > 0) {
    throw new RunsFailedError(`${failed.length} of ${runs.length} run(s) of the main job failed: ${failed[0]!.error ?? "unknown error"}`, {
      hint: `\`rebench runs show ${failed[0]!.id} --events --db ${shown}\` shows what happened`,
    });
  }
}

/**
 * Build (or confirm, in about a second: the builder is content-keyed) the assets the chosen mini variants
 * stage, so that a fresh machine's main job needs no separate `rebench assets build`.
 */
async function buildNeededAssets(chosen: readonly EnvironmentFamily[], io: Io): Promise<void> {
  const needed = [...new Set(chosen.flatMap((family) => requireImplementation(family.name, "mini").assets ?? []))];
  if (needed.length === 0) return;
  io.out(
    `\nAssets the chosen environments need: ${needed.join(", ")} (built if missing or stale, progress below; all of the mini variants' take about 4.5 minutes the first time on 2 cores, mostly training mini-large)\n`,
  );
  const outcome = await buildAssets({ only: needed, onProgress: (line) => io.err(`${line}\n`) });
  const built = outcome.assets.filter((a) => a.status === "built");
  io.out(built.length === 0 ? "all built already\n" : `built ${built.map((a) => `${a.name} (${a.seconds.toFixed(0)} s)`).join(", ")}\n`);
}
