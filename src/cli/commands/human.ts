/**
 * @module
 * `rebench human NAME --variant V [--time-limit 8h]`: the human baseline mode. Starts a run for a human
 * participant in the same sandbox an agent gets, opens an interactive shell in it (as the agent user) with
 * `score`, `score-log` and `submit` commands and the time left in the prompt, records the terminal session
 * beside the store, and stores the attempt as a `human` run that reports treat like any other.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import type { Command } from "commander";
import { HumanAgent } from "../../agents/human/human-agent.js";
import { InvalidInputError, parseTaskId, parseVariant, UnavailableError } from "../../core/index.js";
import { driveRun } from "../../runs/drive-run.js";
import { SandboxHumanLink } from "../../runs/human-link.js";
import { newRunSpec, runEnvironment } from "../../runs/run-environment.js";
import { backends, sandboxBackend } from "../../runs/sandbox-backends.js";
import { hasTerminals } from "../../sandbox/terminal.js";
import { resolveDbPath, storeDisplay, storeSideDir } from "../../store/index.js";
import { registerBuiltins } from "../builtins.js";
import { COMMAND_SUMMARIES } from "../command-summaries.js";
import { parseDuration } from "../duration.js";
import { formatDuration, formatNumber } from "../format.js";
import type { Io } from "../io.js";
import { dbOption, withStore } from "../store-option.js";

interface HumanOptions {
  variant: string;
  task: string;
  timeLimit: string;
  participant: string;
  backend: string;
  recordDir?: string;
  db?: string;
}

function checkTerminal(): void {
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    throw new InvalidInputError("rebench human needs an interactive terminal", { hint: "run it in a terminal (or inside tmux or screen), not through a pipe" });
  }
  if (spawnSync("script", ["--version"]).status !== 0) {
    throw new UnavailableError("`script` (util-linux) is needed to record the session and is not installed", { hint: "apt-get install bsdutils" });
  }
}

export function registerHuman(program: Command, io: Io): void {
  dbOption(
    program
      .command("human")
      .description(COMMAND_SUMMARIES.human)
      .argument("<name>", "environment name (see `rebench environments list`)")
      .requiredOption("--variant <variant>", "mini, gpu or paper")
      .option("--task <task>", "main or hidden_score", "main")
      .option("--time-limit <duration>", "working-time limit (scoring does not count)", "8h")
      .option("--participant <alias>", "who works on it (reports group every human as `human`)", "human")
      .option("--backend <name>", "sandbox backend", "local")
      .option("--record-dir <dir>", "where the terminal recording goes (default: transcripts/ beside the store)")
      .addHelpText(
        "after",
        "\nIn the shell: score, score-log, submit [NOTES]; the prompt shows the time left.\n" +
          "Example:\n  rebench human optimize_kernel --variant mini --time-limit 8h",
      ),
  ).action(async (name: string, options: HumanOptions) => {
    registerBuiltins();
    const variant = parseVariant(options.variant);
    const task = parseTaskId(options.task);
    const timeLimitSeconds = parseDuration(options.timeLimit, "--time-limit");
    const spec = await newRunSpec({
      environment: name,
      variant,
      task,
      participant: { kind: "human", alias: options.participant, scaffold: "human" },
      limits: { workingSeconds: timeLimitSeconds },
      timeLimitSeconds,
      config: { driver: "human", sandbox: options.backend },
    });
    const backend = sandboxBackend(options.backend);
    if (!backends.find(options.backend)?.terminals || !hasTerminals(backend)) {
      throw new UnavailableError(`the ${options.backend} sandbox backend offers no interactive terminal yet`, {
        hint: "`rebench start` and `rebench score --dir` work with every backend",
      });
    }
    checkTerminal();
    const db = resolveDbPath(options.db);
    const shown = storeDisplay(db);
    const recordDir = path.resolve(options.recordDir ?? path.join(storeSideDir(db), "transcripts"));
    const run = await withStore(db, async (store) => {
      const created = await store.createRun(spec);
      io.out(`starting run ${created.id}: ${name}/${variant} (${task}), ${formatDuration(timeLimitSeconds)} of working time; setting up the sandbox...\n`);
      return driveRun(created.id, {
        store,
        makeAgent: (sandbox) => new HumanAgent(new SandboxHumanLink(sandbox, { recordDir, runId: created.id })),
      });
    });
    const visible = runEnvironment(run.spec).visible;
    const score =
      run.finalRaw === null
        ? "no valid score"
        : visible
          ? `raw ${formatNumber(run.finalRaw)}, normalized ${formatNumber(run.normalized, 3)}`
          : "scored (hidden for this task)";
    io.out(
      [
        "",
        `run ${run.id} ${run.state}${run.stopReason ? ` (${run.stopReason}${run.stopReason === "limit" ? ": time is up" : ""})` : ""}: ${run.error ?? score}`,
        `working time ${formatDuration(run.usage.workingSeconds)}, ${run.scoreCalls} scoring calls`,
        `session recording: ${path.join(recordDir, `${run.id}.out`)} (replay: scriptreplay --log-timing ${path.join(recordDir, `${run.id}.timing`)} --log-out ${path.join(recordDir, `${run.id}.out`)})`,
        `store: ${shown} (\`rebench runs show ${run.id}\`)`,
        "",
      ].join("\n"),
    );
  });
}
