/**
 * @module
 * `rebench run NAME --variant V --agent modular|aide|replay ...`: run K agent runs of one environment
 * variant (at most C at a time) under a time limit and optional token and dollar budgets, with live
 * progress, then print each run's id, final raw score and normalized score (`--json`: one object
 * `{batchId, db, runs: [RunRecord]}`, src/core/run-record.ts). Exits 1 when a run failed.
 */
import path from "node:path";
import type { Command } from "commander";
import {
  budgetTokens,
  InvalidInputError,
  isTerminal,
  normalizationLabel,
  normalizationMissing,
  parseTaskId,
  parseVariant,
  RebenchError,
  type ReplayStep,
  type RunSummary,
  readActionsFile,
  runRecord,
} from "../../core/index.js";
import { scaffolds } from "../../runs/scaffolds.js";
import { resolveDbPath, storeDisplay } from "../../store/index.js";
import { type AgentBatchRequest, runAgentBatch } from "../agent-batch.js";
import { registerBuiltins, SCAFFOLD_NAMES } from "../builtins.js";
import { COMMAND_SUMMARIES } from "../command-summaries.js";
import { parseDuration } from "../duration.js";
import { executorOptions, executorSettings } from "../executor-options.js";
import { formatDuration, formatNumber } from "../format.js";
import { type Io, printJson } from "../io.js";
import { noteUnnormalized } from "../normalization-notice.js";
import { positiveInteger, positiveNumber } from "../number-options.js";
import { reviewAfterRuns } from "../review-after-runs.js";
import { dbOption, withStore } from "../store-option.js";
import { formatTable } from "../table.js";

/** Exit code 1: the command ran, and some of its runs failed. */
export class RunsFailedError extends RebenchError {
  readonly exitCode = 1;
}

interface RunOptions {
  variant: string;
  agent: string;
  model?: string;
  task: string;
  timeLimit: string;
  tokens?: number;
  cost?: number;
  runs: number;
  concurrency?: number;
  runsPerGpu?: number;
  actions?: string;
  agentConfig?: string;
  participant?: string;
  backend: string;
  progress: number;
  db?: string;
  json?: boolean;
  executor: string;
  partition?: string;
  slurmOption?: string[];
}

/** The runs as a table, then a line for each reason some of them have no normalized score. */
export function runsTable(runs: readonly RunSummary[]): string {
  const reasons = [...new Set(runs.map((r) => normalizationMissing(r.spec)).filter((m): m is string => m !== undefined))];
  return table(runs) + reasons.map((reason) => `no normalized score: ${reason}\n`).join("");
}

function table(runs: readonly RunSummary[]): string {
  return formatTable(runs, [
    { header: "RUN", value: (r) => r.id },
    { header: "PARTICIPANT", value: (r) => r.spec.participant.alias },
    { header: "STATE", value: (r) => (r.stopReason ? `${r.state} (${r.stopReason})` : r.state) },
    { header: "RAW", value: (r) => formatNumber(r.finalRaw), align: "right" },
    { header: "NORMALIZED", value: (r) => formatNumber(r.normalized, 3), align: "right" },
    { header: "NORMALIZED BY", value: (r) => (r.spec.normalization ? normalizationLabel(r.spec.normalization) : "-") },
    { header: "WORKING", value: (r) => formatDuration(r.usage.workingSeconds), align: "right" },
    { header: "TOKENS", value: (r) => budgetTokens(r.usage), align: "right" },
    { header: "COST", value: (r) => `$${r.usage.costUsd.toFixed(4)}`, align: "right" },
    { header: "REVIEW", value: (r) => r.review?.verdict ?? "-" },
  ]);
}

/** `--actions`: `reference`, `start` or a file's steps. */
function actionsOption(value: string | undefined): Pick<AgentBatchRequest, "actions" | "actionsFile"> {
  if (value === undefined || value === "reference" || value === "start") return { actions: (value ?? "reference") as "reference" | "start" };
  const file = path.resolve(value);
  const steps: ReplayStep[] = readActionsFile(file);
  return { actions: steps, actionsFile: file };
}

function agentConfigOption(value: string | undefined): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (error) {
    throw new InvalidInputError(`--agent-config is not JSON: ${(error as Error).message}`, { hint: `for example --agent-config '{"numDrafts": 2}'` });
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new InvalidInputError("--agent-config must be a JSON object");
  return parsed as Record<string, unknown>;
}

export function registerRun(program: Command, io: Io): void {
  dbOption(
    executorOptions(
      program
        .command("run")
        .description(COMMAND_SUMMARIES.run)
        .argument("<name>", "environment name (see `rebench environments list`)")
        .requiredOption("--variant <variant>", "mini, gpu or paper")
        .requiredOption("--agent <scaffold>", `the scaffold: ${SCAFFOLD_NAMES.join(", ")}`)
        .option("--model <provider:model>", "the model of modular and aide: openai:MODEL, anthropic:MODEL or compat:URL#MODEL")
        .option("--task <task>", "main or hidden_score", "main")
        .option("--time-limit <duration>", "working-time limit per run (30m, 2h, 8h or seconds)", "30m")
        .option(
          "--tokens <n>",
          "token budget per run: input of every kind (cache reads and writes too) plus output (reasoning included)",
          positiveInteger("--tokens"),
        )
        .option("--cost <usd>", "dollar budget per run for model calls", positiveNumber("--cost"))
        .option("--runs <k>", "how many runs", positiveInteger("--runs"), 1)
        .option(
          "--concurrency <c>",
          "runs at a time (default 1; with --executor slurm, the job array's elements running at a time, default all)",
          positiveInteger("--concurrency"),
        )
        .option(
          "--runs-per-gpu <n>",
          "let n concurrent runs share one GPU (default 1; refused where the score times the code)",
          positiveInteger("--runs-per-gpu"),
        )
        .option(
          "--actions <what>",
          'replay: reference (default), start (score the starting solution and submit it) or a JSON Lines FILE, one tool call a line: {"tool": "bash", "input": {"command": "ls"}} (docs/agents.md, "Actions files")',
        )
        .option("--agent-config <json>", "scaffold settings as a JSON object (docs/agents.md)")
        .option("--participant <alias>", "what reports call these runs (default: MODEL (SCAFFOLD), or reference (replay))")
        .option("--backend <name>", "sandbox backend", "local")
        .option("--progress <seconds>", "seconds between progress lines when not on a terminal", positiveNumber("--progress"), 30)
        .option("--json", "print one JSON object: {batchId, runs: [{runId, rawScore, normalizedScore, ...}]}"),
    ).addHelpText(
      "after",
      "\nExamples:\n  rebench run optimize_kernel --variant mini --agent replay\n" +
        "  rebench run optimize_kernel --variant mini --agent replay --actions start\n" +
        '  rebench run optimize_kernel --variant mini --agent replay --actions my-attempt.jsonl   # the format, a line per tool: docs/agents.md, "Actions files"\n' +
        "  rebench run optimize_kernel --variant mini --agent modular --model openai:gpt-4o --time-limit 30m --tokens 2000000 --runs 4 --concurrency 2\n" +
        "  rebench run optimize_kernel --variant gpu --agent replay --runs 8 --executor slurm --partition gpu --db postgres://rebench@db.example/rebench",
    ),
  ).action(async (name: string, options: RunOptions) => {
    registerBuiltins();
    const scaffold = scaffolds.find(options.agent);
    if (!scaffold) {
      throw new InvalidInputError(`unknown scaffold "${options.agent}"`, { hint: `--agent is one of ${scaffolds.names().join(", ")}` });
    }
    if (scaffold.needsModel && !options.model) {
      throw new InvalidInputError(`--agent ${options.agent} needs --model`, { hint: 'e.g. --model openai:gpt-4o (docs/agents.md, "Models", lists the forms)' });
    }
    if (options.actions !== undefined && options.agent !== "replay") throw new InvalidInputError("--actions is for --agent replay");
    const request: AgentBatchRequest = {
      environment: name,
      variant: parseVariant(options.variant),
      task: parseTaskId(options.task),
      scaffold: options.agent,
      ...(options.model && scaffold.needsModel ? { model: options.model } : {}),
      ...(options.participant ? { alias: options.participant } : {}),
      timeLimitSeconds: parseDuration(options.timeLimit, "--time-limit"),
      ...(options.tokens === undefined ? {} : { tokens: options.tokens }),
      ...(options.cost === undefined ? {} : { costUsd: options.cost }),
      runs: options.runs,
      concurrency: options.concurrency ?? (options.executor === "slurm" ? options.runs : 1),
      ...(options.runsPerGpu === undefined ? {} : { runsPerGpu: options.runsPerGpu }),
      backend: options.backend,
      ...(options.agent === "replay" ? actionsOption(options.actions) : {}),
      ...(options.agentConfig === undefined ? {} : { agentConfig: agentConfigOption(options.agentConfig) }),
      progressSeconds: options.progress,
    };
    const db = resolveDbPath(options.db);
    request.executor = executorSettings(options, db, io);
    if (request.executor?.executor !== "slurm") await noteUnnormalized(io, name, request.variant);
    const shown = storeDisplay(db);
    request.storeShown = shown;
    const { runs, text: reviewText } = await withStore(db, async (store) => {
      const batch = await runAgentBatch(store, request, options.json ? { ...io, out: io.err, interactive: false } : io);
      return reviewAfterRuns(store, batch, io, shown);
    });
    if (options.json) printJson(io, { batchId: runs[0]?.spec.batchId ?? null, db: shown, runs: runs.map((run) => runRecord(run)) });
    else io.out(`\n${runsTable(runs)}${reviewText}store: ${shown} (\`rebench runs show ID\`, \`rebench report --db ${shown}\`)\n`);
    const failed = runs.filter((r) => r.state === "failed");
    const unfinished = runs.filter((r) => !isTerminal(r.state));
    if (unfinished.length > 0) {
      throw new RunsFailedError(
        `${unfinished.length} of ${runs.length} run(s) did not end: their Slurm job ended first (${unfinished.map((r) => r.id).join(", ")})`,
        {
          hint: `\`rebench runs resume --db ${shown}\` submits them again; they continue from their event logs`,
        },
      );
    }
    if (failed.length > 0) {
      throw new RunsFailedError(`${failed.length} of ${runs.length} run(s) failed: ${failed[0]!.error ?? "unknown error"}`, {
        hint: `\`rebench runs show ${failed[0]!.id} --events\` shows what happened`,
      });
    }
  });
}
