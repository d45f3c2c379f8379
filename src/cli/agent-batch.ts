/**
 * @module
 * A batch of agent runs as `rebench run` and `rebench main` start it: checks everything that can fail
 * before any run is created (environment, variant, scaffold, model and its API key, settings, sandbox
 * backend), then runs the batch with live progress, warns about runs scored under contention and returns the
 * runs' summaries. Interrupted (Ctrl-C, SIGTERM), it says what it leaves: the unfinished runs keep their
 * sandboxes and score logs, and `rebench runs resume` continues them or `rebench runs cancel` ends them (a
 * run outlives its orchestrator by design, docs/runs.md); then it exits with 130.
 */
import path from "node:path";
import { parseModelSpec } from "../agents/models/model-spec.js";
import type { ReplayStep } from "../core/index.js";
import { InvalidInputError, isTerminal, quietNeed, RunSpec, type RunSummary, type TaskId, type Variant } from "../core/index.js";
import { getEnvironment } from "../environments/index.js";
import { runBatch } from "../runs/batch.js";
import type { DriveOptions } from "../runs/drive-run.js";
import { newRunSpec } from "../runs/run-environment.js";
import { sandboxBackend } from "../runs/sandbox-backends.js";
import { agentFor } from "../runs/scaffolds.js";
import type { RunStore } from "../store/index.js";
import { BatchProgress } from "./batch-progress.js";
import { registerBuiltins } from "./builtins.js";
import { warnContended } from "./contention-warning.js";
import { arraySubmittedLine, type ExecutorSettings } from "./executor-options.js";
import type { Io } from "./io.js";

export interface AgentBatchRequest {
  environment: string;
  variant: Variant;
  task: TaskId;
  scaffold: string;
  /** `PROVIDER:MODEL`, for scaffolds that call a model. */
  model?: string;
  /** What reports group the runs by; default from the model and scaffold (`gpt-4o (modular)`, `reference (replay)`). */
  alias?: string;
  timeLimitSeconds: number;
  tokens?: number;
  costUsd?: number;
  runs: number;
  concurrency: number;
  /** Runs that may share one GPU (default 1); refused for a timing-sensitive variant and with the Slurm executor. */
  runsPerGpu?: number;
  /** Sandbox backend name. */
  backend: string;
  /** The scaffold's settings (`spec.config.agent`). */
  agentConfig?: Record<string, unknown>;
  /** For `replay`: `reference`, `start` or the steps of an actions file (named by `actionsFile`). */
  actions?: "reference" | "start" | ReplayStep[];
  actionsFile?: string;
  /** Seconds between progress lines when not on a terminal. */
  progressSeconds: number;
  /** Default local; `slurm`: a Slurm job array, an element per run (executorSettings()). */
  executor?: ExecutorSettings;
  /** The store as the commands name it (`storeDisplay`), for what an interrupted batch prints. */
  storeShown?: string;
}

export function defaultAlias(request: Pick<AgentBatchRequest, "scaffold" | "model" | "actions" | "actionsFile">): string {
  if (request.scaffold === "replay") {
    const what = Array.isArray(request.actions) ? path.basename(request.actionsFile ?? "actions") : (request.actions ?? "reference");
    return `${what} (replay)`;
  }
  return request.model ? `${parseModelSpec(request.model).model} (${request.scaffold})` : request.scaffold;
}

/** `makeAgent`: build each run's agent with its sandbox instead of from the scaffold registry (`rebench exploits`). */
export async function runAgentBatch(store: RunStore, request: AgentBatchRequest, io: Io, options: Pick<DriveOptions, "makeAgent"> = {}): Promise<RunSummary[]> {
  registerBuiltins();
  const participant = {
    kind: "agent" as const,
    alias: request.alias ?? defaultAlias(request),
    scaffold: request.scaffold,
    ...(request.model ? { model: request.model } : {}),
  };
  const config = {
    ...(request.agentConfig ? { agent: request.agentConfig } : {}),
    ...(request.actions ? { actions: request.actions } : {}),
  };
  const limits = {
    ...(request.tokens === undefined ? {} : { tokens: request.tokens }),
    ...(request.costUsd === undefined ? {} : { costUsd: request.costUsd }),
  };
  // Everything that can be wrong fails here, before a run exists.
  const probe = RunSpec.parse(
    await newRunSpec({
      environment: request.environment,
      variant: request.variant,
      task: request.task,
      participant,
      limits: { workingSeconds: request.timeLimitSeconds, ...limits },
      config: { ...config, sandbox: request.backend, ...(request.executor?.executor === "slurm" ? { executor: "slurm" as const } : {}) },
    }),
  );
  await agentFor(probe);
  sandboxBackend(request.backend);
  checkRunsPerGpu(request);

  const batchId = `${request.scaffold}-${request.environment}-${Date.now().toString(36)}`;
  const progress = new BatchProgress({
    io,
    store,
    batchId,
    total: request.runs,
    label: `${request.environment}/${request.variant} ${participant.alias}`,
    everySeconds: request.progressSeconds,
  });
  progress.start();
  const settings = request.executor;
  const slurm = settings?.context
    ? {
        ...settings.context,
        onSubmitted: (run: RunSummary, jobId: string) => progress.note(`run ${run.id}: Slurm job ${jobId} submitted\n`),
        onArraySubmitted: (runs: readonly RunSummary[], jobId: string) => progress.note(arraySubmittedLine(runs, jobId)),
        onJobEnded: (run: RunSummary, job: { id: string; state: string }) =>
          progress.note(`run ${run.id}: its Slurm job ${job.id} ended (${job.state}) before the run did; \`rebench runs resume\` submits it again\n`),
        onNote: (line: string) => progress.note(line),
      }
    : undefined;
  const onSignal = (signal: NodeJS.Signals) => void leaveInterrupted(store, batchId, request.storeShown, signal, io);
  process.once("SIGINT", onSignal).once("SIGTERM", onSignal);
  let runs: RunSummary[];
  try {
    runs = await runBatch(
      {
        id: batchId,
        participant,
        environment: request.environment,
        variant: request.variant,
        task: request.task,
        timeLimitSeconds: request.timeLimitSeconds,
        limits,
        runs: request.runs,
        concurrency: request.concurrency,
        sandbox: request.backend,
        config,
        ...(settings?.executor === "slurm" ? { executor: "slurm" as const, slurm: settings.slurm ?? { options: [] } } : {}),
      },
      {
        store,
        onRunEnded: (run) => progress.runEnded(run),
        gpus: { onWait: (line) => progress.note(line), ...(request.runsPerGpu ? { runsPerGpu: request.runsPerGpu } : {}) },
        ...(slurm ? { slurm } : {}),
        ...options,
      },
    );
  } finally {
    process.off("SIGINT", onSignal).off("SIGTERM", onSignal);
    await progress.stop();
  }
  await warnContended(io, store, runs);
  return runs;
}

/**
 * Runs share a GPU only where nothing is timed and the runs are this process's: a timing-sensitive variant's
 * runs would slow each other's scored code, those of a variant whose reference trains for a fixed time each
 * other's training, and a Slurm job gets the GPUs the scheduler allocates.
 */
function checkRunsPerGpu(request: AgentBatchRequest): void {
  if ((request.runsPerGpu ?? 1) <= 1) return;
  if (request.executor?.executor === "slurm") {
    throw new InvalidInputError("--runs-per-gpu is for the local executor: a Slurm job's runs get the GPUs the scheduler allocates to it", {
      hint: "leave out --runs-per-gpu, or use --executor local",
    });
  }
  const manifest = getEnvironment(request.environment).variants[request.variant].manifest;
  const quiet = quietNeed(manifest.scoring);
  if (quiet !== undefined) {
    throw new InvalidInputError(`${request.environment}/${request.variant} ${quiet.why}: runs sharing a GPU ${quiet.cost}`, {
      hint: "leave out --runs-per-gpu: each run gets a GPU of its own",
    });
  }
  if (!manifest.resources.gpu) {
    throw new InvalidInputError(`${request.environment}/${request.variant} uses no GPU, so --runs-per-gpu has nothing to share`, {
      hint: "leave out --runs-per-gpu",
    });
  }
}

/** Print what an interrupted batch leaves behind and how to go on, then exit (130: interrupted). */
async function leaveInterrupted(store: RunStore, batchId: string, shown: string | undefined, signal: NodeJS.Signals, io: Io): Promise<never> {
  const hardStop = setTimeout(() => process.exit(130), 5000).unref(); // the store may be mid-write: do not hang on it
  process.once("SIGINT", () => process.exit(130)).once("SIGTERM", () => process.exit(130)); // a second signal quits at once
  const open = await store
    .listRuns({ batchId })
    .then((runs) => runs.filter((run) => !isTerminal(run.state)))
    .catch(() => undefined);
  const db = shown === undefined ? "" : ` --db ${shown}`;
  const ids = open === undefined ? "(the store could not be read)" : open.map((run) => `${run.id} (${run.state})`).join(", ") || "none";
  io.err(
    `\nrebench: ${signal === "SIGINT" ? "interrupted" : `stopped by ${signal}`}; unfinished runs of batch ${batchId}: ${ids}.\n` +
      `Their sandboxes and score logs are kept (what runs in them goes on): \`rebench runs resume${db}\` continues them, ` +
      `\`rebench runs cancel ID${db}\` ends one for good and removes its sandbox.\n`,
  );
  clearTimeout(hardStop);
  process.exit(130);
}
