/**
 * @module
 * The human and developer path: `rebench start` materializes an environment in a directory the person
 * works in and starts a run (driver `cli`); `rebench score` mirrors that directory into the run's sandbox
 * and scores it exactly as the agent's `score` action does (or, with submit, ends the run). The directory
 * keeps a marker, `.rebench/run.json`, naming the run and its store. A start that fails or is interrupted
 * marks its run failed and leaves the directory as it found it (absent or empty), so it can be used again.
 */
import { existsSync } from "node:fs";
import { cp, mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import {
  ConflictError,
  InvalidInputError,
  isTerminal,
  NotFoundError,
  type Participant,
  type RunOutcomeView,
  type RunSummary,
  type ScoreView,
  type TaskId,
  type UsageLimits,
  type Variant,
} from "../core/index.js";
import { releaseRunGpus } from "../sandbox/gpu-leases.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import type { RunStore } from "../store/store.js";
import { type Clock, systemClock } from "./clock.js";
import { destroyRunSandbox } from "./destroy-run-sandbox.js";
import { createRunSandbox, prepareVariant } from "./materialize.js";
import { newRunSpec, runEnvironment } from "./run-environment.js";
import { noteLeasedGpus } from "./run-gpus.js";
import { RunLog } from "./run-log.js";
import { RunSession } from "./run-session.js";
import { backendNameOf, sandboxBackend } from "./sandbox-backends.js";
import { startRun } from "./start-run.js";
import { DIR_MARKER, syncWorkspace } from "./workspace-sync.js";

export interface DirMarker {
  runId: string;
  /** The run store the run lives in (`--db` of `rebench start`). */
  db: string;
}

export interface StartDirOptions {
  store: RunStore;
  environment: string;
  variant: Variant;
  task: TaskId;
  dir: string;
  participant: Participant;
  limits?: UsageLimits;
  /** Sandbox backend name; default `local`. */
  sandbox?: string;
  clock?: Clock;
  /** Called once with a line to print when every GPU the run needs is leased to other runs and it waits. */
  onGpuWait?: (message: string) => void;
  /** Abort the start (Ctrl-C): a wait for a GPU stops at once, other steps at their end; throws the signal's reason. */
  signal?: AbortSignal;
}

export async function startDirRun(options: StartDirOptions): Promise<{ run: RunSummary; instructions: string; dir: string }> {
  const dir = path.resolve(options.dir);
  if (existsSync(dir) && (await readdir(dir)).length > 0) {
    throw new ConflictError(`${dir} is not empty`, { hint: "pass a new or empty directory with --dir" });
  }
  const spec = await newRunSpec({
    environment: options.environment,
    variant: options.variant,
    task: options.task,
    participant: options.participant,
    limits: options.limits ?? {},
    ...(options.limits?.workingSeconds === undefined ? {} : { timeLimitSeconds: options.limits.workingSeconds }),
    config: { driver: "cli", sandbox: options.sandbox ?? "local", dir },
  });
  const existed = existsSync(dir);
  const created = await options.store.createRun(spec);
  const log = await RunLog.open(options.store, created.id, options.clock ?? systemClock);
  const env = runEnvironment(log.summary.spec);
  let sandbox: Sandbox | undefined;
  try {
    const { signal } = options;
    await mkdir(dir, { recursive: true });
    await cp(path.join(env.family.dir, env.implementation.workspace), dir, { recursive: true });
    const prepared = await prepareVariant(env);
    if (prepared.workspace) await cp(prepared.workspace, dir, { recursive: true });
    const backend = sandboxBackend(backendNameOf(log.summary.spec));
    signal?.throwIfAborted();
    sandbox = await startRun(log, env, backend, {
      workspaceFrom: dir,
      gpus: { ...(options.onGpuWait ? { onWait: options.onGpuWait } : {}), ...(signal ? { signal } : {}) },
    });
    signal?.throwIfAborted();
    const marker: DirMarker = { runId: created.id, db: options.store.location };
    await mkdir(path.join(dir, DIR_MARKER), { recursive: true });
    await writeFile(path.join(dir, DIR_MARKER, "run.json"), `${JSON.stringify(marker, null, 2)}\n`);
  } catch (error) {
    if (!isTerminal(log.state)) await log.append({ type: "run_failed", error: `start-up failed: ${(error as Error).message}` });
    await destroyRunSandbox(log, sandbox);
    // The directory was absent or empty: leave it so, for the next `rebench start`.
    if (existed) await Promise.all((await readdir(dir).catch(() => [])).map((entry) => rm(path.join(dir, entry), { recursive: true, force: true })));
    else await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return { run: log.summary, instructions: env.instructions, dir };
}

/** The run a directory belongs to. */
export async function readDirMarker(dir: string): Promise<DirMarker> {
  const file = path.join(path.resolve(dir), DIR_MARKER, "run.json");
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    throw new NotFoundError(`${path.resolve(dir)} holds no rebench run (no ${DIR_MARKER}/run.json)`, {
      hint: "start one with `rebench start NAME --variant V --dir DIR`",
    });
  }
  const marker = JSON.parse(text) as Partial<DirMarker>;
  if (typeof marker.runId !== "string" || typeof marker.db !== "string") throw new InvalidInputError(`${file} is malformed`);
  return { runId: marker.runId, db: marker.db };
}

/** What the participant may see of their run: no raw or normalized score (those may be hidden). */
export interface RunStatusView {
  id: string;
  state: RunSummary["state"];
  stopReason: RunSummary["stopReason"];
  usage: RunSummary["usage"];
  limits: RunSummary["spec"]["limits"];
  scoreCalls: number;
}

export function runStatusView(run: RunSummary): RunStatusView {
  return { id: run.id, state: run.state, stopReason: run.stopReason, usage: run.usage, limits: run.spec.limits, scoreCalls: run.scoreCalls };
}

export type DirScoreResult = { kind: "scored"; view: ScoreView; run: RunStatusView } | { kind: "ended"; outcome: RunOutcomeView; run: RunStatusView };

/** Score (or with `submit`, end) a directory's run on the directory's current files. */
export async function scoreDirRun(options: { store: RunStore; dir: string; submit?: string; clock?: Clock }): Promise<DirScoreResult> {
  const dir = path.resolve(options.dir);
  const { runId } = await readDirMarker(dir);
  const log = await RunLog.open(options.store, runId, options.clock ?? systemClock);
  if (isTerminal(log.state) || log.state === "scoring") {
    throw new ConflictError(`run ${runId} has ended (${log.state})`, { hint: "start a new run with `rebench start`" });
  }
  const env = runEnvironment(log.summary.spec);
  const backend = sandboxBackend(backendNameOf(log.summary.spec));
  let sandbox = await backend.reattach(runId);
  if (!sandbox) {
    await log.append({ type: "note", message: "the run's sandbox was gone; created it again from the directory" });
    await releaseRunGpus(runId);
    sandbox = await createRunSandbox(runId, env, backend, { workspaceFrom: dir, onGpus: noteLeasedGpus(log) });
  }
  await syncWorkspace(sandbox, dir);
  const session = new RunSession(log, { sandbox, env }, { watchdogMs: 0 });
  try {
    await session.checkLimits();
    if (isTerminal(log.state)) return { kind: "ended", outcome: await session.ended, run: runStatusView(log.summary) };
    if (options.submit !== undefined) {
      const outcome = await session.tools.submit({ submission: options.submit });
      return { kind: "ended", outcome, run: runStatusView(log.summary) };
    }
    const view = await session.tools.score();
    if (isTerminal(log.state)) return { kind: "ended", outcome: await session.ended, run: runStatusView(log.summary) };
    return { kind: "scored", view, run: runStatusView(log.summary) };
  } finally {
    session.close();
  }
}
