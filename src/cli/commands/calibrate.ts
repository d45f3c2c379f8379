/**
 * @module
 * `rebench calibrate NAME --variant V [--runs N] [--concurrency C] [--write]`: run the starting solution and
 * the reference solution N times each (replay agents, real runs in the sandbox, stored in one batch each, at
 * most C at a time, each on its own leased GPUs: src/runs/run-gpus.ts), print the mean
 * and standard deviation of their final raw scores and the machine, and check the rule that makes them
 * usable as normalization constants: the gap between the means is at least ten times the larger standard
 * deviation (and the reference beats the start). `--write` records the numbers in the environment's
 * `calibration.json`, from which the variant's constants then come. Exit 1 when the rule fails or a run
 * has no final score.
 */
import path from "node:path";
import type { Command } from "commander";
import {
  CALIBRATION_GAP_FACTOR,
  type CalibrationVerdict,
  calibrationVerdict,
  describeMachine,
  InvalidInputError,
  type MachineInfo,
  parseWith,
  ReportedFailureError,
  type RunSummary,
  type ScoreStats,
  scoreStats,
  TaskId,
  Variant,
  type VariantCalibration,
} from "../../core/index.js";
import { calibrationPath, checkTask, getEnvironment, requireImplementation, writeVariantCalibration } from "../../environments/index.js";
import { probeMachine } from "../../core/index.js";
import { resolveDbPath, storeDisplay } from "../../store/index.js";
import { runAgentBatch } from "../agent-batch.js";
import { warnIfCalibratedElsewhere } from "../calibration-warning.js";
import { formatNumber } from "../format.js";
import { type Io, printJson } from "../io.js";
import { positiveInteger, positiveNumber } from "../number-options.js";
import { formatTable } from "../table.js";
import { runsTable } from "./run.js";
import { dbOption, withStore } from "./runs.js";
import { executorOptions, executorSettings } from "../executor-options.js";
import { COMMAND_SUMMARIES } from "../command-summaries.js";

/** Working-time limit of each calibration run. */
const CALIBRATION_TIME_LIMIT_SECONDS = 2 * 3600;

interface CalibrateOptions {
  variant: string;
  runs: number;
  concurrency?: number;
  executor: string;
  partition?: string;
  slurmOption?: string[];
  task: string;
  backend: string;
  db?: string;
  json?: boolean;
  write?: boolean;
  progress: number;
}

function atLeastTwo(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 2) throw new InvalidInputError(`--runs must be an integer of at least 2 (a standard deviation needs two), got "${value}"`);
  return n;
}

export function registerCalibrate(program: Command, io: Io): void {
  dbOption(
    executorOptions(program
      .command("calibrate")
      .description(COMMAND_SUMMARIES.calibrate)
      .argument("<name>", "environment name (see `rebench environments list`)")
      .requiredOption("--variant <variant>", "mini, gpu or paper")
      .option("--runs <n>", "runs of each solution (at least 2)", atLeastTwo, 5)
      .option("--concurrency <c>", "runs of a solution at a time (each gets its own GPUs, waiting for free ones; default 1, with --executor slurm all)", positiveInteger("--concurrency"))
      .option("--task <task>", "main or hidden_score", "main")
      .option("--backend <name>", "sandbox backend", "local")
      .option("--write", "record the numbers in environments/NAME/calibration.json: the variant's normalization constants from then on")
      .option("--progress <seconds>", "seconds between progress lines when not on a terminal", positiveNumber("--progress"), 30)
      .option("--json", "print one JSON object: {environment, variant, machine, start: {mean, std, n, values}, reference, gapOverStd, pass, ...}"))
      .addHelpText(
        "after",
        `\nThe rule: |mean(reference) − mean(start)| ≥ ${CALIBRATION_GAP_FACTOR} × the larger standard deviation, and the reference beats the start.` +
          "\nExit status 1 when it fails or a run has no final score; nothing is written then.\n\nExamples:\n" +
          "  rebench calibrate optimize_kernel --variant mini\n  rebench calibrate optimize_kernel --variant gpu --runs 5 --write\n" +
          "  rebench calibrate scaling_law --variant gpu --runs 3 --concurrency 2 --write   # two runs at a time, on GPUs 0 and 1",
      ),
  ).action((name: string, options: CalibrateOptions) => calibrate(name, options, io));
}

async function calibrate(name: string, options: CalibrateOptions, io: Io): Promise<void> {
  const variant = parseWith(Variant, options.variant, "--variant");
  const family = getEnvironment(name);
  const task = checkTask(family, parseWith(TaskId, options.task, "--task"));
  requireImplementation(family.name, variant);
  const warning = await warnIfCalibratedElsewhere(io, family.name, variant);
  const machine = await probeMachine();
  const db = resolveDbPath(options.db);
  const shown = storeDisplay(db);
  const progressIo: Io = options.json ? { ...io, out: io.err, interactive: false } : io;
  const common = {
    environment: family.name,
    variant,
    task,
    scaffold: "replay",
    timeLimitSeconds: CALIBRATION_TIME_LIMIT_SECONDS,
    runs: options.runs,
    concurrency: options.concurrency ?? (options.executor === "slurm" ? options.runs : 1),
    executor: executorSettings(options, db, progressIo),
    backend: options.backend,
    progressSeconds: options.progress,
  };
  const [startRuns, referenceRuns] = await withStore(db, async (store) => [
    await runAgentBatch(store, { ...common, actions: "start" }, progressIo),
    await runAgentBatch(store, { ...common, actions: "reference" }, progressIo),
  ]);
  const unscored = [...startRuns, ...referenceRuns].filter((r) => r.finalRaw === null);
  if (unscored.length > 0) {
    io.err(`\n${runsTable([...startRuns, ...referenceRuns])}`);
    throw new ReportedFailureError(`${unscored.length} calibration run(s) have no final score, so ${family.name}/${variant} cannot be calibrated`, {
      hint: `\`rebench runs show ${unscored[0]!.id} --events --db ${shown}\` shows what happened`,
    });
  }
  const start = scoreStats(startRuns.map((r) => r.finalRaw!));
  const reference = scoreStats(referenceRuns.map((r) => r.finalRaw!));
  const direction = family.variants[variant].manifest.scoring.direction;
  const verdict = calibrationVerdict(start, reference, direction);
  const calibration: VariantCalibration = {
    machine,
    date: new Date().toISOString(),
    runs: options.runs,
    start,
    reference,
    gapOverStd: verdict.gapOverStd === null ? null : round(verdict.gapOverStd),
  };
  const file = calibrationPath(family.dir);
  const written = options.write && verdict.pass ? await writeVariantCalibration(family.dir, variant, calibration, family.variants[variant].manifest.canary) : null;
  const batches = { start: batchOf(startRuns), reference: batchOf(referenceRuns) };
  if (options.json) {
    printJson(io, {
      environment: family.name,
      variant,
      task,
      direction,
      ...calibration,
      gap: verdict.gap,
      largerStd: verdict.largerStd,
      referenceBetter: verdict.referenceBetter,
      pass: verdict.pass,
      constants: variant === "paper" ? null : { start: start.mean, reference: reference.mean },
      written,
      batches,
      runIds: { start: startRuns.map((r) => r.id), reference: referenceRuns.map((r) => r.id) },
      db: shown,
      warning: warning ?? null,
    });
  } else {
    io.out(report({ name: family.name, variant, task, direction, machine, start, reference, verdict }));
    if (written) io.out(`${constantsLine(variant, start, reference)} written to ${written} under "${variant}"\n`);
    else if (options.write) io.out(`nothing written to ${file}: the rule failed\n`);
    else io.out(`${constantsLine(variant, start, reference)}; not written (add --write to record them in ${file})\n`);
    io.out(`runs: batch ${batches.start} (start), ${batches.reference} (reference); store ${shown}\n`);
  }
  if (!verdict.pass) {
    throw new ReportedFailureError(`${family.name}/${variant} fails the calibration rule: ${ruleText(verdict, direction)}`, {
      hint: "the starting and reference solutions must differ by far more than the noise: reduce the noise (quieter machine, more repetitions inside the grader) or widen the gap",
    });
  }
}

interface ReportInput {
  name: string;
  variant: Variant;
  task: TaskId;
  direction: "min" | "max";
  machine: MachineInfo;
  start: ScoreStats;
  reference: ScoreStats;
  verdict: CalibrationVerdict;
}

function report(r: ReportInput): string {
  const rows = [
    { solution: "start", stats: r.start },
    { solution: "reference", stats: r.reference },
  ];
  const table = formatTable(rows, [
    { header: "SOLUTION", value: (row) => row.solution },
    { header: "RUNS", value: (row) => row.stats.n, align: "right" },
    { header: "MEAN", value: (row) => formatNumber(row.stats.mean), align: "right" },
    { header: "STD", value: (row) => formatNumber(row.stats.std), align: "right" },
    { header: "RAW SCORES", value: (row) => row.stats.values.map((v) => formatNumber(v)).join(", ") },
  ]);
  const m = r.machine;
  return (
    `\nCalibration of ${r.name}/${r.variant} (task ${r.task}; raw score, ${r.direction === "min" ? "lower" : "higher"} is better)\n` +
    `machine: ${describeMachine(m)}; ${m.os}; rebench ${m.rebenchVersion}${m.rebenchCommit ? ` (${m.rebenchCommit})` : ""}\n\n` +
    table +
    `\n${ruleText(r.verdict, r.direction)}: ${r.verdict.pass ? "PASS" : "FAIL"}\n`
  );
}

function ruleText(v: CalibrationVerdict, direction: "min" | "max"): string {
  const ratio = v.gapOverStd === null ? "the standard deviations are 0" : `${formatNumber(v.gapOverStd, 2)} × the larger standard deviation ${formatNumber(v.largerStd)}`;
  const better = v.referenceBetter ? "" : `; the reference is not better than the start (${direction === "min" ? "lower" : "higher"} is better)`;
  return `gap |reference − start| = ${formatNumber(v.gap)} = ${ratio} (needs ≥ ${CALIBRATION_GAP_FACTOR}×)${better}`;
}

function constantsLine(variant: Variant, start: ScoreStats, reference: ScoreStats): string {
  if (variant === "paper") return "numbers (paper keeps the paper's normalization constants)";
  return `normalization constants (the means): start ${formatNumber(start.mean)}, reference ${formatNumber(reference.mean)}`;
}

function batchOf(runs: readonly RunSummary[]): string | null {
  return runs[0]?.spec.batchId ?? null;
}

function round(value: number): number {
  return Number(value.toFixed(4));
}
