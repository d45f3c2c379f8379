import type { Command } from "commander";
import {
  CALIBRATION_GAP_FACTOR,
  type CalibrationVerdict,
  CONTENTION_THRESHOLD_CPUS,
  ConflictError,
  calibrationVerdict,
  describeMachine,
  type HostBusySample,
  InvalidInputError,
  type MachineInfo,
  machineBusy,
  machineClass,
  parseTaskId,
  parseVariant,
  probeMachine,
  quietNeed,
  ReportedFailureError,
  type RunSummary,
  type ScoreStats,
  sampleHostBusy,
  scoreStats,
  type TaskId,
  type Variant,
  type VariantCalibration,
} from "../../core/index.js";
import { environmentDigest } from "../../environments/environment-digest.js";
import {
  calibrationPath,
  checkTask,
  getEnvironment,
  listEnvironments,
  readCalibrationFile,
  requireImplementation,
  writeVariantCalibration,
} from "../../environments/index.js";
import type { RunStore } from "../../store/index.js";
import { resolveDbPath, storeDisplay } from "../../store/index.js";
import { runAgentBatch } from "../agent-batch.js";
import { COMMAND_SUMMARIES } from "../command-summaries.js";
import { executorOptions, executorSettings } from "../executor-options.js";
import { formatNumber } from "../format.js";
import { type Io, printJson } from "../io.js";
import { positiveInteger, positiveNumber } from "../number-options.js";
import { dbOption, withStore } from "../store-option.js";
import { formatTable } from "../table.js";
import { runsTable } from "./run.js";

/** Working-time limit of each calibration run. */
const CALIBRATION_TIME_LIMIT_SECONDS = 2 * 3600;

interface CalibrateOptions {
  variant: string;
  runs: number;
  concurrency?: number;
  runsPerGpu?: number;
  executor: string;
  partition?: string;
  slurmOption?: string[];
  task: string;
  backend: string;
  db?: string;
  json?: boolean;
  write?: boolean;
  allowBusy?: boolean;
  quietBelow: number;
  progress: number;
  resume?: boolean;
  maxNewRuns?: number;
  only?: string;
  all?: boolean;
  again?: boolean;
  dryRun?: boolean;
}

/** How long the machine is watched before a timing-sensitive calibration starts. */
const BUSY_SAMPLE_MS = 3000;

function atLeastTwo(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 2) throw new InvalidInputError(`--runs must be an integer of at least 2 (a standard deviation needs two), got "${value}"`);
  return n;
}

export function registerCalibrate(program: Command, io: Io): void {
  dbOption(
    executorOptions(
      program
        .command("calibrate")
        .description(COMMAND_SUMMARIES.calibrate)
        .argument("[names...]", "environment names (see `rebench environments list`), one after another; or --all")
        .requiredOption("--variant <variant>", "mini, gpu or paper")
        .option("--runs <n>", "runs of each solution (at least 2)", atLeastTwo, 5)
        .option(
          "--concurrency <c>",
          "runs of a solution at a time (each gets its own GPUs, waiting for free ones; default 1, with --executor slurm all)",
          positiveInteger("--concurrency"),
        )
        .option(
          "--runs-per-gpu <n>",
          "let n concurrent runs share one GPU (a one-GPU machine calibrating a variant that uses little of it; refused where the score times the code)",
          positiveInteger("--runs-per-gpu"),
        )
        .option("--task <task>", "main or hidden_score", "main")
        .option("--backend <name>", "sandbox backend", "local")
        .option(
          "--write",
          "record the numbers in environments/NAME/calibration.json as the entry of this machine's class: the constants of the variant's runs on machines of that class",
        )
        .option(
          "--allow-busy",
          "calibrate a timing-sensitive variant (or one whose reference trains for a fixed time) although other work uses the machine (recorded in calibration.json's note)",
        )
        .option(
          "--quiet-below <cpus>",
          "CPUs of other work the machine may show before a timing-sensitive calibration starts",
          positiveNumber("--quiet-below"),
          CONTENTION_THRESHOLD_CPUS,
        )
        .option("--resume", "count the finished, scored calibration runs already in --db (same environment files, task and solution) and run only the rest")
        .option(
          "--max-new-runs <n>",
          "start at most n runs in this invocation (with --resume: a calibration split over several calls, e.g. a GPU machine's 10-minute ones); exit 1 'incomplete' until all are done",
          positiveInteger("--max-new-runs"),
        )
        .option(
          "--only <solution>",
          "start or reference: run only that solution's runs (with --resume: a calibration split over calls, the reference's first to see the gap early)",
        )
        .option(
          "--all",
          "every environment listed whose variant is available and has no entry for this machine's class yet (--again: those too), one after another, keeping finished runs (--resume)",
        )
        .option("--again", "with --all: also the environments already calibrated for this machine's class")
        .option("--dry-run", "print what would be calibrated, what is skipped and why, and the expected duration; run nothing")
        .option("--progress <seconds>", "seconds between progress lines when not on a terminal", positiveNumber("--progress"), 30)
        .option("--json", "print one JSON object: {environment, variant, machine, start: {mean, std, n, values}, reference, gapOverStd, pass, ...}"),
    ).addHelpText(
      "after",
      `\nThe rule: |mean(reference) − mean(start)| ≥ ${CALIBRATION_GAP_FACTOR} × the larger standard deviation, and the reference beats the start.` +
        "\nExit status 1 when it fails or a run has no final score; nothing is written then." +
        `\nA timing-sensitive variant, or one whose reference trains for a fixed time (restricted_mlm), is not calibrated while other work` +
        `\nuses more than ${CONTENTION_THRESHOLD_CPUS} CPUs (exit 5), nor the latter with runs at once on a CPU; and --write of a timing-sensitive one` +
        "\nrefuses runs scored under contention (exit 1); --allow-busy overrides both.\n\nExamples:\n" +
        "  rebench calibrate optimize_kernel --variant mini\n  rebench calibrate optimize_kernel --variant gpu --runs 5 --write\n" +
        "  rebench calibrate scaling_law --variant gpu --runs 3 --concurrency 2 --write   # two runs at a time, on GPUs 0 and 1\n" +
        "  rebench calibrate finetune_gpt2_qa --variant gpu --runs 5 --concurrency 5 --runs-per-gpu 5   # five runs at a time on one GPU\n" +
        "  rebench calibrate --all --variant mini --write --dry-run   # what a new machine class needs, and how long\n" +
        "  rebench calibrate --all --variant mini --write --db calibration.db   # all of it; run it again to go on",
    ),
  ).action((names: string[], options: CalibrateOptions) => calibrateMany(names, options, io));
}

/** One variant in the plan of `calibrate --all` (or of several names): what runs, or why not, and how long it may take. */
interface Planned {
  name: string;
  skip?: string;
  /** Why the calibration needs a quiet machine (`quietNeed`): its scorings are timed, or its reference is. */
  quiet?: "timing" | "reference";
  /** Expected minutes of the whole calibration (runs of both solutions), and where the number comes from. */
  minutes?: number;
  minutesFrom?: string;
}

async function calibrateMany(names: string[], options: CalibrateOptions, io: Io): Promise<void> {
  if (options.all && names.length > 0) throw new InvalidInputError("give environment names or --all, not both");
  if (!options.all && names.length === 0) {
    throw new InvalidInputError("name the environment to calibrate (or several), or give --all", { hint: "`rebench environments list` lists them" });
  }
  if (options.again && !options.all) throw new InvalidInputError("--again goes with --all (named environments are calibrated whatever they hold)");
  if (names.length === 1 && !options.dryRun) return calibrate(names[0]!, options, io);
  if (options.json && !options.dryRun) {
    throw new InvalidInputError("--json prints one calibration: give one name (each calibration's numbers are in its store and calibration.json)");
  }
  const variant = parseVariant(options.variant);
  const machine = await probeMachine();
  const db = resolveDbPath(options.db);
  const plan = await withStore(db, async (store) => {
    const out: Planned[] = [];
    for (const name of options.all ? listEnvironments().map((f) => f.name) : names) out.push(await planOne(store, name, variant, machine, options));
    return out;
  });
  const todo = plan.filter((p) => p.skip === undefined);
  const known = todo.filter((p) => p.minutes !== undefined);
  const total = known.reduce((sum, p) => sum + p.minutes!, 0);
  const expected =
    todo.length === 0
      ? "nothing to calibrate"
      : known.length === 0
        ? "expected duration unknown: no calibration of these variants on any machine recorded its runs' minutes, nor does the store hold runs of them"
        : `expected ${formatMinutes(total)}${known.length < todo.length ? ` for ${known.length} of ${todo.length} (the others' duration is unknown here)` : ""}`;
  const planText = formatTable(plan, [
    { header: "ENVIRONMENT", value: (p) => `${p.name}/${variant}` },
    { header: "TIMING", value: (p) => (p.quiet === "timing" ? "yes" : (p.quiet ?? "no")) },
    { header: "PLAN", value: (p) => p.skip ?? `${options.runs} + ${options.runs} runs` },
    { header: "EXPECTED", value: (p) => (p.skip !== undefined ? "" : p.minutes === undefined ? "unknown" : `${formatMinutes(p.minutes)} (${p.minutesFrom})`) },
  ]);
  if (options.json) {
    printJson(io, { variant, machineClass: machineClass(machine, "cpu") ?? null, plan, expectedMinutes: total, store: storeDisplay(db) });
    return;
  }
  io.out(`Calibration plan for ${describeMachine(machine)}, store ${storeDisplay(db)}:\n${planText}\n${expected}\n`);
  if (options.dryRun) return;
  const results: { name: string; error?: string }[] = [];
  for (const [i, p] of todo.entries()) {
    io.out(`\n[${i + 1}/${todo.length}] ${p.name}/${variant}${p.minutes === undefined ? "" : ` (expected ${formatMinutes(p.minutes)})`}\n`);
    try {
      await calibrate(p.name, { ...options, resume: options.all ? true : options.resume }, io);
      results.push({ name: p.name });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      io.err(`rebench: ${p.name}/${variant}: ${message}\n`);
      results.push({ name: p.name, error: message });
    }
  }
  const failed = results.filter((r) => r.error !== undefined);
  io.out(
    `\n${formatTable(results, [
      { header: "ENVIRONMENT", value: (r) => `${r.name}/${variant}` },
      { header: "RESULT", value: (r) => (r.error === undefined ? (options.write ? "calibrated (written)" : "calibrated") : `not done: ${r.error}`) },
    ])}\n`,
  );
  if (failed.length > 0) {
    const again = options.all ? `rebench calibrate --all --variant ${variant}${options.write ? " --write" : ""} --db ${storeDisplay(db)}` : "";
    throw new ReportedFailureError(`${failed.length} of ${results.length} calibrations are not done (${failed.map((r) => r.name).join(", ")})`, {
      hint: again
        ? `run \`${again}\` again (on a quiet machine for the timing-sensitive ones): the finished runs are kept`
        : "each line above says why; run them again with --resume: the finished runs are kept",
    });
  }
}

/** Whether `name`'s variant runs here, and how long its calibration is expected to take. */
async function planOne(store: RunStore, name: string, variant: Variant, machine: MachineInfo, options: CalibrateOptions): Promise<Planned> {
  const family = getEnvironment(name);
  const definition = family.variants[variant];
  const quiet = quietNeed(definition.manifest.scoring)?.kind;
  const kind = { name, ...(quiet === undefined ? {} : { quiet }) };
  if (definition.availability.status === "unavailable") return { ...kind, skip: `skipped: not available (${definition.availability.reason})` };
  const cls = machineClass(machine, definition.classKind);
  if (cls === undefined) return { ...kind, skip: "skipped: calibrated per GPU model and this machine has no GPU" };
  const entries = readCalibrationFile(family.dir)?.[variant] ?? {};
  const here = entries[cls];
  if (options.all && here && !options.again) return { ...kind, skip: `skipped: calibrated for ${cls} on ${here.date.slice(0, 10)} (--again redoes it)` };
  const concurrency = options.concurrency ?? 1;
  const measured: [string, VariantCalibration] | undefined = here?.minutes ? [cls, here] : Object.entries(entries).find(([, e]) => e.minutes !== undefined);
  if (measured?.[1].minutes) {
    const m = measured[1].minutes;
    return { ...kind, minutes: (options.runs * (m.start + m.reference)) / concurrency, minutesFrom: `its runs on ${measured[0]}` };
  }
  const digest = environmentDigest(family.dir, requireImplementation(family.name, variant));
  const prior = { start: [] as number[], reference: [] as number[] };
  for (const run of await store.listRuns({ environment: family.name, variant, states: ["finished"] })) {
    const actions = run.spec.config.actions;
    if ((actions === "start" || actions === "reference") && run.spec.provenance?.environmentDigest === digest) {
      const minutes = await runMinutes(store, run);
      if (minutes !== undefined) prior[actions].push(minutes);
    }
  }
  if (prior.start.length > 0 && prior.reference.length > 0) {
    return { ...kind, minutes: (options.runs * (mean(prior.start) + mean(prior.reference))) / concurrency, minutesFrom: "earlier runs in the store" };
  }
  return kind;
}

/**
 * A run's wall-clock minutes from leaving the queue (its first state change) to its end: a batch creates its
 * runs at once, so from `createdAt` a run would also count the runs it waited for.
 */
async function runMinutes(store: RunStore, run: RunSummary): Promise<number | undefined> {
  const dequeued = (await store.events(run.id, { types: ["state_changed"], limit: 1 }))[0]?.event.ts ?? run.createdAt;
  const from = Date.parse(dequeued);
  const to = run.finishedAt === null ? Number.NaN : Date.parse(run.finishedAt);
  return Number.isFinite(from) && Number.isFinite(to) && to >= from ? (to - from) / 60_000 : undefined;
}

function mean(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length;
}

function formatMinutes(minutes: number): string {
  return minutes < 90 ? `${Math.max(1, Math.round(minutes))} min` : `${(minutes / 60).toFixed(1)} h`;
}

async function calibrate(name: string, options: CalibrateOptions, io: Io): Promise<void> {
  const variant = parseVariant(options.variant);
  if (options.only !== undefined && options.only !== "start" && options.only !== "reference") {
    throw new InvalidInputError(`--only is start or reference, got "${options.only}"`);
  }
  const family = getEnvironment(name);
  const task = checkTask(family, parseTaskId(options.task));
  requireImplementation(family.name, variant);
  if (options.executor === "slurm" && options.write) {
    // The runs would be scored on nodes whose machine class the runs do not record yet (docs/runs.md, "Machine classes").
    throw new InvalidInputError("--write records the entry of the machine class the runs ran on, which a Slurm calibration does not know", {
      hint: `run \`rebench calibrate ${family.name} --variant ${variant} --write\` on a node of the class instead`,
    });
  }
  const machine = await probeMachine();
  const definition = family.variants[variant];
  const machineClassHere = machineClass(machine, definition.classKind);
  if (machineClassHere === undefined) {
    throw new InvalidInputError(`${family.name}/${variant} is calibrated per GPU model and this machine has no GPU`, { hint: "calibrate it on a GPU machine" });
  }
  const { timingSensitive, timedReference } = definition.manifest.scoring;
  const needsQuiet = quietNeed(definition.manifest.scoring)?.why;
  // Slurm runs each run as a job of its own CPUs; locally, concurrent runs of a CPU variant share this machine's.
  const sharesCpus = options.executor !== "slurm" && !definition.manifest.resources.gpu && (options.concurrency ?? 1) > 1;
  if (timedReference !== undefined && sharesCpus && !options.allowBusy) {
    throw new InvalidInputError(`${family.name}/${variant}: ${timedReference}, so runs at once on this machine's CPUs would cost each other's training steps`, {
      hint: "leave out --concurrency (one run at a time), or add --allow-busy to calibrate so anyway (recorded in calibration.json's note)",
    });
  }
  const busyBefore =
    needsQuiet === undefined ? undefined : await checkQuiet(io, `${family.name}/${variant} ${needsQuiet}`, options.allowBusy === true, options.quietBelow);
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
    ...(options.runsPerGpu === undefined ? {} : { runsPerGpu: options.runsPerGpu }),
    executor: executorSettings(options, db, progressIo),
    backend: options.backend,
    progressSeconds: options.progress,
    storeShown: shown,
  };
  const digest = environmentDigest(family.dir, requireImplementation(family.name, variant));
  let budget = options.maxNewRuns ?? Number.POSITIVE_INFINITY;
  const solutionRuns = async (store: RunStore, actions: "start" | "reference"): Promise<RunSummary[]> => {
    const kept = options.resume
      ? await priorCalibrationRuns(store, { environment: family.name, variant, task, actions, digest, machineClass: machineClassHere })
      : [];
    const wanted = options.only !== undefined && options.only !== actions ? 0 : Math.min(options.runs - Math.min(kept.length, options.runs), budget);
    budget -= wanted;
    if (kept.length > 0) io.err(`rebench: ${Math.min(kept.length, options.runs)} finished ${actions} run(s) kept from ${db}\n`);
    const fresh = wanted > 0 ? await runAgentBatch(store, { ...common, runs: wanted, actions }, progressIo) : [];
    return [...kept.slice(0, options.runs), ...fresh];
  };
  const [startRuns, referenceRuns, minutes] = await withStore(db, async (store) => {
    const [start, reference] = [await solutionRuns(store, "start"), await solutionRuns(store, "reference")];
    return [start, reference, await solutionMinutes(store, start, reference)] as const;
  });
  if (startRuns.length < options.runs || referenceRuns.length < options.runs) {
    const have = `start ${startRuns.length} of ${options.runs}, reference ${referenceRuns.length} of ${options.runs}`;
    if (options.json)
      printJson(io, {
        environment: family.name,
        variant,
        task,
        incomplete: true,
        have: { start: startRuns.length, reference: referenceRuns.length },
        runs: options.runs,
        db,
      });
    const limits = [options.maxNewRuns === undefined ? "" : `--max-new-runs ${options.maxNewRuns}`, options.only ? `--only ${options.only}` : ""].filter(
      Boolean,
    );
    throw new ReportedFailureError(`the calibration of ${family.name}/${variant} is incomplete (${have}; ${limits.join(", ")})`, {
      hint: options.only
        ? `run it again with --resume --db ${db} and without --only (or --only ${options.only === "start" ? "reference" : "start"}): the finished runs are kept`
        : `run the same command again with --resume --db ${db}: the finished runs are kept`,
    });
  }
  const unscored = [...startRuns, ...referenceRuns].filter((r) => r.finalRaw === null);
  if (unscored.length > 0) {
    io.err(`\n${runsTable([...startRuns, ...referenceRuns])}`);
    throw new ReportedFailureError(`${unscored.length} calibration run(s) have no final score, so ${family.name}/${variant} cannot be calibrated`, {
      hint: `\`rebench runs show ${unscored[0]!.id} --events --db ${shown}\` shows what happened`,
    });
  }
  const contended = {
    start: startRuns.filter((r) => r.contendedScores > 0).map((r) => r.id),
    reference: referenceRuns.filter((r) => r.contendedScores > 0).map((r) => r.id),
  };
  const contendedCount = contended.start.length + contended.reference.length;
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
    ...minutes,
    ...(options.allowBusy && needsQuiet !== undefined
      ? { note: busyNote(busyBefore, contendedCount, startRuns.length + referenceRuns.length, common.concurrency) }
      : {}),
    // Refused for timing-sensitive variants (agent-batch.ts), so it never meets the --allow-busy note.
    ...((options.runsPerGpu ?? 1) > 1
      ? {
          note: `calibrated with --runs-per-gpu ${options.runsPerGpu}: up to ${options.runsPerGpu} runs shared a GPU (this call's setting; runs kept by --resume ran under their own)`,
        }
      : {}),
  };
  const file = calibrationPath(family.dir);
  // A contended run's timing is not this machine's: such numbers are not written without --allow-busy.
  const refusedBusy = contendedCount > 0 && !options.allowBusy;
  const written =
    options.write && verdict.pass && !refusedBusy
      ? await writeVariantCalibration(family.dir, variant, machineClassHere, calibration, definition.manifest.canary)
      : null;
  const batches = { start: batchOf(startRuns), reference: batchOf(referenceRuns) };
  if (options.json) {
    printJson(io, {
      environment: family.name,
      variant,
      task,
      direction,
      machineClass: machineClassHere,
      ...calibration,
      gap: verdict.gap,
      largerStd: verdict.largerStd,
      referenceBetter: verdict.referenceBetter,
      pass: verdict.pass,
      timingSensitive,
      timedReference: timedReference ?? null,
      busyBefore: busyBefore ?? null,
      contended,
      constants: variant === "paper" ? null : { start: start.mean, reference: reference.mean },
      written,
      batches,
      runIds: { start: startRuns.map((r) => r.id), reference: referenceRuns.map((r) => r.id) },
      db: shown,
    });
  } else {
    io.out(report({ name: family.name, variant, task, direction, machine, machineClass: machineClassHere, start, reference, verdict }));
    if (contendedCount > 0) {
      io.out(
        `contended: ${contendedCount} of ${startRuns.length + referenceRuns.length} runs were scored while other work used the machine ` +
          `(start: ${contended.start.join(", ") || "none"}; reference: ${contended.reference.join(", ") || "none"}); their timings are not comparable\n`,
      );
    }
    if (written) io.out(`${constantsLine(variant, start, reference)} written to ${written} under "${variant}" → "${machineClassHere}"\n`);
    else if (options.write && !verdict.pass) io.out(`nothing written to ${file}: the rule failed\n`);
    else if (options.write)
      io.out(`nothing written to ${file}: ${contendedCount} run(s) were scored under contention (calibrate on a quiet machine, or add --allow-busy)\n`);
    else io.out(`${constantsLine(variant, start, reference)}; not written (add --write to record them in ${file})\n`);
    io.out(`runs: batch ${batches.start} (start), ${batches.reference} (reference); store ${shown}\n`);
  }
  if (!verdict.pass) {
    throw new ReportedFailureError(`${family.name}/${variant} fails the calibration rule: ${ruleText(verdict, direction)}`, {
      hint: "the starting and reference solutions must differ by far more than the noise: reduce the noise (quieter machine, more repetitions inside the grader) or widen the gap",
    });
  }
  if (options.write && refusedBusy) {
    throw new ReportedFailureError(
      `${contendedCount} calibration run(s) of ${family.name}/${variant} were scored while other work used the machine, so nothing was written`,
      {
        hint: "calibrate again on a quiet machine (`uptime`: load well under the core count), or add --allow-busy to write them anyway",
      },
    );
  }
}

/**
 * Watch the machine for a few seconds before a timing-sensitive calibration: refuse when other work uses it
 * (ConflictError, exit 5), unless `allowBusy`, which warns instead. Returns the sample.
 */
async function checkQuiet(io: Io, what: string, allowBusy: boolean, quietBelow: number): Promise<HostBusySample | undefined> {
  const sample = await sampleHostBusy(BUSY_SAMPLE_MS);
  if (sample === undefined || !machineBusy(sample.busyCpus, quietBelow)) return sample;
  const busy =
    `other work is using ${sample.busyCpus.toFixed(1)} of this machine's ${sample.cpus} CPUs (over ${sample.seconds.toFixed(0)} s; ` +
    `load average ${sample.load?.toFixed(2) ?? "unknown"})`;
  if (!allowBusy) {
    throw new ConflictError(`${what} and ${busy}: its calibration would not hold on a quiet machine`, {
      hint: "wait until the machine is quiet (`uptime`: load well under the core count) and run it again, or add --allow-busy to calibrate anyway (recorded in calibration.json's note)",
    });
  }
  io.err(`rebench: warning: ${busy}; calibrating anyway (--allow-busy)\n`);
  return sample;
}

function busyNote(sample: HostBusySample | undefined, contended: number, runs: number, concurrency: number): string {
  const before = sample ? `other work used ${sample.busyCpus.toFixed(2)} of ${sample.cpus} CPUs before it started` : "the machine's load was not measured";
  const together = concurrency > 1 ? `; ${concurrency} runs at a time` : "";
  return `calibrated with --allow-busy: ${before}${together}; ${contended} of ${runs} runs were scored under contention`;
}

interface ReportInput {
  name: string;
  variant: Variant;
  task: TaskId;
  direction: "min" | "max";
  machine: MachineInfo;
  machineClass: string;
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
    `machine: ${describeMachine(m)}; ${m.os}; rebench ${m.rebenchVersion}${m.rebenchCommit ? ` (${m.rebenchCommit})` : ""}\n` +
    `machine class: ${r.machineClass} (--write records the entry of this class only)\n\n` +
    table +
    `\n${ruleText(r.verdict, r.direction)}: ${r.verdict.pass ? "PASS" : "FAIL"}\n`
  );
}

function ruleText(v: CalibrationVerdict, direction: "min" | "max"): string {
  // Deterministic solutions (both standard deviations 0) have no ratio to print: any gap above 0 is enough.
  const ratio =
    v.gapOverStd === null
      ? ` and both standard deviations are 0 (needs a gap above 0)`
      : ` = ${formatNumber(v.gapOverStd, 2)} × the larger standard deviation ${formatNumber(v.largerStd)} (needs ≥ ${CALIBRATION_GAP_FACTOR}×)`;
  const better = v.referenceBetter ? "" : `; the reference is not better than the start (${direction === "min" ? "lower" : "higher"} is better)`;
  return `gap |reference − start| = ${formatNumber(v.gap)}${ratio}${better}`;
}

function constantsLine(variant: Variant, start: ScoreStats, reference: ScoreStats): string {
  if (variant === "paper") return "numbers (paper keeps the paper's normalization constants)";
  return `normalization constants (the means): start ${formatNumber(start.mean)}, reference ${formatNumber(reference.mean)}`;
}

/**
 * Finished, scored calibration runs of one solution already in the store, newest first: the same environment,
 * variant and task, replayed with the same actions, on the same environment files (provenance digest), on a
 * machine of the same class.
 */
async function priorCalibrationRuns(
  store: RunStore,
  want: { environment: string; variant: Variant; task: TaskId; actions: "start" | "reference"; digest: string; machineClass: string },
): Promise<RunSummary[]> {
  const runs = await store.listRuns({ environment: want.environment, variant: want.variant, states: ["finished"] });
  return runs.filter(
    (r) =>
      r.finalRaw !== null &&
      r.spec.task === want.task &&
      r.spec.participant.kind === "agent" &&
      r.spec.participant.scaffold === "replay" &&
      r.spec.config.actions === want.actions &&
      r.spec.provenance?.environmentDigest === want.digest &&
      r.spec.machineClass === want.machineClass,
  );
}

/** `minutes` of a calibration entry: the mean wall-clock minutes of a run of each solution, when every run has both ends. */
async function solutionMinutes(
  store: RunStore,
  startRuns: readonly RunSummary[],
  referenceRuns: readonly RunSummary[],
): Promise<Pick<VariantCalibration, "minutes">> {
  const start = await Promise.all(startRuns.map((run) => runMinutes(store, run)));
  const reference = await Promise.all(referenceRuns.map((run) => runMinutes(store, run)));
  if ([...start, ...reference].some((m) => m === undefined)) return {};
  return { minutes: { start: round(mean(start as number[])), reference: round(mean(reference as number[])) } };
}

function batchOf(runs: readonly RunSummary[]): string | null {
  return runs[0]?.spec.batchId ?? null;
}

function round(value: number): number {
  return Number(value.toFixed(4));
}
