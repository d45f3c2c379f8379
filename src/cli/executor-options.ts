/**
 * @module
 * `--executor local|slurm [--partition P] [--slurm-option OPT]...` for the commands that run batches
 * (run, calibrate, main), and what the Slurm executor needs from the command line: the argv that starts
 * this rebench again in each job, and the store as the jobs open it.
 */
import type { Command } from "commander";
import { type Executor, InvalidInputError, type RunSummary, type SlurmConfig } from "../core/index.js";
import type { SlurmContext } from "../runs/slurm-executor.js";
import { resolveStore } from "../store/index.js";
import type { Io } from "./io.js";

export interface ExecutorCliOptions {
  executor: string;
  partition?: string;
  slurmOption?: string[];
}

export interface ExecutorSettings {
  executor: Executor;
  slurm?: SlurmConfig;
  /** Set for executor `slurm`. */
  context?: SlurmContext;
}

/** The line that reports a job array submitted for `runs` (element i drives runs[i]). */
export function arraySubmittedLine(runs: readonly RunSummary[], jobId: string): string {
  const which =
    runs.length <= 4 ? runs.map((r, i) => `${jobId}_${i} ${r.id}`).join(", ") : `${jobId}_0 ${runs[0]!.id} … ${jobId}_${runs.length - 1} ${runs.at(-1)!.id}`;
  return `Slurm job array ${jobId} submitted: ${runs.length} run(s), element i drives the i-th (${which})\n`;
}

/** Add `--executor`, `--partition` and `--slurm-option` to a command. */
export function executorOptions(command: Command): Command {
  return command
    .option(
      "--executor <name>",
      "local (this process drives the runs) or slurm (a Slurm job array per batch, an element per run; docs/gpus-and-clusters.md)",
      "local",
    )
    .option("--partition <name>", "Slurm partition of the jobs (--executor slurm)")
    .option(
      "--slurm-option <option>",
      "a further sbatch option for the jobs, e.g. --slurm-option=--time=02:00:00 (repeatable; --executor slurm)",
      (value: string, previous: string[] = []) => [...previous, value],
    );
}

/** The argv that starts this rebench: node, its flags (a loader such as tsx), the entry script. */
export function rebenchCommand(): string[] {
  return [process.execPath, ...process.execArgv, process.argv[1] ?? "rebench"];
}

/** Where the Slurm executor's jobs open the store, and how they start rebench (`warn`: about a SQLite store, default true). */
export function slurmContext(db: string | undefined, io: Io, options: { warn?: boolean } = {}): SlurmContext {
  const target = resolveStore(db);
  if (target.kind === "sqlite" && options.warn !== false) {
    io.err(
      `rebench: warning: the Slurm jobs write to the SQLite file ${target.path}: that holds only where every node sees it on a ` +
        "local disk (a one-node cluster); on a cluster use a PostgreSQL store (--db postgres://USER@HOST/DB)\n",
    );
  }
  return {
    command: rebenchCommand(),
    db: target.kind === "sqlite" ? target.path : target.url,
    onNote: (line) => io.err(line),
  };
}

export function executorSettings(options: ExecutorCliOptions, db: string | undefined, io: Io): ExecutorSettings {
  if (options.executor !== "local" && options.executor !== "slurm") {
    throw new InvalidInputError(`--executor is local or slurm, got "${options.executor}"`);
  }
  const slurmOptions = options.slurmOption ?? [];
  if (options.executor === "local") {
    if (options.partition !== undefined || slurmOptions.length > 0) {
      throw new InvalidInputError("--partition and --slurm-option are for --executor slurm", { hint: "add --executor slurm, or leave them out" });
    }
    return { executor: "local" };
  }
  for (const option of slurmOptions) {
    if (!option.startsWith("-")) {
      throw new InvalidInputError(`--slurm-option takes one sbatch option, such as --slurm-option=--time=02:00:00; got "${option}"`);
    }
  }
  return {
    executor: "slurm",
    slurm: { ...(options.partition ? { partition: options.partition } : {}), options: slurmOptions },
    context: slurmContext(db, io),
  };
}
